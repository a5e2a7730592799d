/**
 * 6. Queue mode: n8n main + two `n8n webhook` processes + one worker on PostgreSQL and Redis (the queue
 * suite's stack). A burst of genuine events plus duplicate copies as the service sends them, spread over
 * both webhook processes: events lost, extra runs without and with the cross-process guard
 * (examples/queue-mode-deduplication.json) and with n8n's Remove Duplicates node, throughput beside n8n's
 * Webhook node in the same deployment, and one webhook process stopped with SIGTERM mid-burst.
 * npm run bench -- queue   (BENCH_QUEUE_EVENTS=1000 genuine events per scenario)
 */
import { join } from 'node:path';
import { startQueueStack, type QueueStack } from '../tools/n8n/queue-stack';
import { sleep, waitFor } from '../tools/n8n/proc';
import type { Workflow } from '../tools/n8n/workflow';
import { webhookIdFor } from '../tools/n8n/workflow';
import { TRIGGER_WEBHOOK_PATH } from '../tools/n8n/workflows';
import { type Answer, type Delivery, deliver, messageEvent, nowSeconds } from '../test/queue/deliver';
import { bareTriggerWorkflow, dedupExampleWorkflow, FIRST_DELIVERY_NODE, REMOVE_DUPLICATES_NODE, removeDuplicatesWorkflow, TRIGGER_NODE } from '../test/queue/workflows';
import { type Execution, finishedExecutionsAfter, latestExecutionId } from './lib/n8n-runs';
import { fmt, ratio, table } from './lib/stats';
import type { EngineSetting } from '../tools/n8n/settings';
import { webhookNodeWorkflow } from './workflows';

/** Connections kept busy by the sender, over both webhook processes together. */
export const QUEUE_CONCURRENCY = 16;

interface Target {
	label: string;
	workflow: Workflow;
	/** The production path on every webhook process. */
	path: string;
	/** Did this run get past the workflow's duplicate guard (the steps after it ran)? */
	passed: (e: Execution) => boolean;
	/** The event's message id, as the run received it. */
	messageId: (e: Execution) => string | undefined;
}

const items = (e: Execution, node: string) => e.data?.resultData.runData[node]?.[0]?.data?.main?.[0] ?? [];
type Envelope = { data?: { message_id?: string } } | undefined;

function targets(workflows: Workflow[]): Record<'bare' | 'guard' | 'removeDup' | 'hook', Target> {
	const find = (prefix: string) => workflows.find((w) => w.name.startsWith(prefix))!;
	const triggerTarget = (label: string, workflow: Workflow, passed: Target['passed']): Target => ({
		label,
		workflow,
		path: `/webhook/${workflow.nodes.find((n) => n.name === TRIGGER_NODE)!.webhookId}/${TRIGGER_WEBHOOK_PATH}`,
		passed,
		messageId: (e) => (items(e, TRIGGER_NODE)[0]?.json as Envelope)?.data?.message_id,
	});
	const hook = find('Bench: receive (qhook)');
	return {
		bare: triggerTarget('Trigger alone (its own duplicate store on)', find('Queue: trigger alone'), () => true),
		guard: triggerTarget('Trigger + Redis guard (examples/queue-mode-deduplication.json)', find('Business Messaging: one run per event'), (e) => items(e, FIRST_DELIVERY_NODE).length > 0),
		removeDup: triggerTarget('Trigger + n8n Remove Duplicates node (deliveryKey)', find('Queue: Remove Duplicates node'), (e) => items(e, REMOVE_DUPLICATES_NODE).length > 0),
		hook: {
			label: 'n8n Webhook node (no verification, no duplicate guard)',
			workflow: hook,
			path: `/webhook/${String(hook.nodes[0].parameters.path)}`,
			passed: () => true,
			messageId: (e) => ((items(e, 'Webhook')[0]?.json as { body?: Envelope } | undefined)?.body as Envelope)?.data?.message_id,
		},
	};
}

/** Runs `jobs` with `concurrency` in flight; each job's deliveries go out together. */
async function sendJobs(secret: string, jobs: Delivery[][], concurrency: number, onAnswered?: (done: number) => void): Promise<Answer[][]> {
	const answers: Answer[][] = new Array(jobs.length);
	let next = 0;
	let done = 0;
	const worker = async () => {
		while (next < jobs.length) {
			const i = next++;
			answers[i] = await Promise.all(jobs[i].map((d) => deliver(secret, d, 300_000)));
			onAnswered?.(++done);
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	return answers;
}

interface ScenarioResult {
	label: string;
	events: number;
	copies: number;
	seconds: number;
	acceptedPerSecond: number;
	executedPerSecond: number;
	firstAnswers: Record<string, number>;
	retried: number;
	lost: number;
	extraRuns: number;
	failedRuns: number;
	/** Events answered 200 at least once whose run never came. */
	answered200NotRun: number;
}

const statusKey = (a: Answer) => (a.status ? String(a.status) : (a.error ?? 'error'));

/**
 * N genuine events, event i to webhook process i % 2; the first N/10 with a copy sent to the other process
 * at the same moment (identical signature for even i, fresh for odd i); after the burst, events N/10..N/5
 * again with fresh signatures (the service's retries). Non-200 answers are retried (fresh signature, the
 * process still up) as the service would. `stopMidway` sends SIGTERM to the first webhook process once 30%
 * of the events are answered, and keeps sending fresh events until that process has exited.
 */
async function scenario(stack: QueueStack, target: Target, events: number, options: { stopMidway?: boolean; copies?: boolean } = {}): Promise<ScenarioResult> {
	const { stopMidway = false, copies: withCopies = true } = options;
	const { n8n, sandbox } = stack;
	const secret = sandbox.credentials.webhookSecret;
	let up = stack.webhooks.map(() => true);
	const urls = stack.webhooks.map((w) => `${w.baseUrl}${target.path}`);
	const run = `${Date.now()}`;
	const bodies = Array.from({ length: events }, (_, i) => messageEvent(`${run}.${i}`, `+1555${String(3000000 + i)}`));
	const sameMoment = withCopies ? Math.floor(events / 10) : 0;
	const later = withCopies ? Math.floor(events / 5) - sameMoment : 0;
	const ts = nowSeconds();
	const jobs: Delivery[][] = bodies.map((body, i) => {
		const job: Delivery[] = [{ url: urls[i % 2], body, timestamp: ts }];
		if (i < sameMoment) job.push({ url: urls[(i + 1) % 2], body, timestamp: i % 2 === 0 ? ts : ts - 1 });
		return job;
	});
	const before = await latestExecutionId(n8n, target.workflow.id);
	const t0 = Date.now();
	let stopped: Promise<number | null> | undefined;
	let exited = false;
	const answers = await sendJobs(secret, jobs, QUEUE_CONCURRENCY, (done) => {
		if (stopMidway && !stopped && done >= jobs.length * 0.3) {
			process.kill(stack.webhooks[0].pid!, 'SIGTERM');
			up = [false, true];
			const exit = stack.webhooks[0].exited!;
			stopped = exit;
			void exit.then(() => (exited = true));
		}
	});
	// More events until the stopped process has gone, so that the moment it exits falls inside the burst.
	while (stopped && !exited) {
		const more = Array.from({ length: QUEUE_CONCURRENCY * 4 }, (_, k) => bodies.length + k);
		for (const i of more) bodies.push(messageEvent(`${run}.${i}`, `+1555${String(3000000 + i)}`));
		answers.push(...(await sendJobs(secret, more.map((i) => [{ url: urls[i % 2], body: bodies[i], timestamp: nowSeconds() }]), QUEUE_CONCURRENCY)));
	}
	const seconds = (Date.now() - t0) / 1000;
	const firstAnswers: Record<string, number> = {};
	const got200 = new Set<number>();
	const retry: Array<{ event: number }> = [];
	answers.forEach((job, i) =>
		job.forEach((a) => {
			firstAnswers[statusKey(a)] = (firstAnswers[statusKey(a)] ?? 0) + 1;
			if (a.status === 200) got200.add(i);
			else retry.push({ event: i });
		}),
	);
	if (stopped) await stopped;
	// The service's retries of what was not answered 200, to a process that is up (as a load balancer would).
	const alive = urls.filter((_, i) => up[i]);
	let retried = 0;
	for (let attempt = 0; attempt < 5 && retry.length; attempt++) {
		const pending = retry.splice(0);
		const again = await sendJobs(secret, pending.map((r, k) => [{ url: alive[k % alive.length], body: bodies[r.event], timestamp: nowSeconds() }]), QUEUE_CONCURRENCY);
		retried += pending.length;
		again.forEach(([a], k) => (a.status === 200 ? got200.add(pending[k].event) : retry.push(pending[k])));
	}
	const laterJobs = Array.from({ length: later }, (_, k) => {
		const i = sameMoment + k;
		return [{ url: alive[(i + 1) % alive.length], body: bodies[i], timestamp: nowSeconds() }];
	});
	await sleep(1000);
	await sendJobs(secret, laterJobs, QUEUE_CONCURRENCY);
	const finished = { includeData: true, timeoutMs: 20 * 60_000 };
	const executions = await finishedExecutionsAfter(n8n, target.workflow.id, before, { ...finished, atLeast: 1 });
	await sleep(3000); // late ones
	const all = await finishedExecutionsAfter(n8n, target.workflow.id, before, { ...finished, atLeast: executions.length });
	const runsPerEvent = new Map<string, number>();
	let failedRuns = 0;
	let firstStart = Infinity;
	let lastStop = 0;
	for (const e of all) {
		if (e.status !== 'success') failedRuns++;
		firstStart = Math.min(firstStart, Date.parse(e.startedAt));
		lastStop = Math.max(lastStop, Date.parse(e.stoppedAt ?? '') || 0);
		if (!target.passed(e)) continue;
		const id = target.messageId(e) ?? '?';
		runsPerEvent.set(id, (runsPerEvent.get(id) ?? 0) + 1);
	}
	let lost = 0;
	let extraRuns = 0;
	let answered200NotRun = 0;
	bodies.forEach((body, i) => {
		const id = (JSON.parse(body) as { data: { message_id: string } }).data.message_id;
		const n = runsPerEvent.get(id) ?? 0;
		if (n === 0) {
			lost++;
			if (got200.has(i)) answered200NotRun++;
		}
		extraRuns += Math.max(0, n - 1);
	});
	const copies = jobs.reduce((sum, j) => sum + j.length, 0) - jobs.length + later;
	const okInBurst = answers.flat().filter((a) => a.status === 200).length;
	return {
		label: target.label,
		events: bodies.length,
		copies,
		seconds,
		acceptedPerSecond: okInBurst / seconds,
		executedPerSecond: all.length / ((lastStop - Math.min(firstStart, t0)) / 1000),
		firstAnswers,
		retried,
		lost,
		extraRuns,
		failedRuns,
		answered200NotRun,
	};
}

const OWNER = { email: 'owner@bench-queue.example.com', password: 'Bench-queue-Passw0rd!', firstName: 'Bench', lastName: 'Queue' };

export async function benchQueue(dir: string, log: (line: string) => void, events: number, setting: EngineSetting): Promise<string> {
	const hooks = { bare: webhookIdFor('bq-bare'), guard: webhookIdFor('bq-guard'), removeDup: webhookIdFor('bq-removedup') };
	const stack = await startQueueStack({
		dir: join(dir, 'queue'),
		owner: OWNER,
		log,
		env: setting.env,
		workflows: ({ credential }) => [
			bareTriggerWorkflow('bench', credential, hooks.bare),
			dedupExampleWorkflow('bench', credential, hooks.guard),
			removeDuplicatesWorkflow('bench', credential, hooks.removeDup),
			webhookNodeWorkflow('qhook'),
		],
		activate: (workflows) => workflows.slice(0, 4).map((w) => w.id),
	});
	try {
		const t = targets(stack.workflows);
		// Each process learns of the activation on its own: wait until both serve every target (probes start nothing
		// but the Webhook node's, which runs before the measured ids).
		for (const target of Object.values(t)) {
			for (const w of stack.webhooks) {
				await waitFor(`${target.label} on ${w.baseUrl}`, async () => ((await fetch(`${w.baseUrl}${target.path}`, { method: 'POST', body: '{}' })).status !== 404 ? true : undefined), 60_000, 500);
			}
		}
		const measured: Array<{ result: ScenarioResult; stopped: boolean }> = [];
		const only = process.env.BENCH_QUEUE_ROWS ? new RegExp(process.env.BENCH_QUEUE_ROWS, 'i') : undefined;
		const measure = async (target: Target, options: { stopMidway?: boolean; copies?: boolean } = {}) => {
			const label = options.stopMidway ? `${target.label}, webhook-1 stopped (SIGTERM) at 30%` : target.label;
			if (only && !only.test(label)) return undefined;
			log(`queue: ${label}, ${events} events`);
			const result = await scenario(stack, { ...target, label }, events, options);
			log(`queue: ${JSON.stringify(result)}`);
			measured.push({ result, stopped: options.stopMidway === true });
			if (options.stopMidway) await stack.webhooks[0].start({ command: 'webhook' });
			return result;
		};
		const hook = await measure(t.hook, { copies: false });
		for (const target of [t.bare, t.guard, t.removeDup]) await measure(target);
		await measure(t.guard, { stopMidway: true });
		await measure(t.hook, { stopMidway: true, copies: false });
		// The stopped rows' rates are left out: their retries wait for the stopped process to exit (up to 30 s).
		const rows = measured.map(({ result: r, stopped }) => [
			r.label,
			r.copies ? `${r.events} + ${r.copies}` : String(r.events),
			String(r.lost),
			String(r.extraRuns),
			String(r.failedRuns),
			Object.entries(r.firstAnswers)
				.map(([k, v]) => `${k}: ${v}`)
				.join(', '),
			String(r.retried),
			String(r.answered200NotRun),
			...(stopped || !hook
				? ['', '', '', '']
				: [fmt(r.acceptedPerSecond, 0), ratio(r.acceptedPerSecond / hook.acceptedPerSecond), fmt(r.executedPerSecond, 0), ratio(r.executedPerSecond / hook.executedPerSecond)]),
		]);
		return table(
			`6. Queue mode under ${setting.title}: main + 2 webhook processes + 1 worker (concurrency 10), PostgreSQL, Redis; ${events} genuine events per row (+ ${Math.floor(events / 5)} duplicate copies for the trigger), ${QUEUE_CONCURRENCY} connections over both webhook processes`,
			['Receiver', 'Events + copies', 'Lost', 'Extra runs', 'Failed runs', 'First answers', 'Retried', '200 but no run', 'Accepted/s', 'vs Webhook', 'Executed/s', 'vs Webhook'],
			rows,
			[
				`Event i goes to webhook process i % 2. Copies: the first ${Math.floor(events / 10)} events also go to the other process at the same moment`,
				'(every other one with the identical signature, the rest signed afresh); after the burst the next ' + `${Math.floor(events / 5) - Math.floor(events / 10)} are sent again`,
				'with fresh signatures, as the service retries. Lost: genuine events with no run past the guard. Extra runs: runs past the guard',
				'beyond one per event. Anything not answered 200 (an error status, or the connection refused or cut) is retried, signed afresh,',
				'to a process that is up, as the service does. 200 but no run: answered 200 at some attempt, yet no run came.',
				'Accepted/s: 200 answers per second during the burst; Executed/s: executions per second until the last one finished (the worker).',
			],
		);
	} finally {
		await stack.stop();
	}
}
