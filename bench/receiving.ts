/**
 * 2. Receiving: signed events per second a real n8n accepts through this trigger (production URL,
 * active workflow) against n8n's own Webhook node (same path shape; answering "Immediately" without
 * verification and with Header Auth, n8n's own check of a secret; and answering in the trigger's own
 * response mode, once the run exists), under the same concurrent load. Then the verification cost in
 * isolation. `N8N_VERSION=1.123.81 npm run bench -- receiving` measures the oldest supported version,
 * where "Immediately" answers before the run exists and the trigger's mode costs what safety costs.
 */
import { sign } from '../test/trigger/requests';
import type { IDataObject } from 'n8n-workflow';
import {
	claimDelivery,
	deliveryKey,
	MAX_REMEMBERED_DELIVERIES,
	rememberedDeliveries,
	storedDeliveryCount,
} from '../nodes/BusinessMessagingTrigger/deliveryStore';
import { verifySignature } from '../credentials/webhookSignature';
import { ACKNOWLEDGE_ONCE_RUN_EXISTS } from '../nodes/BusinessMessagingTrigger/acknowledgement';
import { type EngineSetting, RECOMMENDED_SETTING } from '../tools/n8n/settings';
import type { CredentialRef } from '../tools/n8n/workflows';
import type { Workflow } from '../tools/n8n/workflow';
import type { BenchContext } from './lib/context';
import { type LoadResult, runLoad } from './lib/loadgen';
import { executionsAfter, latestExecutionId } from './lib/n8n-runs';
import { isolatesCreated } from './lib/isolates';
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
	const deliveries = Array.from({ length: MAX_REMEMBERED_DELIVERIES }, (_, i): [string, number] => [
		deliveryKey(Buffer.from(`earlier event ${i}`)),
		now - 4 * 3600 + Math.floor((i * 4 * 3600) / MAX_REMEMBERED_DELIVERIES),
	]);
	return { 'node:Trigger': rememberedDeliveries(deliveries) };
}

/** The n8n Header Auth credential of the Webhook node that checks a secret (imported with the stack). */
export const HEADER_AUTH = { name: 'Bench header auth', type: 'httpHeaderAuth', header: 'x-bench-secret', value: 'bench-header-secret' };

export const headerAuthCredential = () => ({ name: HEADER_AUTH.name, type: HEADER_AUTH.type, data: { name: HEADER_AUTH.header, value: HEADER_AUTH.value } });

/** The production path of a receiving workflow's Webhook node (its `path` parameter). */
export const webhookNodePath = (workflows: Workflow[], key: string) =>
	`/webhook/${String(workflows.find((w) => w.name === `Bench: receive (${key})`)!.nodes[0].parameters.path)}`;

export function receivingWorkflows(credential: CredentialRef, headerAuth: CredentialRef): Workflow[] {
	return [
		triggerWorkflow('trig', credential, {}, fullDuplicateStore()),
		triggerWorkflow('trig1', credential, {}, fullDuplicateStore(), 1),
		triggerWorkflow('trignd', credential, { allowDuplicates: true }),
		webhookNodeWorkflow('hook'),
		webhookNodeWorkflow('hookauth', headerAuth),
		webhookNodeWorkflow('hooksame', undefined, ACKNOWLEDGE_ONCE_RUN_EXISTS),
	];
}

/** A message.received event, unique per `n` and run, about 300 bytes. */
export function eventBody(run: string, n: number): string {
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

/** A request for the load generator: `body` to `path`, signed as the service signs (test/trigger/requests.ts). */
export function signedLoadRequest(secret: string, path: string, body: string, extraHeaders: Record<string, string> = {}) {
	const ts = String(Math.floor(Date.now() / 1000));
	return {
		path,
		headers: {
			...extraHeaders,
			'content-type': 'application/json',
			'x-service-webhook-timestamp': ts,
			'x-service-webhook-signature': sign(secret, ts, body),
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
async function isolation(secret: string) {
	const body = Buffer.from(eventBody('iso', 1));
	const big = Buffer.alloc(64 * 1024, 'a');
	const now = Math.floor(Date.now() / 1000);
	const sig = (raw: Buffer) => sign(secret, String(now), raw);
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
	const store: IDataObject = rememberedDeliveries(
		Array.from({ length: MAX_REMEMBERED_DELIVERIES }, (_, i): [string, number] => [deliveryKey(Buffer.from(String(i))), now]),
	);
	const scope = 'bench-workflow/bench-node';
	const keys = Array.from({ length: 2_000 }, (_, i) => deliveryKey(Buffer.from(`x${i}`)));
	// Claim, then n8n's 2xx acknowledges it: what the trigger does per accepted event besides verifying.
	const storeTimes = new Float64Array(keys.length);
	for (let i = 0; i < keys.length; i++) {
		const t0 = process.hrtime.bigint();
		const claim = await claimDelivery(scope, store, keys[i], now);
		if (claim.outcome === 'claimed') claim.settle(true);
		storeTimes[i] = Number(process.hrtime.bigint() - t0) / 1000;
	}
	storeTimes.sort();
	const storeJson = JSON.stringify(store).length;
	return { smallTimes, largeTimes, storeTimes, storeJson, smallSize: body.length };
}

interface TargetResult {
	key: string;
	label: string;
	/** Expression isolates n8n created per execution started (counted by the preload; exact). */
	isolatesPerEvent: number;
	perSecond: number;
	/** Executions finished per second, from the start of the load until the last one stopped. */
	executedPerSecond: number;
	/** Median over rounds of this receiver's rate over the Webhook node's in the same round. */
	perSecondRatio: number;
	executedRatio: number;
	/** The same, against the Webhook node with Header Auth. */
	perSecondRatioAuth: number;
	executedRatioAuth: number;
	/** The same, against the Webhook node answering in the trigger's response mode. */
	perSecondRatioSame: number;
	executedRatioSame: number;
	p50Ms: number;
	p99Ms: number;
	failed: number;
}

/** How many bodies the trigger's duplicate store holds, read from the saved workflow (public API). */
async function storeSize(ctx: BenchContext, workflows: Workflow[]): Promise<number> {
	const id = workflows.find((w) => w.name === 'Bench: receive (trig)')!.id;
	const res = await ctx.stack.n8n.api<{ staticData?: Record<string, IDataObject> | null }>('GET', `/workflows/${id}`);
	return storedDeliveryCount(res.body.staticData?.['node:Trigger'] ?? {});
}

/**
 * Each receiver under the same load. The machine's speed drifts over minutes (n8n warming up, its
 * database growing, neighbours on a shared host), so each receiver is compared with the Webhook node
 * in the same round, and the order alternates between rounds: the trigger with the store runs right
 * next to the Webhook node, once before it and once after. Ratios are medians of those per-round ratios.
 */
async function measure(ctx: BenchContext, workflows: Workflow[], seconds: number, rounds: number, what: string): Promise<TargetResult[]> {
	const { n8n, sandbox } = ctx.stack;
	const secret = sandbox.credentials.webhookSecret;
	const hookPath = (key: string) => webhookNodePath(workflows, key);
	const idOf = (key: string) => workflows.find((w) => w.name === `Bench: receive (${key})`)!.id;
	// Printed in this order; run in it in odd rounds and backwards in even ones.
	const targets = [
		{ label: 'This trigger, version 1 (duplicate store full)', path: triggerPath('trig1'), key: 'trig1', headers: {} },
		{ label: 'n8n Webhook node, Header Auth', path: hookPath('hookauth'), key: 'hookauth', headers: { [HEADER_AUTH.header]: HEADER_AUTH.value } },
		{ label: 'n8n Webhook node, answering once the run exists (the trigger’s mode)', path: hookPath('hooksame'), key: 'hooksame', headers: {} },
		{ label: 'This trigger, version 2, Allow Duplicate Deliveries on', path: triggerPath('trignd'), key: 'trignd', headers: {} },
		{ label: 'This trigger, version 2 (duplicate store full)', path: triggerPath('trig'), key: 'trig', headers: {} },
		{ label: 'n8n Webhook node (no verification)', path: hookPath('hook'), key: 'hook', headers: {} },
	].map((t) => ({ ...t, workflowId: idOf(t.key) }));
	const hook = targets.length - 1;
	const hookAuth = targets.findIndex((t) => t.key === 'hookauth');
	const hookSame = targets.findIndex((t) => t.key === 'hooksame');
	const isOk = (status: number, body: string) => status === 200 && !body.includes('ignored');
	const request = (t: (typeof targets)[number], run: string) => (n: number) => signedLoadRequest(secret, t.path, eventBody(run, n), t.headers);
	// Warm-up at full load, three passes: n8n's CPU per event keeps falling for minutes after a start
	// (from about 16 to 9 ms over four minutes on the EPYC, read from /proc). Also checks every target accepts.
	for (let pass = 1; pass <= WARM_UP_PASSES; pass++) {
		for (const t of targets) {
			const r = await runLoad({ origin: n8n.baseUrl, concurrency: CONCURRENCY, durationMs: 5000, makeRequest: request(t, `warm${pass}-${what}-${t.key}-${Date.now()}`), isOk });
			if (r.ok === 0) throw new Error(`${t.label} accepted nothing: ${JSON.stringify(r.statuses)}`);
			await settle(ctx.n8nPids(), { maxMs: 60_000 });
		}
	}
	const storeBefore = await storeSize(ctx, workflows);
	const results = targets.map(() => [] as LoadResult[]);
	const executed = targets.map(() => [] as number[]);
	const isolates = targets.map(() => [] as number[]);
	for (let round = 1; round <= rounds; round++) {
		const order = round % 2 ? [...targets.keys()] : [...targets.keys()].reverse();
		for (const i of order) {
			const t = targets[i];
			await settle(ctx.n8nPids(), { maxMs: 60_000 });
			const run = `${what}-r${round}-${t.key}-${Date.now()}`;
			const idBefore = await latestExecutionId(n8n, t.workflowId);
			const isolatesBefore = isolatesCreated(ctx.isolateDir);
			const loadStart = Date.now();
			const r = await runLoad({
				origin: n8n.baseUrl,
				concurrency: CONCURRENCY,
				durationMs: seconds * 1000,
				warmupMs: 500,
				makeRequest: request(t, run),
				isOk,
			});
			results[i].push(r);
			await settle(ctx.n8nPids(), { maxMs: 120_000 });
			const done = await executionsAfter(n8n, t.workflowId, idBefore);
			const perSecond = done.count / ((done.lastStoppedAt - loadStart) / 1000);
			executed[i].push(perSecond);
			isolates[i].push((isolatesCreated(ctx.isolateDir) - isolatesBefore) / done.count);
			ctx.log(
				`receiving (${what}) round ${round}: ${t.label}: ${fmt(r.perSecond, 0)}/s answered, ${done.count} executions at ${fmt(perSecond, 1)}/s, ` +
					`p50 ${fmt(r.p50Ms)} ms, p99 ${fmt(r.p99Ms)} ms, isolates per event ${fmt(isolates[i][isolates[i].length - 1], 2)}, statuses ${JSON.stringify(r.statuses)}`,
			);
		}
	}
	await settle(ctx.n8nPids(), { maxMs: 60_000 });
	ctx.log(`receiving (${what}): the trigger's duplicate store held ${storeBefore} bodies before the rounds, ${await storeSize(ctx, workflows)} after`);
	const perRound = (values: number[], all: number[][], against = hook) => median(values.map((v, round) => v / all[against][round]));
	const answered = results.map((rs) => rs.map((r) => r.perSecond));
	return targets.map((t, i) => ({
		key: t.key,
		label: t.label,
		isolatesPerEvent: median(isolates[i]),
		perSecond: median(answered[i]),
		executedPerSecond: median(executed[i]),
		perSecondRatio: perRound(answered[i], answered),
		executedRatio: perRound(executed[i], executed),
		perSecondRatioAuth: perRound(answered[i], answered, hookAuth),
		executedRatioAuth: perRound(executed[i], executed, hookAuth),
		perSecondRatioSame: perRound(answered[i], answered, hookSame),
		executedRatioSame: perRound(executed[i], executed, hookSame),
		p50Ms: median(results[i].map((r) => r.p50Ms)),
		p99Ms: median(results[i].map((r) => r.p99Ms)),
		failed: results[i].reduce((sum, r) => sum + r.failed, 0),
	}));
}

/** The receiver the target applies to: the trigger as users get it (version 2, store on). */
const TARGET_KEY = 'trig';

const WARM_UP_PASSES = 3;

function rowsOf(results: TargetResult[], withTarget: boolean): string[][] {
	const hook = results[results.length - 1];
	return results.map((r) => [
		r.label,
		fmt(r.isolatesPerEvent, 2),
		fmt(r.perSecond, 0),
		ratio(r.perSecondRatio),
		fmt(r.executedPerSecond, 0),
		ratio(r.executedRatio),
		`${ratio(r.perSecondRatioAuth)} / ${ratio(r.executedRatioAuth)}`,
		`${ratio(r.perSecondRatioSame)} / ${ratio(r.executedRatioSame)}`,
		fmt(r.p50Ms, 1),
		fmt(r.p99Ms, 1),
		ratio(r.p50Ms / hook.p50Ms),
		String(r.failed),
		withTarget && r.key === TARGET_KEY
			? `${verdict(Math.min(r.perSecondRatio, r.executedRatio) >= 1)} (both ≥ 1.0× Webhook node)`
			: '',
	]);
}

const HEADER = ['Receiver', 'Isolates/event', 'Accepted/s', 'vs Webhook', 'Executed/s', 'vs Webhook', 'vs Header Auth', 'vs same mode', 'p50 ms', 'p99 ms', 'p50 vs Webhook', 'Failed', 'Target'];

/**
 * The receivers under one engine setting (n8n restarted with it and the isolate counter before this).
 * The target (≥ 1.0× the Webhook node, accepted and executed) applies to the setting the README recommends.
 */
export async function benchReceivingUnder(
	ctx: BenchContext,
	workflows: Workflow[],
	seconds: number,
	setting: EngineSetting,
	tableId: string,
): Promise<string> {
	// The setting with the target gets twice the rounds: its verdict should not rest on a noisy round.
	const rounds = setting === RECOMMENDED_SETTING ? ctx.rounds * 2 : ctx.rounds;
	const results = await measure(ctx, workflows, seconds, rounds, setting.key);
	return table(
		`${tableId}. Receiving under ${setting.title}: signed events accepted by n8n over ${seconds} s, ${CONCURRENCY} connections, each request signed afresh with a unique body (median of ${rounds} rounds)`,
		HEADER,
		rowsOf(results, setting === RECOMMENDED_SETTING),
		[
			'Isolates/event: expression isolates n8n created per execution started, counted exactly by a preload around',
			'isolated-vm (each costs tens of ms of CPU). Accepted/s: answered 200 per second during the load. Executed/s:',
			'executions the events started, per second from the start of the load until the last one stopped (n8n answers',
			'both receivers once it holds the run). vs Webhook: the median over rounds of the ratio to the Webhook node in the',
			'same round; the order alternates between rounds, and the trigger with the store runs next to the Webhook node.',
			'vs Header Auth: the same two ratios (accepted / executed) against the Webhook node with Header Auth, n8n’s own',
			'check of a secret kept in a credential. For every run of a workflow whose node has a credential, n8n checks',
			'access to it with database queries (CredentialsPermissionChecker, DynamicCredentialsContextHook): both pay it.',
			'vs same mode: against the Webhook node answering in the trigger’s response mode (hostedChat: once the run',
			'exists). "vs Webhook" compares with "Immediately", which before n8n 2.8 answers before the run exists.',
			'p50/p99: from sending the request until n8n’s answer, as the load generator (undici Pool, same machine) saw it.',
			'With the duplicate store on, n8n reads the workflow’s static data (24 KB when full) twice per event; the',
			'trigger hands it back with the requests it answers itself, and reads its credential at most once a second under load.',
		],
	);
}

/** The trigger's signature check and duplicate store in isolation (this process). */
export async function benchVerification(secret: string, tableId: string): Promise<string> {
	const iso = await isolation(secret);
	const us = (sorted: Float64Array, p: number) => fmt(percentileSorted(sorted, p), 1);
	const verifyP99Ms = percentileSorted(iso.smallTimes, 99) / 1000;
	const isoRows = [
		[`verifySignature, ${iso.smallSize} B event`, us(iso.smallTimes, 50), us(iso.smallTimes, 99), us(iso.smallTimes, 100), `${verdict(verifyP99Ms <= 1)} (p99 ≤ 1 ms)`],
		['verifySignature, 64 KB body', us(iso.largeTimes, 50), us(iso.largeTimes, 99), us(iso.largeTimes, 100), ''],
		[`duplicate store full (${MAX_REMEMBERED_DELIVERIES} keys, ${fmt(iso.storeJson / 1024, 0)} KB as JSON): claim one`, us(iso.storeTimes, 50), us(iso.storeTimes, 99), us(iso.storeTimes, 100), ''],
	];
	return table(`${tableId}. Verification in isolation (per call, this process)`, ['Check', 'p50 µs', 'p99 µs', 'max µs', 'Target'], isoRows);
}
