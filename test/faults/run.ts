/**
 * Fault suite: does a 2xx from the trigger mean the event is n8n's? 400 distinct signed events, 8 at a time,
 * to one n8n process, killed (SIGKILL, as the OOM killer or `docker kill`; SIGTERM, n8n's graceful
 * shutdown) right after the 200th 2xx answer; restarted; the unanswered events re-sent as the service
 * retries; every acknowledged event looked up in the saved executions. In regular mode (one process,
 * SQLite) and in queue mode (PostgreSQL, Redis; the burst goes to one webhook process), for the trigger at
 * default settings, the trigger with Allow Duplicate Deliveries, and n8n's Webhook node as the reference.
 * npm run test:faults  (E2E_KEEP=1 keeps the folder with every process's log; E2E_ONLY=regex selects
 * rounds by their line, e.g. "regular SIGKILL".)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { N8n, N8nCommand } from '../../tools/n8n/n8n';
import { formatElapsed, installCleanupHandlers, stopAll, waitFor } from '../../tools/n8n/proc';
import { startQueueStack } from '../../tools/n8n/queue-stack';
import { createReporter, runSuite } from '../e2e/lib/report';
import { type Stack, startStack } from '../../tools/n8n/stack';
import { chain, webhookIdFor, webhookTrigger, type Workflow } from '../../tools/n8n/workflow';
import { type CredentialRef, triggerProductionPath } from '../../tools/n8n/workflows';
import { triggerNode } from '../queue/workflows';
import { burstAndKill, CONCURRENCY, type Figures, type Kill, KILL_AFTER } from './burst';

const OWNER = { email: 'owner@faults.example.com', password: 'Faults-owner-Passw0rd!', firstName: 'Fault', lastName: 'Owner' };
const HOOK_PATH = 'fault-webhook-node';
/**
 * Acknowledged events left without a finished run may exceed the Webhook node's by this much (one
 * burst's worth in flight) before the trigger fails: runs that were under way when the process died.
 */
const UNFINISHED_MARGIN = CONCURRENCY;
const KILLS: Kill[] = ['SIGKILL', 'SIGTERM'];
const TITLES = { hook: "n8n's Webhook node (reference)", default: 'trigger, default settings', duplicates: 'trigger, Allow Duplicate Deliveries' };
const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY, 'i') : undefined;
const roundName = (mode: string, kill: Kill, title: string) => `${mode} ${kill}, ${title}`;
/** Whether E2E_ONLY selects any round of `mode` (a mode with none is not even started). */
const modeSelected = (mode: string) => !ONLY || KILLS.some((k) => Object.values(TITLES).some((t) => ONLY.test(roundName(mode, k, t))));

interface Receiver {
	title: string;
	workflow: Workflow;
	path: string;
	/** The Webhook node: reported, never failed. */
	reference?: boolean;
}

/** The Webhook node first: the triggers' lines compare against its figures in the same case. */
function receivers(credential: CredentialRef): Receiver[] {
	const hookDefault = webhookIdFor('fault-default');
	const hookDuplicates = webhookIdFor('fault-duplicates');
	return [
		{
			title: TITLES.hook,
			workflow: chain('faultWebhookNode', 'Faults: Webhook node', [webhookTrigger(HOOK_PATH, 'Webhook', 'onReceived')]),
			path: `/webhook/${HOOK_PATH}`,
			reference: true,
		},
		{
			title: TITLES.default,
			workflow: chain('faultTriggerDefault', 'Faults: trigger, default settings', [triggerNode(credential, hookDefault)]),
			path: triggerProductionPath(hookDefault),
		},
		{
			title: TITLES.duplicates,
			workflow: chain('faultTriggerDuplicates', 'Faults: trigger, Allow Duplicate Deliveries', [
				triggerNode(credential, hookDuplicates, { allowDuplicates: true }),
			]),
			path: triggerProductionPath(hookDuplicates),
		},
	];
}

/** A CORS preflight answers 204 once the path is registered, and starts nothing (a probe POST would run the Webhook node). */
async function waitForRegistered(url: string): Promise<void> {
	await waitFor(
		`${url} to be registered`,
		async () => {
			const res = await fetch(url, { method: 'OPTIONS', headers: { Origin: 'http://faults.example.com', 'Access-Control-Request-Method': 'POST' } });
			return res.status === 204 ? true : undefined;
		},
		60_000,
		250,
	);
}

function describe(f: Figures): string {
	const parts = [
		`${f.acknowledged} acknowledged`,
		`${f.lost} lost`,
		`${f.unfinished} left without a finished run`,
		`${f.extraRuns} extra runs after ${f.resent} re-sent`,
	];
	if (f.resentUnanswered) parts.push(`${f.resentUnanswered} re-sent never answered 2xx`);
	if (f.unattributed) parts.push(`${f.unattributed} executions without an event`);
	return parts.join(', ');
}

type Reporter = ReturnType<typeof createReporter>;

/** Every kill and receiver of one mode, on a running stack. */
async function runCases(
	report: Reporter,
	mode: string,
	stack: Stack,
	list: Receiver[],
	target: N8n,
	command: N8nCommand,
	log: (line: string) => void,
): Promise<void> {
	for (const kill of KILLS) {
		let reference: Figures | undefined;
		for (const receiver of list) {
			const name = roundName(mode, kill, receiver.title);
			if (ONLY && !ONLY.test(name)) continue;
			const workflow = stack.workflows.find((w) => w.name === receiver.workflow.name)!;
			try {
				await waitForRegistered(`${target.baseUrl}${receiver.path}`);
				const f = await burstAndKill({
					target,
					command,
					reader: stack.n8n,
					workflowId: workflow.id,
					path: receiver.path,
					secret: stack.sandbox.credentials.webhookSecret,
					kill,
					tag: `${mode}-${kill}-${workflow.id}`.toLowerCase(),
					log: (line) => log(`${name}: ${line}`),
				});
				const problems: string[] = [];
				let line = `${name}: ${describe(f)}`;
				if (kill === 'SIGTERM') line += `; shutdown took ${f.exitSeconds.toFixed(1)} s${f.hung ? ' and was cut short by SIGKILL' : ''}`;
				if (receiver.reference) reference = f;
				else {
					if (f.lost > 0) problems.push(`${f.lost} acknowledged events lost, e.g. ${f.lostIds.slice(0, 3).join(', ')}`);
					if (reference) {
						const limit = reference.unfinished + UNFINISHED_MARGIN;
						line += ` (Webhook node: ${reference.unfinished} left without a finished run; fails above ${limit})`;
						if (f.unfinished > limit) problems.push(`${f.unfinished} acknowledged events left without a finished run, more than the Webhook node's ${reference.unfinished} + ${UNFINISHED_MARGIN}`);
					}
				}
				report.result(line, problems.length === 0, problems.join('\n'));
			} catch (error) {
				report.result(name, false, error instanceof Error ? (error.stack ?? error.message) : String(error));
				// A round that broke off may have left the target down: the next round needs it up.
				if (await isDown(target)) await target.start({ command }).catch(() => undefined);
			}
		}
	}
}

async function isDown(p: N8n): Promise<boolean> {
	try {
		return !(await fetch(`${p.baseUrl}/healthz`)).ok;
	} catch {
		return true;
	}
}

async function main(): Promise<number> {
	const started = Date.now();
	const dir = mkdtempSync(join(tmpdir(), 'bm-faults-'));
	const report = createReporter();
	const log = (line: string) => process.stdout.write(`# ${line}\n`);
	installCleanupHandlers(() => {
		process.stdout.write(`# interrupted; logs in ${dir}\n`);
	});
	log(`${KILL_AFTER * 2} events, ${CONCURRENCY} at a time; kill right after the ${KILL_AFTER}th 2xx answer`);
	let list: Receiver[] = [];
	const common = {
		owner: OWNER,
		log,
		workflows: ({ credential }: { credential: CredentialRef }) => {
			list = receivers(credential);
			return list.map((r) => r.workflow);
		},
		publish: (workflows: Workflow[]) => workflows.map((w) => w.id),
	};

	const regularSetUp = 'set-up, regular mode: one n8n process (SQLite) with the three receivers active, the sandbox';
	let regular: Stack | undefined;
	let tarball: string | undefined;
	if (modeSelected('regular')) try {
		regular = await startStack({ ...common, dir: join(dir, 'regular') });
		tarball = regular.tarball;
		report.result(regularSetUp, true);
		await runCases(report, 'regular', regular, list, regular.n8n, 'start', log);
	} catch (error) {
		report.result(regularSetUp, false, error instanceof Error ? (error.stack ?? error.message) : String(error));
	} finally {
		await regular?.stop();
	}

	const queueSetUp = 'set-up, queue mode: PostgreSQL, Redis, n8n main + 2 webhook processes + 1 worker with the three receivers active';
	if (modeSelected('queue')) try {
		const queue = await startQueueStack({ ...common, dir: join(dir, 'queue'), tarball });
		try {
			report.result(queueSetUp, true);
			await runCases(report, 'queue', queue, list, queue.webhooks[0], 'webhook', log);
		} finally {
			await queue.stop();
		}
	} catch (error) {
		report.result(queueSetUp, false, error instanceof Error ? (error.stack ?? error.message) : String(error));
	}

	await stopAll();
	const { passed, failed } = report.totals();
	log(`whole suite ${formatElapsed(Date.now() - started)}`);
	if (failed > 0 || process.env.E2E_KEEP) log(`logs kept in ${dir}`);
	else rmSync(dir, { recursive: true, force: true });
	process.stdout.write(`${passed} passed, ${failed} failed\n`);
	return failed > 0 ? 1 : 0;
}

runSuite(main);
