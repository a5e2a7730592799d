/**
 * 7. Conversations: from a customer's reply to the resumed run's first node, through this package
 * (the service's signed message.received to the trigger with Resume Waiting Runs, handed to the run that
 * Ask and Wait for Chat Reply put to wait), beside n8n's own Webhook → Wait node resumed by a POST to its
 * resume address, on the same n8n. Latency (p50, p95) one reply at a time, then resumes per second with
 * `waiting` runs waiting and all replies sent at once.
 */
import { signedRequest } from '../test/trigger/requests';
import { SECRET_REUSE_MS } from '../nodes/shared/webhookSecret';
import { sleep, waitFor } from '../tools/n8n/proc';
import { chain, node, webhookIdFor, webhookTrigger, type Workflow } from '../tools/n8n/workflow';
import { CREDENTIAL_TYPE, type CredentialRef, TRIGGER_TYPE, triggerProductionPath } from '../tools/n8n/workflows';
import type { BenchContext } from './lib/context';
import { isolatesCreated } from './lib/isolates';
import type { Execution } from './lib/n8n-runs';
import { fmt, median, percentileSorted, ratio, table, verdict } from './lib/stats';

const AFTER = 'After';
const TRIGGER_HOOK = webhookIdFor('bench-conversations');
/** How many asking runs are started at the same time while runs are being put to wait. */
const START_CONCURRENCY = 5;
/**
 * How long after a run waits its customer answers, in both measurements: later than the trigger reuses its
 * reading of the Webhook Secret (the wait's registration read it), so every reply pays the reading a real one does.
 */
const REPLY_AFTER_MS = SECRET_REUSE_MS + 200;

export function conversationWorkflows(credential: CredentialRef): Workflow[] {
	const trigger = chain('benchConvTrigger', 'Bench: conversations trigger', [
		node('Trigger', TRIGGER_TYPE, 2, { events: ['*'], resumeWaitingRuns: true, options: {} }, { credentials: { [CREDENTIAL_TYPE]: credential }, webhookId: TRIGGER_HOOK }),
		node('Message', 'n8n-nodes-base.noOp', 1, {}),
	]);
	const ask = chain('benchConvAsk', 'Bench: ask and wait for chat reply', [
		webhookTrigger('bench-conv-ask', 'Run', 'onReceived'),
		node('Ask', 'n8n-nodes-business-messaging.businessMessaging', 1, { resource: 'message', operation: 'askAndWaitForReply', phoneNumberId: '', phone: '={{ $json.body.phone }}', textSource: 'text', text: 'Benchmark question' }, { credentials: { [CREDENTIAL_TYPE]: credential } }),
		node(AFTER, 'n8n-nodes-base.noOp', 1, {}),
	]);
	// n8n's anchor: the Wait node resumed by a POST to $execution.resumeUrl, which the Set node keeps in the run.
	const wait = chain('benchConvWait', 'Bench: Webhook → Wait (n8n)', [
		webhookTrigger('bench-conv-wait', 'Run', 'onReceived'),
		node('Resume Address', 'n8n-nodes-base.set', 3.4, { mode: 'manual', assignments: { assignments: [{ id: 'a', name: 'resumeUrl', value: '={{ $execution.resumeUrl }}', type: 'string' }] }, options: {} }),
		node('Wait', 'n8n-nodes-base.wait', 1.1, { resume: 'webhook', httpMethod: 'POST', responseMode: 'onReceived', options: {} }, { webhookId: webhookIdFor('bench-conv-wait-node') }),
		node(AFTER, 'n8n-nodes-base.noOp', 1, {}),
	]);
	return [trigger, ask, wait];
}

interface Waiting {
	executionId: string;
	/** Sends the reply (ours) or the resume call (n8n's); resolves with the HTTP status once answered. */
	resume: () => Promise<number>;
}

async function execution(ctx: BenchContext, id: string): Promise<Execution | undefined> {
	const res = await ctx.stack.n8n.api<Execution>('GET', `/executions/${id}?includeData=true`);
	return res.status === 200 ? res.body : undefined;
}

/** Starts one run through its Webhook node and waits until it waits; what resumes it. */
type Starter = (n: number) => Promise<Waiting>;

function starters(ctx: BenchContext, workflows: Workflow[], run: string): { ours: Starter; anchor: Starter } {
	const { n8n, sandbox } = ctx.stack;
	const byName = (name: string) => workflows.find((w) => w.name === name)!;
	const start = async (workflow: Workflow, body: unknown) => {
		const res = await fetch(`${n8n.baseUrl}/webhook/${String(workflow.nodes[0].parameters.path)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
		await res.text();
		if (res.status !== 200) throw new Error(`${workflow.name}: ${res.status}`);
	};
	const waitingRun = async (workflow: Workflow, marker: string): Promise<Execution> =>
		await waitFor(`a waiting run of ${workflow.name} (${marker})`, async () => {
			const list = await n8n.api<{ data: Execution[] }>('GET', `/executions?workflowId=${workflow.id}&status=waiting&includeData=true&limit=250`);
			return list.body.data?.find((e) => JSON.stringify(e.data?.resultData.runData.Run ?? '').includes(marker));
		}, 120_000, 200);
	const secret = sandbox.credentials.webhookSecret;
	const triggerUrl = `${n8n.baseUrl}${triggerProductionPath(TRIGGER_HOOK)}`;
	return {
		ours: async (n) => {
			const phone = `+1556${run}${String(n).padStart(4, '0')}`;
			await start(byName('Bench: ask and wait for chat reply'), { phone });
			const e = await waitingRun(byName('Bench: ask and wait for chat reply'), phone);
			return {
				executionId: e.id,
				resume: async () => {
					const at = new Date().toISOString();
					const body = JSON.stringify({ event: 'message.received', timestamp: at, data: { message_id: `wamid.bench.${run}.${n}`, conversation_id: n, from: phone, to: '+15559990000', type: 'text', body: 'YES', timestamp: at } });
					const res = await fetch(triggerUrl, { method: 'POST', headers: signedRequest(secret, body, Math.floor(Date.now() / 1000)).headers, body });
					await res.text();
					return res.status;
				},
			};
		},
		anchor: async (n) => {
			const marker = `anchor-${run}-${n}`;
			await start(byName('Bench: Webhook → Wait (n8n)'), { marker });
			const e = await waitingRun(byName('Bench: Webhook → Wait (n8n)'), marker);
			const resumeUrl = String(e.data?.resultData.runData['Resume Address']?.[0]?.data?.main?.[0]?.[0]?.json.resumeUrl ?? '');
			if (!resumeUrl.startsWith('http')) throw new Error(`no resume address in execution ${e.id}`);
			return {
				executionId: e.id,
				resume: async () => {
					const res = await fetch(resumeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"answer":"YES"}' });
					await res.text();
					return res.status;
				},
			};
		},
	};
}

/** When the resumed run's first node started (n8n's runData), once the run finished. */
async function afterStarted(ctx: BenchContext, executionId: string): Promise<number> {
	return await waitFor(`execution ${executionId} to finish`, async () => {
		const e = await execution(ctx, executionId);
		const start = e?.data?.resultData.runData[AFTER]?.[0]?.startTime;
		return e && e.status === 'success' && start ? start : undefined;
	}, 120_000, 100);
}

async function inBatches<T>(count: number, concurrency: number, fn: (n: number) => Promise<T>): Promise<T[]> {
	const out: T[] = new Array(count);
	let next = 0;
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, async () => {
		while (next < count) {
			const n = next++;
			out[n] = await fn(n);
		}
	}));
	return out;
}

/** The isolate count once n8n has stopped building: it rebuilds a used isolate in the background. */
async function settledIsolates(ctx: BenchContext): Promise<number> {
	for (let count = isolatesCreated(ctx.isolateDir); ; ) {
		await sleep(150);
		const now = isolatesCreated(ctx.isolateDir);
		if (now === count) return count;
		count = now;
	}
}

/** One reply at a time: ms from sending it to the resumed run's first node, per run, and the isolates n8n built per reply. */
async function latencies(ctx: BenchContext, start: Starter, samples: number): Promise<{ ms: number[]; isolatesPerReply: number }> {
	const ms: number[] = [];
	let isolates = 0;
	for (let n = 0; n < samples; n++) {
		const w = await start(n);
		await sleep(REPLY_AFTER_MS);
		const before = await settledIsolates(ctx);
		const t0 = Date.now();
		const status = await w.resume();
		if (status !== 200) throw new Error(`resume of execution ${w.executionId} answered ${status}`);
		ms.push((await afterStarted(ctx, w.executionId)) - t0);
		isolates += (await settledIsolates(ctx)) - before;
	}
	return { ms: ms.sort((a, b) => a - b), isolatesPerReply: isolates / samples };
}

/** `waiting` runs waiting, all replies sent at once: resumes per second, from the first send to the last first node. */
async function throughput(ctx: BenchContext, start: Starter, waiting: number, offset: number): Promise<number> {
	const runs = await inBatches(waiting, START_CONCURRENCY, (n) => start(offset + n));
	await sleep(REPLY_AFTER_MS);
	const t0 = Date.now();
	const statuses = await Promise.all(runs.map((w) => w.resume()));
	const bad = statuses.filter((s) => s !== 200);
	if (bad.length) throw new Error(`${bad.length} resumes answered ${[...new Set(bad)].join(', ')}`);
	const starts = await Promise.all(runs.map((w) => afterStarted(ctx, w.executionId)));
	return waiting / ((Math.max(...starts) - t0) / 1000);
}

/** The conversation figures under one expression-engine setting (n8n restarted with it and the isolate counter before this). */
export async function benchConversations(ctx: BenchContext, workflows: Workflow[], samples: number, waiting: number, id: string, setting: string): Promise<string> {
	const rows: string[][] = [];
	const isolates: Record<string, number[]> = { ours: [], anchor: [] };
	const p50: Record<string, number[]> = { ours: [], anchor: [] };
	const p95: Record<string, number[]> = { ours: [], anchor: [] };
	const rates: Record<string, number[]> = { ours: [], anchor: [] };
	for (let round = 0; round < ctx.rounds; round++) {
		const s = starters(ctx, workflows, `${round}${Date.now() % 1000}`.padStart(3, '0').slice(-3));
		// Alternating order, so neither gets the warmer machine every round.
		for (const key of round % 2 ? (['anchor', 'ours'] as const) : (['ours', 'anchor'] as const)) {
			ctx.log(`${id}. round ${round + 1}: ${key}, ${samples} replies one at a time, then ${waiting} at once`);
			const { ms, isolatesPerReply } = await latencies(ctx, s[key], samples);
			isolates[key].push(isolatesPerReply);
			p50[key].push(percentileSorted(ms, 50));
			p95[key].push(percentileSorted(ms, 95));
			rates[key].push(await throughput(ctx, s[key], waiting, 1000));
		}
	}
	const label = { ours: 'Reply → trigger (Resume Waiting Runs) → Ask and Wait for Chat Reply', anchor: 'n8n: POST to the Wait node’s resume address' };
	for (const key of ['ours', 'anchor'] as const) {
		rows.push([label[key], fmt(median(p50[key]), 0), fmt(median(p95[key]), 0), fmt(median(rates[key]), 1), fmt(median(isolates[key]), 2)]);
	}
	const p50Ratio = median(p50.ours.map((v, i) => v / p50.anchor[i]));
	const rateRatio = median(rates.ours.map((v, i) => v / rates.anchor[i]));
	return table(
		`${id}. Conversations under ${setting}: a reply to the resumed run's first node (${samples} replies one at a time, then ${waiting} runs waiting, all replied at once; ${ctx.rounds} rounds, medians)`,
		['Path', 'p50 ms', 'p95 ms', 'resumes/s', 'isolates/reply'],
		rows,
		[
			`p50 against n8n's Webhook → Wait: ${ratio(p50Ratio)} (target ≤ 1.20×: ${verdict(p50Ratio <= 1.2)}); resumes/s: ${ratio(rateRatio)}`,
			'Isolates/reply: expression isolates n8n built for one reply (one at a time), counted exactly by a preload around isolated-vm,',
			'including the one n8n builds in the background to replace each it used; each costs tens of ms of CPU.',
			'Ours includes the trigger checking the signature, finding the wait, the asking node checking the signature again, and (before the 2xx) asking n8n whether it holds the run; n8n\'s path is one POST to the resume address.',
		],
	);
}
