/**
 * 2. Receiving: signed events per second a real n8n accepts through this trigger (production URL,
 * active workflow) against n8n's own Webhook node (same path shape, no verification, answers on
 * receipt), under the same concurrent load. Then the verification cost in isolation.
 */
import { createHmac } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';
import { claimDelivery, deliveryKey, MAX_REMEMBERED_DELIVERIES } from '../nodes/BusinessMessagingTrigger/deliveryStore';
import { verifySignature } from '../nodes/BusinessMessagingTrigger/signature';
import type { CredentialRef } from '../test/e2e/lib/workflows';
import type { Workflow } from '../test/e2e/lib/workflow';
import type { BenchContext } from './lib/context';
import { type LoadResult, runLoad } from './lib/loadgen';
import { executionsAfter, latestExecutionId } from './lib/n8n-runs';
import { settle } from './lib/procfs';
import { fmt, median, percentileSorted, ratio, table, verdict } from './lib/stats';
import { triggerPath, triggerWorkflow, webhookNodeWorkflow } from './workflows';

export const CONCURRENCY = 16;

/**
 * The trigger's duplicate store as after a busy day: full (MAX_REMEMBERED_DELIVERIES bodies accepted
 * over the last hours), so every accepted event replaces the oldest, as in steady use.
 */
function fullDuplicateStore(): IDataObject {
	const now = Math.floor(Date.now() / 1000);
	const store: IDataObject = {};
	const deliveries: Record<string, number> = {};
	for (let i = 0; i < MAX_REMEMBERED_DELIVERIES; i++) {
		deliveries[deliveryKey(Buffer.from(`earlier event ${i}`))] = now - 4 * 3600 + Math.floor((i * 4 * 3600) / MAX_REMEMBERED_DELIVERIES);
	}
	store.deliveries = deliveries;
	return { 'node:Trigger': store };
}

export function receivingWorkflows(credential: CredentialRef): Workflow[] {
	return [
		triggerWorkflow('trig', credential, {}, fullDuplicateStore()),
		triggerWorkflow('trignd', credential, { allowDuplicates: true }),
		webhookNodeWorkflow('hook'),
	];
}

/** A message.received event, unique per `n` and run, about 300 bytes. */
function eventBody(run: string, n: number): string {
	return JSON.stringify({
		event: 'message.received',
		timestamp: new Date().toISOString(),
		data: {
			message_id: `wamid.bench.${run}.${n}`,
			conversation_id: 9000 + (n % 100),
			from: `+1555${String(2000000 + (n % 5000))}`,
			to: '+15559990000',
			type: 'text',
			body: `Benchmark message ${n} of run ${run}: where is my order?`,
			timestamp: new Date().toISOString(),
		},
	});
}

function signedRequest(secret: string, path: string, body: string) {
	const ts = String(Math.floor(Date.now() / 1000));
	return {
		path,
		headers: {
			'content-type': 'application/json',
			'x-service-webhook-timestamp': ts,
			'x-service-webhook-signature': createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex'),
		},
		body,
	};
}

/** Per-call times (µs) of `fn`, each call timed on its own. */
function perCall(count: number, fn: (i: number) => void): Float64Array {
	const out = new Float64Array(count);
	for (let i = 0; i < count; i++) {
		const t0 = process.hrtime.bigint();
		fn(i);
		out[i] = Number(process.hrtime.bigint() - t0) / 1000;
	}
	return out.sort();
}

/** The trigger's signature check alone (and its duplicate store), timed per call. */
function isolation(secret: string) {
	const body = Buffer.from(eventBody('iso', 1));
	const big = Buffer.alloc(64 * 1024, 'a');
	const now = Math.floor(Date.now() / 1000);
	const sig = (raw: Buffer) => createHmac('sha256', secret).update(`${now}.`).update(raw).digest('hex');
	const headersSmall = sig(body);
	const headersBig = sig(big);
	const run = (raw: Buffer, signature: string) => () => {
		const r = verifySignature(secret, signature, String(now), raw, now);
		if (!r.valid) throw new Error('verification failed in the benchmark');
	};
	const small = run(body, headersSmall);
	const large = run(big, headersBig);
	perCall(20_000, small); // warm-up
	perCall(2_000, large);
	const smallTimes = perCall(100_000, small);
	const largeTimes = perCall(10_000, large);
	// The duplicate store when full: what the trigger does per accepted event besides verifying.
	const store: IDataObject = {};
	const scope = 'bench-workflow/bench-node';
	for (let i = 0; i < MAX_REMEMBERED_DELIVERIES; i++) claimDelivery(scope, store, deliveryKey(Buffer.from(String(i))), now);
	const keys = Array.from({ length: 2_000 }, (_, i) => deliveryKey(Buffer.from(`x${i}`)));
	const storeTimes = perCall(keys.length, (i) => claimDelivery(scope, store, keys[i], now));
	const storeJson = JSON.stringify(store).length;
	return { smallTimes, largeTimes, storeTimes, storeJson, smallSize: body.length };
}

interface TargetResult {
	label: string;
	perSecond: number;
	/** Executions finished per second, from the start of the load until the last one stopped. */
	executedPerSecond: number;
	p50Ms: number;
	p99Ms: number;
	failed: number;
}

/** How many bodies the trigger's duplicate store holds, read from the saved workflow (public API). */
async function storeSize(ctx: BenchContext, workflows: Workflow[]): Promise<number> {
	const id = workflows.find((w) => w.name === 'Bench: receive (trig)')!.id;
	const res = await ctx.stack.n8n.api<{ staticData?: Record<string, { deliveries?: object }> | null }>('GET', `/workflows/${id}`);
	return Object.keys(res.body.staticData?.['node:Trigger']?.deliveries ?? {}).length;
}

/** Each receiver under the same load, rounds interleaved; medians over rounds. */
async function measure(ctx: BenchContext, workflows: Workflow[], seconds: number, what: string): Promise<TargetResult[]> {
	const { n8n, sandbox } = ctx.stack;
	const secret = sandbox.credentials.webhookSecret;
	const hookPath = `/webhook/${String(workflows.find((w) => w.name === 'Bench: receive (hook)')!.nodes[0].parameters.path)}`;
	const idOf = (key: string) => workflows.find((w) => w.name === `Bench: receive (${key})`)!.id;
	const targets = [
		{ label: 'This trigger (duplicate store full)', path: triggerPath('trig'), key: 'trig' },
		{ label: 'This trigger, Allow Duplicate Deliveries on', path: triggerPath('trignd'), key: 'trignd' },
		{ label: 'n8n Webhook node (no verification)', path: hookPath, key: 'hook' },
	].map((t) => ({ ...t, workflowId: idOf(t.key) }));
	const isOk = (status: number, body: string) => status === 200 && !body.includes('ignored');
	// Warm-up, and a check that every target accepts a signed event.
	for (const t of targets) {
		const r = await runLoad({ origin: n8n.baseUrl, concurrency: 4, durationMs: 1500, makeRequest: (n) => signedRequest(secret, t.path, eventBody(`warm-${what}-${t.key}-${Date.now()}`, n)), isOk });
		if (r.ok === 0) throw new Error(`${t.label} accepted nothing: ${JSON.stringify(r.statuses)}`);
		await settle(ctx.n8nPids(), { maxMs: 60_000 });
	}
	const storeBefore = await storeSize(ctx, workflows);
	const results = targets.map(() => [] as LoadResult[]);
	const executed = targets.map(() => [] as number[]);
	for (let round = 1; round <= ctx.rounds; round++) {
		for (const [i, t] of targets.entries()) {
			await settle(ctx.n8nPids(), { maxMs: 60_000 });
			const run = `${what}-r${round}-${t.key}-${Date.now()}`;
			const idBefore = await latestExecutionId(n8n, t.workflowId);
			const loadStart = Date.now();
			const r = await runLoad({
				origin: n8n.baseUrl,
				concurrency: CONCURRENCY,
				durationMs: seconds * 1000,
				warmupMs: 500,
				makeRequest: (n) => signedRequest(secret, t.path, eventBody(run, n)),
				isOk,
			});
			results[i].push(r);
			await settle(ctx.n8nPids(), { maxMs: 120_000 });
			const done = await executionsAfter(n8n, t.workflowId, idBefore);
			const perSecond = done.count / ((done.lastStoppedAt - loadStart) / 1000);
			executed[i].push(perSecond);
			ctx.log(
				`receiving (${what}) round ${round}: ${t.label}: ${fmt(r.perSecond, 0)}/s answered, ${done.count} executions at ${fmt(perSecond, 1)}/s, ` +
					`p50 ${fmt(r.p50Ms)} ms, p99 ${fmt(r.p99Ms)} ms, statuses ${JSON.stringify(r.statuses)}`,
			);
		}
	}
	await settle(ctx.n8nPids(), { maxMs: 60_000 });
	ctx.log(`receiving (${what}): the trigger's duplicate store held ${storeBefore} bodies before the rounds, ${await storeSize(ctx, workflows)} after`);
	return targets.map((t, i) => ({
		label: t.label,
		perSecond: median(results[i].map((r) => r.perSecond)),
		executedPerSecond: median(executed[i]),
		p50Ms: median(results[i].map((r) => r.p50Ms)),
		p99Ms: median(results[i].map((r) => r.p99Ms)),
		failed: results[i].reduce((sum, r) => sum + r.failed, 0),
	}));
}

function rowsOf(results: TargetResult[], withTarget: boolean): string[][] {
	const hook = results[results.length - 1];
	return results.map((r, i) => [
		r.label,
		fmt(r.perSecond, 0),
		ratio(r.perSecond / hook.perSecond),
		fmt(r.executedPerSecond, 0),
		ratio(r.executedPerSecond / hook.executedPerSecond),
		fmt(r.p50Ms, 1),
		fmt(r.p99Ms, 1),
		ratio(r.p50Ms / hook.p50Ms),
		String(r.failed),
		withTarget && i === 0
			? `${verdict(Math.min(r.perSecond / hook.perSecond, r.executedPerSecond / hook.executedPerSecond) >= 0.9)} (both ≥ 0.9× Webhook node)`
			: '',
	]);
}

const HEADER = ['Receiver', 'Accepted/s', 'vs Webhook', 'Executed/s', 'vs Webhook', 'p50 ms', 'p99 ms', 'p50 vs Webhook', 'Failed', 'Target'];

export async function benchReceiving(ctx: BenchContext, workflows: Workflow[], seconds: number): Promise<string> {
	const results = await measure(ctx, workflows, seconds, 'default');
	const iso = isolation(ctx.stack.sandbox.credentials.webhookSecret);
	const us = (sorted: Float64Array, p: number) => fmt(percentileSorted(sorted, p), 1);
	const verifyP99Ms = percentileSorted(iso.smallTimes, 99) / 1000;
	const isoRows = [
		[`verifySignature, ${iso.smallSize} B event`, us(iso.smallTimes, 50), us(iso.smallTimes, 99), us(iso.smallTimes, 100), `${verdict(verifyP99Ms <= 1)} (p99 ≤ 1 ms)`],
		['verifySignature, 64 KB body', us(iso.largeTimes, 50), us(iso.largeTimes, 99), us(iso.largeTimes, 100), ''],
		[`duplicate store full (${MAX_REMEMBERED_DELIVERIES} keys, ${fmt(iso.storeJson / 1024, 0)} KB as JSON): remember one`, us(iso.storeTimes, 50), us(iso.storeTimes, 99), us(iso.storeTimes, 100), ''],
	];
	return [
		table(
			`2. Receiving: signed events accepted by n8n over ${seconds} s, ${CONCURRENCY} connections, each request signed afresh with a unique body (median of ${ctx.rounds} rounds)`,
			HEADER,
			rowsOf(results, true),
			[
				'Accepted/s: answered 200 per second during the load. Executed/s: executions the events started, counted by n8n’s',
				'execution ids, per second from the start of the load until the last one stopped (the rate n8n sustains: this trigger',
				'answers before n8n starts the run, the Webhook node once the run is started). p50/p99: from sending the request until',
				'n8n’s answer, as the load generator (undici Pool, same machine) saw it.',
			],
		),
		table('2b. Verification in isolation (per call, this process)', ['Check', 'p50 µs', 'p99 µs', 'max µs', 'Target'], isoRows),
	].join('\n');
}

/** The same receivers with n8n's expression engine set to `legacy` (no isolate per webhook request). */
export async function benchReceivingLegacy(ctx: BenchContext, workflows: Workflow[], seconds: number): Promise<string> {
	const results = await measure(ctx, workflows, seconds, 'legacy');
	return table(
		`2c. Receiving again with N8N_EXPRESSION_ENGINE=legacy (n8n restarted; otherwise as 2)`,
		HEADER,
		rowsOf(results, false),
		[
			'n8n 2.41 defaults to the "vm" expression engine. For a production webhook whose node is not n8n’s own Webhook node',
			'(every community trigger), n8n takes an expression isolate before calling the node (LiveWebhooks.webhookPhaseNeedsIsolate),',
			'and its pool of one isolate is disposed and rebuilt after every use; the Webhook node with static parameters skips that',
			'step. With the duplicate store on, n8n also reads the workflow’s static data (the store, about 150 KB of JSON when full)',
			'with every request and writes it back after every accepted event.',
		],
	);
}
