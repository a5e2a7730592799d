/**
 * 7. Conversations: from a customer's reply to the resumed run's first node, through this package
 * (the service's signed message.received to the trigger with Resume Waiting Runs, handed to the run that
 * Ask and Wait for Chat Reply put to wait), beside n8n's own Webhook → Wait node resumed by a POST to its
 * resume address, and beside a message's `read` status (message.status.updated to the same trigger, which
 * hands the run that Send Text's Wait for Status put to wait its summary), on the same n8n. Latency (p50, p95)
 * one reply or status at a time, then resumes per second with `waiting` runs waiting and all sent at once.
 */
import { signedRequest } from '../test/trigger/requests';
import { SECRET_REUSE_MS } from '../nodes/shared/webhookSecret';
import { sleep, waitFor } from '../tools/n8n/proc';
import { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_RETRY_DELAYS_MS } from '../tools/sandbox/webhooks';
import { chain, node, webhookIdFor, webhookTrigger, type Workflow } from '../tools/n8n/workflow';
import { CREDENTIAL_TYPE, type CredentialRef, STATUS_SEND_NODE, statusWaitWorkflow, TRIGGER_TYPE, triggerProductionPath } from '../tools/n8n/workflows';
import type { BenchContext } from './lib/context';
import { isolatesCreated } from './lib/isolates';
import { type Execution, executionsSince, latestExecutionId, outputOf } from './lib/n8n-runs';
import { fmt, median, percentileSorted, ratio, table, verdict } from './lib/stats';

const AFTER = 'After';
const TRIGGER_HOOK = webhookIdFor('bench-conversations');
const TRIGGER_WORKFLOW = 'Bench: conversations trigger';
const ASK_WORKFLOW = 'Bench: ask and wait for chat reply';
const WAIT_WORKFLOW = 'Bench: Webhook → Wait (n8n)';
const statusWorkflowName = (wanted: 'read' | 'delivered') => `Bench: send text and wait for status (${wanted})`;
/** Longer than any measurement waits: a run that goes on at its limit would count no status. */
const STATUS_LIMIT_MINUTES = 60;
/** How many asking runs are started at the same time while runs are being put to wait. */
const START_CONCURRENCY = 5;
/**
 * How long after a run waits its customer answers, in both measurements: later than the trigger reuses its
 * reading of the Webhook Secret (the wait's registration read it), so every reply pays the reading a real one does.
 */
const REPLY_AFTER_MS = SECRET_REUSE_MS + 200;

export function conversationWorkflows(credential: CredentialRef): Workflow[] {
	const trigger = chain('benchConvTrigger', TRIGGER_WORKFLOW, [
		node('Trigger', TRIGGER_TYPE, 2, { events: ['*'], resumeWaitingRuns: true, options: {} }, { credentials: { [CREDENTIAL_TYPE]: credential }, webhookId: TRIGGER_HOOK }),
		node('Message', 'n8n-nodes-base.noOp', 1, {}),
	]);
	const ask = chain('benchConvAsk', ASK_WORKFLOW, [
		webhookTrigger('bench-conv-ask', 'Run', 'onReceived'),
		node('Ask', 'n8n-nodes-business-messaging.businessMessaging', 1, { resource: 'message', operation: 'askAndWaitForReply', phoneNumberId: '', phone: '={{ $json.body.phone }}', textSource: 'text', text: 'Benchmark question' }, { credentials: { [CREDENTIAL_TYPE]: credential } }),
		node(AFTER, 'n8n-nodes-base.noOp', 1, {}),
	]);
	// n8n's anchor: the Wait node resumed by a POST to $execution.resumeUrl, which the Set node keeps in the run.
	const wait = chain('benchConvWait', WAIT_WORKFLOW, [
		webhookTrigger('bench-conv-wait', 'Run', 'onReceived'),
		node('Resume Address', 'n8n-nodes-base.set', 3.4, { mode: 'manual', assignments: { assignments: [{ id: 'a', name: 'resumeUrl', value: '={{ $execution.resumeUrl }}', type: 'string' }] }, options: {} }),
		node('Wait', 'n8n-nodes-base.wait', 1.1, { resume: 'webhook', httpMethod: 'POST', responseMode: 'onReceived', options: {} }, { webhookId: webhookIdFor('bench-conv-wait-node') }),
		node(AFTER, 'n8n-nodes-base.noOp', 1, {}),
	]);
	return [trigger, ask, wait, ...(['read', 'delivered'] as const).map((wanted) => statusWaitWorkflow(`benchConvStatus${wanted}`, statusWorkflowName(wanted), credential, `bench-conv-status-${wanted}`, wanted, STATUS_LIMIT_MINUTES))];
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

/** Starts a run of `workflow` through its Webhook node, which answers at once. */
async function startRun(ctx: BenchContext, workflow: Workflow, body: unknown): Promise<void> {
	const res = await fetch(`${ctx.stack.n8n.baseUrl}/webhook/${String(workflow.nodes[0].parameters.path)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	await res.text();
	if (res.status !== 200) throw new Error(`${workflow.name}: ${res.status}`);
}

/** The run of `workflow` whose Webhook node received `marker`, once it waits. */
async function waitingRun(ctx: BenchContext, workflow: Workflow, marker: string, timeoutMs = 120_000): Promise<Execution> {
	return await waitFor(`a waiting run of ${workflow.name} (${marker})`, async () => {
		const list = await ctx.stack.n8n.api<{ data: Execution[] }>('GET', `/executions?workflowId=${workflow.id}&status=waiting&includeData=true&limit=250`);
		return list.body.data?.find((e) => JSON.stringify(e.data?.resultData.runData.Run ?? '').includes(marker));
	}, timeoutMs, 200);
}

/** The body of one of the service's events, as it sends it and, on a retry, sends it again. */
const envelope = (event: string, data: Record<string, unknown>) => JSON.stringify({ event, timestamp: new Date().toISOString(), data });

/** An event's body POSTed to the trigger, signed now as the service signs (a retry re-signs the same body); the HTTP status once answered, and the body. */
async function toTrigger(ctx: BenchContext, body: string): Promise<{ status: number; body: string }> {
	const res = await fetch(`${ctx.stack.n8n.baseUrl}${triggerProductionPath(TRIGGER_HOOK)}`, { method: 'POST', headers: signedRequest(ctx.stack.sandbox.credentials.webhookSecret, body, Math.floor(Date.now() / 1000)).headers, body });
	return { status: res.status, body: await res.text() };
}

/** The `message_id`s a waiting run of a status workflow sent, in item order (the Send node's output while it waits). */
function sentMessages(e: Execution): string[] {
	const ids = outputOf(e, STATUS_SEND_NODE).map((item) => item.message_id);
	if (!ids.length || ids.some((id) => typeof id !== 'string')) throw new Error(`execution ${e.id} waits without the message ids it sent`);
	return ids as string[];
}

/** Starts one run through its Webhook node and waits until it waits; what resumes it. */
type Starter = (n: number) => Promise<Waiting>;
type Path = 'ours' | 'status' | 'anchor';

function starters(ctx: BenchContext, workflows: Workflow[], run: string): Record<Path, Starter> {
	const byName = (name: string) => workflows.find((w) => w.name === name)!;
	return {
		ours: async (n) => {
			const phone = `+1556${run}${String(n).padStart(4, '0')}`;
			await startRun(ctx, byName(ASK_WORKFLOW), { phone });
			const e = await waitingRun(ctx, byName(ASK_WORKFLOW), phone);
			return {
				executionId: e.id,
				resume: async () => {
					const at = new Date().toISOString();
					return (await toTrigger(ctx, envelope('message.received', { message_id: `wamid.bench.${run}.${n}`, conversation_id: n, from: phone, to: '+15559990000', type: 'text', body: 'YES', timestamp: at }))).status;
				},
			};
		},
		// One message, waiting for read; the service's read resumes it (no delivered before it: the read alone completes the wait).
		status: async (n) => {
			const phone = `+1557${run}${String(n).padStart(4, '0')}`;
			const workflow = byName(statusWorkflowName('read'));
			await startRun(ctx, workflow, { recipients: [{ phone }] });
			const e = await waitingRun(ctx, workflow, phone);
			const [messageId] = sentMessages(e);
			return {
				executionId: e.id,
				resume: async () => (await toTrigger(ctx, envelope('message.status.updated', { message_id: messageId, status: 'read', timestamp: new Date().toISOString() }))).status,
			};
		},
		anchor: async (n) => {
			const marker = `anchor-${run}-${n}`;
			await startRun(ctx, byName(WAIT_WORKFLOW), { marker });
			const e = await waitingRun(ctx, byName(WAIT_WORKFLOW), marker);
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
async function afterStarted(ctx: BenchContext, executionId: string, timeoutMs = 120_000): Promise<number> {
	return await waitFor(`execution ${executionId} to finish`, async () => {
		const e = await execution(ctx, executionId);
		const start = e?.data?.resultData.runData[AFTER]?.[0]?.startTime;
		return e && e.status === 'success' && start ? start : undefined;
	}, timeoutMs, 100);
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
	const paths: Path[] = ['ours', 'status', 'anchor'];
	const perPath = () => Object.fromEntries(paths.map((key) => [key, [] as number[]])) as Record<Path, number[]>;
	const isolates = perPath();
	const p50 = perPath();
	const p95 = perPath();
	const rates = perPath();
	for (let round = 0; round < ctx.rounds; round++) {
		const s = starters(ctx, workflows, `${round}${Date.now() % 1000}`.padStart(3, '0').slice(-3));
		// Each round starts with the next path, so none gets the warmer machine every round.
		for (const key of [...paths.slice(round % paths.length), ...paths.slice(0, round % paths.length)]) {
			ctx.log(`${id}. round ${round + 1}: ${key}, ${samples} one at a time, then ${waiting} at once`);
			const { ms, isolatesPerReply } = await latencies(ctx, s[key], samples);
			isolates[key].push(isolatesPerReply);
			p50[key].push(percentileSorted(ms, 50));
			p95[key].push(percentileSorted(ms, 95));
			rates[key].push(await throughput(ctx, s[key], waiting, 1000));
		}
	}
	const label: Record<Path, string> = {
		ours: 'Reply → trigger (Resume Waiting Runs) → Ask and Wait for Chat Reply',
		status: 'Status read → trigger (Resume Waiting Runs) → Send Text’s Wait for Status',
		anchor: 'n8n: POST to the Wait node’s resume address',
	};
	const rows = paths.map((key) => [label[key], fmt(median(p50[key]), 0), fmt(median(p95[key]), 0), fmt(median(rates[key]), 1), fmt(median(isolates[key]), 2)]);
	/** Median of the per-round ratios of path `a` to path `b`. */
	const against = (values: Record<Path, number[]>, a: Path, b: Path) => median(values[a].map((v, i) => v / values[b][i]));
	const p50Ratio = against(p50, 'ours', 'anchor');
	const statusRatio = against(p50, 'status', 'ours');
	return table(
		`${id}. Conversations under ${setting}: a reply or a status to the resumed run's first node (${samples} one at a time, then ${waiting} runs waiting, all sent at once; ${ctx.rounds} rounds, medians)`,
		['Path', 'p50 ms', 'p95 ms', 'resumes/s', 'isolates/reply'],
		rows,
		[
			`p50 against n8n's Webhook → Wait: ${ratio(p50Ratio)} (target ≤ 1.20×: ${verdict(p50Ratio <= 1.2)}); resumes/s: ${ratio(against(rates, 'ours', 'anchor'))}`,
			`Status p50 against the chat reply: ${ratio(statusRatio)} (target ≤ 1.20×: ${verdict(statusRatio <= 1.2)}); against n8n's Webhook → Wait: ${ratio(against(p50, 'status', 'anchor'))}; resumes/s against the chat reply: ${ratio(against(rates, 'status', 'ours'))}`,
			'Isolates/reply: expression isolates n8n built for one reply or status (one at a time), counted exactly by a preload around isolated-vm,',
			'including the one n8n builds in the background to replace each it used; each costs tens of ms of CPU.',
			'Ours includes the trigger checking the signature, finding the wait, the asking node checking the signature again, and (before the 2xx) asking n8n whether it holds the run; n8n\'s path is one POST to the resume address.',
			'Status: one message waiting for read, and the service\'s read alone (no delivered before it); the trigger checks the signature, takes the status into its tally,',
			'hands the run a summary signed with the Webhook Secret, the sending node checks that signature, and (before the 2xx) the trigger asks n8n whether it holds the run.',
		],
	);
}

/** How long the burst waits, after the last answer, for the run to go on before it says it did not. */
const BURST_GOES_ON_MS = 300_000;

/** A status's answer as the burst counts it: 200, or the status with what the body said (the trigger's 503 or n8n's own). */
function answerOf(res: { status: number; body: string }): string {
	if (res.status === 200) return '200';
	let said = res.body;
	try {
		const json = JSON.parse(res.body) as { message?: string; error?: string };
		said = json.error ?? json.message ?? res.body;
	} catch {
		// not JSON: the body as it is
	}
	return `${res.status} "${said.slice(0, 80)}"`;
}

const counts = (answers: Array<{ answer: string }>) => {
	const by = new Map<string, number>();
	for (const { answer } of answers) by.set(answer, (by.get(answer) ?? 0) + 1);
	return [...by].map(([answer, n]) => `${n} × ${answer}`).join(', ');
};

/**
 * One run waiting for `count` messages to be delivered, and the service's `delivered` of every one POSTed to the
 * trigger at once; those not answered 200 sent again a minute later, as the service's first retry. What the trigger
 * answered, whether every status counted and the run went on once, and how long the statuses took to be taken in.
 * What went wrong is printed, not thrown: it is the finding.
 */
export async function benchStatusBurst(ctx: BenchContext, workflows: Workflow[], count: number, id: string, setting: string): Promise<string> {
	const { n8n } = ctx.stack;
	const byName = (name: string) => workflows.find((w) => w.name === name)!;
	const workflow = byName(statusWorkflowName('delivered'));
	const trigger = byName(TRIGGER_WORKFLOW);
	const run = String(Date.now() % 1000).padStart(3, '0');
	const marker = `burst-${run}`;
	ctx.log(`${id}. one run sending ${count} messages and waiting for delivered, then every status at once`);
	await startRun(ctx, workflow, { marker, recipients: Array.from({ length: count }, (_, n) => ({ phone: `+1558${run}${String(n).padStart(4, '0')}` })) });
	const waiting = await waitingRun(ctx, workflow, marker, 600_000);
	const messages = sentMessages(waiting);
	// A time of its own for each message's delivered, so the run's output shows every message got its own status.
	const base = Date.now() - count;
	const deliveredAt = new Map(messages.map((m, n) => [m, new Date(base + n).toISOString()]));
	const bodies = new Map(messages.map((m) => [m, envelope('message.status.updated', { message_id: m, status: 'delivered', timestamp: deliveredAt.get(m) })]));
	await sleep(REPLY_AFTER_MS);
	const triggerRunsBefore = await latestExecutionId(n8n, trigger.id);
	const t0 = Date.now();
	const send = async (ids: string[]) =>
		await Promise.all(
			ids.map(async (m) => {
				const answer = await toTrigger(ctx, bodies.get(m)!).then(answerOf, (error: Error) => `no answer (${error.message})`);
				return { message: m, answer, ms: Date.now() - t0 };
			}),
		);
	const answers = await send(messages);
	const failed = answers.filter((a) => a.answer !== '200').map((a) => a.message);
	let retryMs: number | undefined;
	if (failed.length) {
		ctx.log(`${id}. ${failed.length} statuses not answered 200: sent again in ${DEFAULT_RETRY_DELAYS_MS[0] / 1000} s, as the service does`);
		await sleep(DEFAULT_RETRY_DELAYS_MS[0]);
		retryMs = Date.now() - t0;
	}
	const again = failed.length ? await send(failed) : [];
	let goesOnMs: number | undefined;
	try {
		goesOnMs = (await afterStarted(ctx, waiting.id, BURST_GOES_ON_MS)) - t0;
	} catch {
		// Not gone on: the rows below say what the run and the answers show.
	}
	const e = await execution(ctx, waiting.id);
	const counted = (e ? outputOf(e, STATUS_SEND_NODE) : []).filter((item) => item.reached === true && item.deliveredAt === deliveredAt.get(String(item.message_id))).length;
	const afterRuns = e?.data?.resultData.runData[AFTER]?.length ?? 0;
	const triggerRuns = (await executionsSince(n8n, trigger.id, triggerRunsBefore)).length;
	const answered = answers.map((a) => a.ms).sort((a, b) => a - b);
	const late = answered.filter((ms) => ms > DEFAULT_DELIVERY_TIMEOUT_MS).length;
	return table(
		`${id}, Wait for Status under ${setting}: one run waiting for ${count} messages to be delivered, the service's delivered of every one POSTed to the trigger at once`,
		['What', 'Measured'],
		[
			['Answers of the trigger', counts(answers)],
			['First POST → the last answer, ms', fmt(answered[answered.length - 1], 0)],
			['First POST → answer, p50 / p95, ms', `${fmt(percentileSorted(answered, 50), 0)} / ${fmt(percentileSorted(answered, 95), 0)}`],
			[`Answers later than the service waits (${DEFAULT_DELIVERY_TIMEOUT_MS / 1000} s)`, String(late)],
			[`Those not answered 200, the same bodies sent again ${DEFAULT_RETRY_DELAYS_MS[0] / 1000} s after the last answer (the service's first retry)`, again.length ? counts(again) : 'none'],
			['First POST → the retry, ms', retryMs === undefined ? 'no retry' : fmt(retryMs, 0)],
			['First POST → the run going on (After’s start), ms', goesOnMs === undefined ? `not gone on ${BURST_GOES_ON_MS / 1000} s after the last answer` : fmt(goesOnMs, 0)],
			['Statuses counted in the run’s output (reached: true, the deliveredAt sent)', `${counted} of ${count}`],
			['The run: After node’s runs, status', `${afterRuns}, ${e?.status ?? 'not found'}`],
			['Trigger runs started by the statuses', String(triggerRuns)],
		],
		[
			`Every status counted, the run gone on once: ${verdict(counted === count && afterRuns === 1)}; every status answered 200 at once: ${verdict(!failed.length)}`,
			'A status that leaves the wait incomplete is answered after its count, gathered with the others its process took at the same moment, was taken in at the',
			'trigger\'s waits webhook, a pause and a recount there (docs/status-waits.md); the one that completes it, once n8n holds the resumed run. The answer times are',
			'of the first POSTs. The service gives up on an answer later than it waits and sends that status again; the bench sends again only those not answered 200.',
			'Trigger runs: a status of a message a run waits for starts none, nor does its retry after the run went on.',
		],
	);
}
