/**
 * 8. Sharing: one event, three workflows selecting every message.received, three ways on the same n8n:
 * (a) the service delivers it to three trigger URLs (the ideal), (b) one delivery to the sharing trigger,
 * which starts its own run and hands the event to two triggers that receive through it (this package),
 * (c) one trigger whose workflow calls three sub-workflows with n8n's Execute Workflow node, not waiting for
 * them (what users build today). Rounds in alternating order; runs per second under load, and ms from the
 * service's POST to the third run existing (n8n's createdAt), one event at a time.
 */
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { request } from 'undici';
import { sharesWith } from '../nodes/BusinessMessagingTrigger/sharing/scope';
import { n8nId } from '../tools/n8n/n8n';
import { waitFor } from '../tools/n8n/proc';
import type { EngineSetting } from '../tools/n8n/settings';
import { chain, node, type WfNode, type Workflow, webhookIdFor } from '../tools/n8n/workflow';
import { CREDENTIAL_TYPE, type CredentialRef, TRIGGER_TYPE, triggerProductionPath } from '../tools/n8n/workflows';
import type { BenchContext } from './lib/context';
import { isolatesCreated, requestsServed } from './lib/isolates';
import { type LoadRequest, runLoad } from './lib/loadgen';
import { finishedExecutionsAfter, latestExecutionId } from './lib/n8n-runs';
import { cpuSeconds, settle } from './lib/procfs';
import { fmt, median, percentileSorted, ratio, table, verdict } from './lib/stats';
import { eventBody, signedLoadRequest } from './receiving';

/**
 * Events in flight at once under load (BENCH_SHARING_CONCURRENCY; each one delivery in (b) and (c), three in (a)):
 * enough to keep n8n busy, few enough that under n8n's defaults on a loaded machine n8n still answers each
 * hand-over within the sharing trigger's 30 s. With 16 (48 webhook requests at once, about two expression isolates
 * built for each) on a machine at load 14, n8n took longer: every hand-over timed out, the sharing trigger
 * answered 503 as it should, and the runs came later (n8n's log, 2026-11-28).
 */
const CONCURRENCY = Number(process.env.BENCH_SHARING_CONCURRENCY) || 4;
const WARM_UP_PASSES = 2;
const EVENTS = ['message.received'];

/** Where n8n, restarted for this benchmark with the request counter (lib/isolates.ts requestCounterEnv), counts its requests. */
export const sharingRequestDir = (ctx: BenchContext) => join(ctx.dir, 'requests');

const idOf = (key: string) => n8nId(`benchShare${key}`);
const pathOf = (key: string) => triggerProductionPath(webhookIdFor(`bench-share-${key}`));

/** Imported inactive, activated by the benchmark in this order (only one trigger per n8n may share; n8n publishes a caller only once its sub-workflows are). */
export function sharingBenchWorkflows(credential: CredentialRef): Workflow[] {
	const workflow = (key: string, name: string, nodes: WfNode[]) => chain(`benchShare${key}`, `Bench: sharing, ${name}`, nodes);
	const trigger = (key: string, parameters: Record<string, unknown> = {}) =>
		node('Trigger', TRIGGER_TYPE, 2, { events: EVENTS, ...parameters, options: {} }, { credentials: { [CREDENTIAL_TYPE]: credential }, webhookId: webhookIdFor(`bench-share-${key}`) });
	const call = (i: number) =>
		node(`Execute Workflow ${i}`, 'n8n-nodes-base.executeWorkflow', 1.3, {
			source: 'database',
			workflowId: { __rl: true, mode: 'id', value: idOf(`c${i}`) },
			mode: 'once',
			options: { waitForSubWorkflow: false },
		});
	return [
		...[1, 2, 3].map((i) => workflow(`a${i}`, `(a) trigger ${i} of 3`, [trigger(`a${i}`)])),
		workflow('b0', '(b) sharing trigger', [trigger('b0', { resumeWaitingRuns: true })]),
		...[1, 2].map((i) => workflow(`b${i}`, `(b) receiving through it ${i}`, [trigger(`b${i}`, { receiveFrom: 'sharingTrigger' })])),
		...[1, 2, 3].map((i) => workflow(`c${i}`, `(c) sub-workflow ${i}`, [node('When Executed by Another Workflow', 'n8n-nodes-base.executeWorkflowTrigger', 1.1, { inputSource: 'passthrough' })])),
		workflow('c0', '(c) trigger → Execute Workflow ×3', [trigger('c0'), call(1), call(2), call(3)]),
	];
}

interface Way {
	key: 'a' | 'b' | 'c';
	label: string;
	/** Where the service delivers each event. */
	urls: string[];
	/** The three workflows whose runs count. */
	counted: string[];
}

const WAYS: Way[] = [
	{ key: 'a', label: '(a) the service delivers to 3 trigger URLs (ideal)', urls: ['a1', 'a2', 'a3'], counted: ['a1', 'a2', 'a3'] },
	{ key: 'b', label: '(b) one delivery, sharing trigger + 2 receiving through it', urls: ['b0'], counted: ['b0', 'b1', 'b2'] },
	{ key: 'c', label: '(c) one trigger → Execute Workflow into 3, not waiting', urls: ['c0'], counted: ['c1', 'c2', 'c3'] },
];

const isOk = (status: number, body: string) => status === 200 && !body.includes('ignored');

function deliveries(ctx: BenchContext, way: Way, body: string): LoadRequest[] {
	return way.urls.map((key) => signedLoadRequest(ctx.stack.sandbox.credentials.webhookSecret, pathOf(key), body));
}

const latestIds = async (ctx: BenchContext, way: Way) => await Promise.all(way.counted.map((key) => latestExecutionId(ctx.stack.n8n, idOf(key))));

/** The runs of each counted workflow since `before`, once each has `atLeast` and all finished ((c)'s come after the answer). */
const runsAfter = async (ctx: BenchContext, way: Way, before: number[], atLeast: number) =>
	await Promise.all(way.counted.map((key, i) => finishedExecutionsAfter(ctx.stack.n8n, idOf(key), before[i], { atLeast, timeoutMs: 300_000 })));

interface LoadRound {
	runsPerSecond: number;
	runsPerEvent: number;
	failed: number;
	cpuMsPerEvent: number;
	coresBusy: number;
	requestsPerEvent: number;
	isolatesPerEvent: number;
}

/** `seconds` of load, CONCURRENCY events in flight; the runs they started, per second until the last stopped. */
async function underLoad(ctx: BenchContext, way: Way, seconds: number, run: string): Promise<LoadRound> {
	const before = await latestIds(ctx, way);
	const pids = ctx.n8nPids();
	const cpu = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
	const [cpu0, isolates0, requests0] = [cpu(), isolatesCreated(ctx.isolateDir), requestsServed(sharingRequestDir(ctx))];
	const start = Date.now();
	const r = await runLoad({
		origin: ctx.stack.n8n.baseUrl,
		concurrency: CONCURRENCY,
		connections: CONCURRENCY * way.urls.length,
		durationMs: seconds * 1000,
		makeRequest: (n) => deliveries(ctx, way, eventBody(run, n)),
		isOk,
	});
	await settle(ctx.n8nPids(), { maxMs: 120_000 });
	const [cpuUsed, isolates, requests] = [cpu() - cpu0, isolatesCreated(ctx.isolateDir) - isolates0, requestsServed(sharingRequestDir(ctx)) - requests0];
	const lists = await runsAfter(ctx, way, before, r.ok);
	const runs = lists.reduce((sum, list) => sum + list.length, 0);
	const busySeconds = (Math.max(...lists.flat().map((e) => Date.parse(e.stoppedAt ?? ''))) - start) / 1000;
	if (r.ok === 0 || runs < 3 * r.ok) throw new Error(`${way.label}: ${runs} runs for ${r.ok} events answered 200 (${JSON.stringify(r.statuses)})`);
	return {
		runsPerSecond: runs / busySeconds,
		runsPerEvent: runs / r.sent,
		failed: r.failed,
		cpuMsPerEvent: (cpuUsed * 1000) / r.sent,
		coresBusy: cpuUsed / busySeconds,
		requestsPerEvent: requests / r.sent,
		isolatesPerEvent: isolates / r.sent,
	};
}

/**
 * `samples` events one at a time, each once n8n is quiet and the previous event's three runs exist: ms from the
 * service's POST to the third run's createdAt, and to the service's last answer.
 */
async function oneAtATime(ctx: BenchContext, way: Way, samples: number, run: string): Promise<{ thirdRunMs: number[]; spreadMs: number[]; answeredMs: number[] }> {
	const { n8n } = ctx.stack;
	let last = await latestIds(ctx, way);
	const events: Array<{ t0: number; runIds: number[] }> = [];
	const answeredMs: number[] = [];
	for (let n = 0; n < samples; n++) {
		await settle(ctx.n8nPids(), { maxMs: 10_000 });
		const requests = deliveries(ctx, way, eventBody(run, n));
		const t0 = Date.now();
		const answers = await Promise.all(
			requests.map(async (r) => {
				const res = await request(`${n8n.baseUrl}${r.path}`, { method: 'POST', headers: r.headers, body: r.body });
				return { status: res.statusCode, body: await res.body.text() };
			}),
		);
		answeredMs.push(Date.now() - t0);
		const bad = answers.find((a) => !isOk(a.status, a.body));
		if (bad) throw new Error(`${way.label}: event ${n} answered ${bad.status} ${bad.body.slice(0, 200)}`);
		const before = last;
		last = await waitFor(`the three runs of event ${n} (${way.label})`, async () => {
			const now = await latestIds(ctx, way);
			return now.every((id, i) => id > before[i]) ? now : undefined;
		}, 60_000, 50);
		events.push({ t0, runIds: last });
	}
	const createdAt = async (id: number) => Date.parse((await n8n.api<{ createdAt: string }>('GET', `/executions/${id}`)).body.createdAt);
	const runs = await Promise.all(
		events.map(async ({ t0, runIds }) => {
			const created = await Promise.all(runIds.map(createdAt));
			return { t0, first: Math.min(...created), third: Math.max(...created) };
		}),
	);
	const sorted = (values: number[]) => values.sort((a, b) => a - b);
	return { thirdRunMs: sorted(runs.map((r) => r.third - r.t0)), spreadMs: sorted(runs.map((r) => r.third - r.first)), answeredMs: sorted(answeredMs) };
}

interface Round extends LoadRound {
	p50: number;
	p95: number;
	/** From the first of an event's three runs to the third. */
	spreadP50: number;
	answeredP50: number;
}

/**
 * The three ways under one engine setting (n8n restarted with it, the isolate and request counters, before
 * this). `others`: the workflows the other benchmarks activated; one that shares is off meanwhile.
 */
export async function benchSharing(
	ctx: BenchContext,
	mine: Workflow[],
	others: Workflow[],
	o: { seconds: number; samples: number; rounds: number; setting: EngineSetting; goal: boolean; id: string },
): Promise<string> {
	const { n8n } = ctx.stack;
	const sharers = others.filter((w) => w.nodes.some((n) => n.type === TRIGGER_TYPE && sharesWith(n.parameters as IDataObject)));
	for (const w of sharers) await n8n.deactivate(w.id);
	// The sharing trigger before the triggers that receive through it (they register at once), sub-workflows before their caller.
	for (const w of mine) await n8n.activate(w.id);
	try {
		const stamp = Date.now();
		for (let pass = 1; pass <= WARM_UP_PASSES; pass++) {
			for (const way of WAYS) {
				const r = await underLoad(ctx, way, 5, `share-warm${pass}-${way.key}-${stamp}`);
				ctx.log(`${o.id}. warm-up ${pass}: ${way.label}: ${fmt(r.runsPerSecond, 1)} runs/s, ${fmt(r.runsPerEvent, 2)} runs/event`);
			}
		}
		const rounds: Record<Way['key'], Round[]> = { a: [], b: [], c: [] };
		for (let round = 1; round <= o.rounds; round++) {
			for (const way of round % 2 ? WAYS : [...WAYS].reverse()) {
				const run = `share-${o.id}-r${round}-${way.key}-${Date.now()}`;
				await settle(ctx.n8nPids(), { maxMs: 60_000 });
				const load = await underLoad(ctx, way, o.seconds, run);
				const { thirdRunMs, spreadMs, answeredMs } = await oneAtATime(ctx, way, o.samples, `${run}-one`);
				const p50 = (sorted: number[]) => percentileSorted(sorted, 50);
				const r = { ...load, p50: p50(thirdRunMs), p95: percentileSorted(thirdRunMs, 95), spreadP50: p50(spreadMs), answeredP50: p50(answeredMs) };
				rounds[way.key].push(r);
				ctx.log(
					`${o.id}. round ${round}: ${way.label}: ${fmt(r.runsPerSecond, 1)} runs/s (${fmt(r.runsPerEvent, 2)}/event, ${r.failed} failed), ` +
						`third run p50 ${fmt(r.p50, 0)} ms p95 ${fmt(r.p95, 0)} ms, first to third p50 ${fmt(r.spreadP50, 0)} ms, answered p50 ${fmt(r.answeredP50, 0)} ms, ` +
						`CPU ${fmt(r.cpuMsPerEvent, 1)} ms/event (${fmt(r.coresBusy, 2)} cores), ${fmt(r.requestsPerEvent, 2)} requests/event, ${fmt(r.isolatesPerEvent, 2)} isolates/event`,
				);
			}
		}
		return report(rounds, o);
	} finally {
		for (const w of [...mine].reverse()) await n8n.deactivate(w.id);
		for (const w of sharers) await n8n.activate(w.id);
	}
}

function report(rounds: Record<Way['key'], Round[]>, o: { seconds: number; samples: number; rounds: number; setting: EngineSetting; goal: boolean; id: string }): string {
	const med = (key: Way['key'], field: keyof Round) => median(rounds[key].map((r) => r[field]));
	/** The median over rounds of `key`'s figure over `against`'s in the same round. */
	const vs = (key: Way['key'], against: Way['key'], field: keyof Round) => median(rounds[key].map((r, i) => r[field] / rounds[against][i][field]));
	const rows = WAYS.map(({ key, label }) => [
		label,
		fmt(med(key, 'runsPerSecond'), 1),
		ratio(vs(key, 'a', 'runsPerSecond')),
		ratio(vs(key, 'c', 'runsPerSecond')),
		fmt(med(key, 'runsPerEvent'), 2),
		String(rounds[key].reduce((sum, r) => sum + r.failed, 0)),
		fmt(med(key, 'p50'), 0),
		fmt(med(key, 'p95'), 0),
		ratio(vs(key, 'a', 'p50')),
		fmt(med(key, 'spreadP50'), 0),
		fmt(med(key, 'answeredP50'), 0),
		fmt(med(key, 'cpuMsPerEvent'), 1),
		fmt(med(key, 'coresBusy'), 2),
		fmt(med(key, 'requestsPerEvent'), 2),
		fmt(med(key, 'isolatesPerEvent'), 2),
	]);
	const goals = [
		{ what: '(b) runs/s vs (a)', value: vs('b', 'a', 'runsPerSecond'), ok: (v: number) => v >= 0.8, goal: '≥ 0.80×' },
		{ what: '(b) runs/s vs (c)', value: vs('b', 'c', 'runsPerSecond'), ok: (v: number) => v >= 1.0, goal: '≥ 1.00×' },
		{ what: '(b) p50 POST → third run vs (a)', value: vs('b', 'a', 'p50'), ok: (v: number) => v <= 1.5, goal: '≤ 1.50×' },
	];
	const goalLines = goals.map((g) => `${g.what}: ${ratio(g.value)} (goal ${g.goal}): ${o.goal ? verdict(g.ok(g.value)) : `${verdict(g.ok(g.value))} (the goal is stated for the recommended setting)`}`);
	return table(
		`${o.id}. One event, three workflows, under ${o.setting.title}: ${CONCURRENCY} events in flight for ${o.seconds} s, then ${o.samples} events one at a time (median of ${o.rounds} rounds, alternating order)`,
		['Way', 'Runs/s', 'vs (a)', 'vs (c)', 'Runs/event', 'Failed', 'Third run p50 ms', 'p95 ms', 'p50 vs (a)', 'First→third p50 ms', 'Answered p50 ms', 'n8n CPU ms/event', 'Cores busy', 'Requests/event', 'Isolates/event'],
		rows,
		[
			...goalLines,
			'',
			'Runs/s: runs of the three workflows ((c): the sub-workflows, not the calling one) the load started, per second from',
			'its start until the last run stopped; vs (a), vs (c): the median over rounds of the ratio in the same round.',
			'Runs/event: runs per event sent (3.00: every event ran in all three). Failed: events not answered 200.',
			'Third run: from the service’s POST ((a): its three POSTs at once) to the createdAt of the last of the event’s three',
			'runs (n8n’s executions), events one at a time with n8n quiet before each. First→third: from the createdAt of the first',
			'of the three runs to the third. Answered: until the service had every answer ((c) answers once the calling run exists,',
			'before the sub-workflows’ runs do).',
			'n8n CPU ms/event: main process and task runner (/proc), under load. Cores busy: that CPU over the same time as Runs/s.',
			'Requests/event: HTTP requests n8n’s servers received per event, counted by a preload (lib/request-counter.cjs): the',
			'service’s, and in (b) the sharing trigger’s hand-over to each receiving trigger. Isolates/event: expression isolates',
			'n8n created per event (lib/isolate-counter.cjs).',
		],
	);
}
