/**
 * 6. Queue mode: n8n main + two `n8n webhook` processes + one worker on PostgreSQL and Redis (the queue
 * suite's stack). A burst of genuine events plus duplicate copies as the service sends them, spread over
 * both webhook processes: events lost, extra runs without and with the cross-process guard
 * (examples/queue-mode-deduplication.json) and with n8n's Remove Duplicates node, throughput beside n8n's
 * Webhook node in the same deployment, and one webhook process stopped with SIGTERM mid-burst.
 * npm run bench -- queue   (BENCH_QUEUE_EVENTS=1000 genuine events per scenario)
 */
import { join } from 'node:path';
import { startQueueStack, type QueueStack } from '../test/e2e/lib/queue-stack';
import { sleep, waitFor } from '../test/e2e/lib/proc';
import type { Workflow } from '../test/e2e/lib/workflow';
import { webhookIdFor } from '../test/e2e/lib/workflow';
import { TRIGGER_WEBHOOK_PATH } from '../test/e2e/lib/workflows';
import { type Answer, type Delivery, deliver, messageEvent, nowSeconds } from '../test/queue/deliver';
import { bareTriggerWorkflow, dedupExampleWorkflow, FIRST_DELIVERY_NODE, REMOVE_DUPLICATES_NODE, removeDuplicatesWorkflow, TRIGGER_NODE } from '../test/queue/workflows';
import { type Execution, finishedExecutionsAfter, latestExecutionId } from './lib/n8n-runs';
import { fmt, ratio, table } from './lib/stats';
import { webhookNodeWorkflow } from './workflows';

/** Connections kept busy by the sender, over both webhook processes together. */
export const QUEUE_CONCURRENCY = 16;

interface Target {
	label: string;
	workflow: Workflow;
	webhookId: string;
	/** Did this run get past the workflow's duplicate guard (the steps after it ran)? */
	passed: (e: Execution) => boolean;
}

const items = (e: Execution, node: string) => e.data?.resultData.runData[node]?.[0]?.data?.main?.[0] ?? [];

function targets(workflows: Workflow[]): Record<'bare' | 'guard' | 'removeDup', Target> {
	const find = (prefix: string) => workflows.find((w) => w.name.startsWith(prefix))!;
	const hookOf = (w: Workflow) => w.nodes.find((n) => n.name === TRIGGER_NODE)!.webhookId!;
	const bare = find('Queue: trigger alone');
	const guard = find('Business Messaging: one run per event');
	const removeDup = find('Queue: Remove Duplicates node');
	return {
		bare: { label: 'Trigger alone (its own duplicate store on)', workflow: bare, webhookId: hookOf(bare), passed: () => true },
		guard: { label: 'Trigger + Redis guard (examples/queue-mode-deduplication.json)', workflow: guard, webhookId: hookOf(guard), passed: (e) => items(e, FIRST_DELIVERY_NODE).length > 0 },
		removeDup: { label: 'Trigger + n8n Remove Duplicates node (deliveryKey)', workflow: removeDup, webhookId: hookOf(removeDup), passed: (e) => items(e, REMOVE_DUPLICATES_NODE).length > 0 },
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
 * of the events are answered.
 */
async function scenario(stack: QueueStack, target: Target, events: number, stopMidway = false): Promise<ScenarioResult> {
	const { n8n, sandbox } = stack;
	const secret = sandbox.credentials.webhookSecret;
	const path = `/webhook/${target.webhookId}/${TRIGGER_WEBHOOK_PATH}`;
	let up = stack.webhooks.map(() => true);
	const urls = stack.webhooks.map((w) => `${w.baseUrl}${path}`);
	const run = `${Date.now()}`;
	const bodies = Array.from({ length: events }, (_, i) => messageEvent(`${run}.${i}`, `+1555${String(3000000 + i)}`));
	const sameMoment = Math.floor(events / 10);
	const later = Math.floor(events / 5) - sameMoment;
	const ts = nowSeconds();
	const jobs: Delivery[][] = bodies.map((body, i) => {
		const job: Delivery[] = [{ url: urls[i % 2], body, timestamp: ts }];
		if (i < sameMoment) job.push({ url: urls[(i + 1) % 2], body, timestamp: i % 2 === 0 ? ts : ts - 1 });
		return job;
	});
	const before = await latestExecutionId(n8n, target.workflow.id);
	const t0 = Date.now();
	let stopped: Promise<number | null> | undefined;
	const answers = await sendJobs(secret, jobs, QUEUE_CONCURRENCY, (done) => {
		if (stopMidway && !stopped && done >= jobs.length * 0.3) {
			process.kill(stack.webhooks[0].pid!, 'SIGTERM');
			up = [false, true];
			stopped = stack.webhooks[0].exited;
		}
	});
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
		const data = items(e, TRIGGER_NODE)[0]?.json.data as { message_id?: string } | undefined;
		const id = data?.message_id ?? '?';
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
	const copies = jobs.reduce((sum, j) => sum + j.length, 0) - events + later;
	const okInBurst = answers.flat().filter((a) => a.status === 200).length;
	return {
		label: target.label,
		events,
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

/** n8n's Webhook node in the same deployment: N unique requests over both webhook processes. */
async function webhookNodeBurst(stack: QueueStack, workflow: Workflow, events: number): Promise<{ acceptedPerSecond: number; executedPerSecond: number; failed: number }> {
	const path = `/webhook/${String(workflow.nodes[0].parameters.path)}`;
	const urls = stack.webhooks.map((w) => `${w.baseUrl}${path}`);
	const run = `${Date.now()}`;
	const jobs = Array.from({ length: events }, (_, i) => [{ url: urls[i % 2], body: messageEvent(`hook.${run}.${i}`), timestamp: nowSeconds() }]);
	const before = await latestExecutionId(stack.n8n, workflow.id);
	const t0 = Date.now();
	const answers = (await sendJobs(stack.sandbox.credentials.webhookSecret, jobs, QUEUE_CONCURRENCY)).flat();
	const seconds = (Date.now() - t0) / 1000;
	const all = await finishedExecutionsAfter(stack.n8n, workflow.id, before, {
		atLeast: answers.filter((a) => a.status === 200).length,
		timeoutMs: 20 * 60_000,
	});
	const lastStop = Math.max(...all.map((e) => Date.parse(e.stoppedAt ?? '') || 0));
	return {
		acceptedPerSecond: answers.filter((a) => a.status === 200).length / seconds,
		executedPerSecond: all.length / ((lastStop - t0) / 1000),
		failed: answers.filter((a) => a.status !== 200).length,
	};
}

const OWNER = { email: 'owner@bench-queue.example.com', password: 'Bench-queue-Passw0rd!', firstName: 'Bench', lastName: 'Queue' };

export async function benchQueue(dir: string, log: (line: string) => void, events: number): Promise<string> {
	const hooks = { bare: webhookIdFor('bq-bare'), guard: webhookIdFor('bq-guard'), removeDup: webhookIdFor('bq-removedup') };
	const stack = await startQueueStack({
		dir: join(dir, 'queue'),
		owner: OWNER,
		log,
		workflows: ({ credential }) => [
			bareTriggerWorkflow('bench', credential, hooks.bare),
			dedupExampleWorkflow('bench', credential, hooks.guard),
			removeDuplicatesWorkflow('bench', credential, hooks.removeDup),
			webhookNodeWorkflow('qhook'),
		],
		publish: (workflows) => workflows.slice(0, 3).map((w) => w.id),
		activate: (workflows) => [workflows[3].id],
	});
	try {
		const t = targets(stack.workflows);
		for (const target of Object.values(t)) {
			for (const w of stack.webhooks) {
				await waitFor(`${target.label} on ${w.baseUrl}`, async () => ((await fetch(`${w.baseUrl}/webhook/${target.webhookId}/${TRIGGER_WEBHOOK_PATH}`, { method: 'POST', body: '' })).status !== 404 ? true : undefined), 60_000, 500);
			}
		}
		const hookWorkflow = stack.workflows[3];
		for (const w of stack.webhooks) {
			await waitFor('Webhook node', async () => ((await fetch(`${w.baseUrl}/webhook/${String(hookWorkflow.nodes[0].parameters.path)}`, { method: 'POST', body: '{}' })).status !== 404 ? true : undefined), 60_000, 500);
		}
		log(`queue: Webhook node, ${events} requests`);
		const hook = await webhookNodeBurst(stack, hookWorkflow, events);
		const results: ScenarioResult[] = [];
		for (const target of [t.bare, t.guard, t.removeDup]) {
			log(`queue: ${target.label}, ${events} events`);
			results.push(await scenario(stack, target, events));
			log(`queue: ${JSON.stringify(results[results.length - 1])}`);
		}
		log(`queue: SIGTERM to webhook-1 during the burst (${t.guard.label})`);
		const stopped = await scenario(stack, { ...t.guard, label: `${t.guard.label}, webhook-1 stopped (SIGTERM) at 30%` }, events, true);
		log(`queue: ${JSON.stringify(stopped)}`);
		// The stopped row's rates are left out: its retries wait for the stopped process to exit (up to 30 s).
		const rows = [...results, stopped].map((r) => [
			r.label,
			`${r.events} + ${r.copies}`,
			String(r.lost),
			String(r.extraRuns),
			String(r.failedRuns),
			Object.entries(r.firstAnswers)
				.map(([k, v]) => `${k}: ${v}`)
				.join(', '),
			String(r.retried),
			String(r.answered200NotRun),
			...(r === stopped
				? ['', '', '', '']
				: [fmt(r.acceptedPerSecond, 0), ratio(r.acceptedPerSecond / hook.acceptedPerSecond), fmt(r.executedPerSecond, 0), ratio(r.executedPerSecond / hook.executedPerSecond)]),
		]);
		rows.push(['n8n Webhook node (no verification, no duplicates sent)', String(events), '', '', '', hook.failed ? `failed: ${hook.failed}` : `200: ${events}`, '', '', fmt(hook.acceptedPerSecond, 0), '1.00×', fmt(hook.executedPerSecond, 0), '1.00×']);
		return table(
			`6. Queue mode: main + 2 webhook processes + 1 worker (concurrency 10), PostgreSQL, Redis; ${events} genuine events + ${Math.floor(events / 5)} duplicate copies per row, ${QUEUE_CONCURRENCY} connections over both webhook processes`,
			['Receiver', 'Events + copies', 'Lost', 'Extra runs', 'Failed runs', 'First answers', 'Retried', '200 but no run', 'Accepted/s', 'vs Webhook', 'Executed/s', 'vs Webhook'],
			rows,
			[
				`Event i goes to webhook process i % 2. Copies: the first ${Math.floor(events / 10)} events also go to the other process at the same moment`,
				'(every other one with the identical signature, the rest signed afresh); after the burst the next ' + `${Math.floor(events / 5) - Math.floor(events / 10)} are sent again`,
				'with fresh signatures, as the service retries. Lost: genuine events with no run past the guard. Extra runs: runs past the guard',
				'beyond one per event. Anything not answered 200 is retried (fresh signature, to a process that is up), as the service does.',
				'Accepted/s: 200 answers per second during the burst; Executed/s: executions per second until the last one finished (the worker).',
			],
		);
	} finally {
		await stack.stop();
	}
}
