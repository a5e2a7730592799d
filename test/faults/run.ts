/**
 * Fault suite: does a 2xx from the trigger mean the event is n8n's, on every n8n version the package
 * supports, whatever the network and the process do? On 1.123.81, 2.3.6 and 2.41.1 (regular mode, one
 * process, SQLite), and on 2.41.1 in queue mode (PostgreSQL, Redis; requests go to one webhook process),
 * all under n8n's defaults; and the trigger's kills once more on 2.41.1 regular under the expression-engine
 * setting the docs recommend:
 * - burst: distinct signed events, 8 at a time, the process killed (SIGKILL, as the OOM killer or `docker kill`;
 *   SIGTERM, n8n's graceful shutdown) right after the Nth 2xx answer (burstSize in burst.ts), restarted, the
 *   unanswered events re-sent as the service retries; for the trigger at default settings (both kills), and
 *   under SIGKILL also with Allow Duplicate Deliveries and n8n's Webhook node ("Respond: Immediately") as the
 *   reference, never failed: it shows the loss n8n itself has on a version; and a stall of the trigger at default
 *   settings: the process stopped (SIGSTOP) after the Nth 2xx for longer than the service waits for an
 *   answer, then continued (SIGCONT), no restart, a sender that gave up re-sending at once (the retry waits in
 *   n8n's connection queue behind the first copy); every event must then run exactly once;
 * - sharing (docs/sharing.md): the same kills (SIGKILL, SIGTERM), sent to a sharing trigger's URL
 *   with two workflows receiving through it: every event answered 2xx must run in each of the three;
 * - network: the first sender hangs up (0 ms, mid-body, after the body), resets, or sends slowly; the
 *   retry must be answered 2xx within seconds and the event run once;
 * - restart (regular mode): what a restart keeps of the duplicate store after each kind of request.
 * Every event sent is looked up in n8n's executions; the closing line compares the counts.
 * Two deployments run at a time (FAULTS_LANES=1: one after another), each on its own ports, folder and sandbox.
 * npm run test:faults  (E2E_KEEP=1 keeps the folder with every process's log; E2E_ONLY=regex selects
 * cases by their name, e.g. "2.3.6 regular SIGKILL" or "network"; a filter that matches no case fails.)
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { latestExecutionId } from '../../bench/lib/n8n-runs';
import type { N8n, N8nCommand } from '../../tools/n8n/n8n';
import { inLanes, lanesFromEnv } from '../../tools/n8n/lanes';
import { logsFolder } from '../../tools/n8n/logs';
import { formatElapsed, stopAll } from '../../tools/n8n/proc';
import { startQueueStack } from '../../tools/n8n/queue-stack';
import { type Stack, startStack } from '../../tools/n8n/stack';
import { chain, webhookIdFor, webhookTrigger, type Workflow } from '../../tools/n8n/workflow';
import { type CredentialRef, triggerProductionPath } from '../../tools/n8n/workflows';
import { closingLine, createReporter, errorText, runSuite } from '../e2e/lib/report';
import { settingChecks } from '../e2e/lib/setting';
import { triggerNode } from '../queue/workflows';
import { type Deployment, DEPLOYMENTS, deploymentKey, deploymentLabel, prefix, takesOver } from './deployments';
import { burstAndKill, burstAndStall, type BurstSize, burstSize, CONCURRENCY, type Disruption, type Figures, type Kill } from './burst';
import { ledger, lookUp, registered, sent } from './lookup';
import { NETWORK_FAULTS, RESEND_ANSWER_MS, runNetworkFault } from './network';
import { RESTART_EVENTS, RESTART_SEQUENCES, restartWorkflow, runRestartSequences } from './restart';
import { everyWorkflowReceives, SHARING_PATH, sharingWorkflows } from './sharing';

const OWNER = { email: 'owner@faults.example.com', password: 'Faults-owner-Passw0rd!', firstName: 'Fault', lastName: 'Owner' };
const HOOK_PATH = 'fault-webhook-node';
const KILLS: Disruption[] = ['SIGKILL', 'SIGTERM', 'SIGSTOP'];
/** The restart cases' kill: the harshest; a hand-over answered 200 must already be saved. */
const RESTART_KILL: Kill = 'SIGKILL';
const TITLES = {
	hook: "n8n's Webhook node (reference)",
	default: 'trigger, default settings',
	duplicates: 'trigger, Allow Duplicate Deliveries',
	sharing: 'sharing trigger + 2 workflows receiving through it',
};
const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY, 'i') : undefined;

const burstName = (d: Deployment, kill: Disruption, title: string) => `${prefix(d)} ${kill}, ${title}`;
const networkName = (d: Deployment, fault: string) => `${prefix(d)} network: ${fault}`;
const restartName = (d: Deployment, sequence: string) => `${prefix(d)} restart (${RESTART_KILL}): ${sequence}`;

/** Every case of a deployment, by name. */
function caseNames(d: Deployment): string[] {
	if (d.killsOnly) return KILLS.map((kill) => burstName(d, kill, TITLES.default));
	return [
		...NETWORK_FAULTS.map((f) => networkName(d, f.name)),
		...(d.mode === 'regular' ? RESTART_SEQUENCES.map((s) => restartName(d, s.name)) : []),
		...KILLS.flatMap((kill) => titlesFor(kill).map((title) => burstName(d, kill, title))),
	];
}

/**
 * The receivers each kill is tried on: all under SIGKILL (the Webhook node shows the loss n8n itself has on
 * a version, Allow Duplicate Deliveries takes the same answer path without the store); under SIGTERM the
 * trigger at default settings, what users run, and the sharing trigger; the stall for the trigger (the sharing
 * trigger's stall answered no event 2xx on a loaded 2-core machine: each event's three runs and two hand-overs
 * took longer than the service waits, so it is not run). Keeps the suite within CI's time on four deployments.
 */
function titlesFor(kill: Disruption): string[] {
	if (kill === 'SIGKILL') return Object.values(TITLES);
	if (kill === 'SIGTERM') return [TITLES.default, TITLES.sharing];
	return [TITLES.default];
}

const selected = (name: string) => !ONLY || ONLY.test(name);
/** Whether the case `name` is one of `d`'s and chosen. */
const chosenIn = (d: Deployment, name: string) => caseNames(d).includes(name) && selected(name);

interface Receiver {
	title: string;
	workflow: Workflow;
	path: string;
	/** The Webhook node: reported, never failed. */
	reference?: boolean;
	/** The workflows receiving through this (sharing) trigger: every event runs in each of them too. */
	receivingThrough?: Workflow[];
}

/** The Webhook node first: its figures are shown next to the triggers' in the same deployment. */
function receivers(credential: CredentialRef): Receiver[] {
	const hookDefault = webhookIdFor('fault-default');
	const hookDuplicates = webhookIdFor('fault-duplicates');
	const [sharing, ...receiving] = sharingWorkflows(credential);
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
		{ title: TITLES.sharing, workflow: sharing, path: SHARING_PATH, receivingThrough: receiving },
	];
}

function describe(f: Figures, kill: Disruption): string {
	const parts = [
		`${f.acknowledged} acknowledged ${kill === 'SIGSTOP' ? 'in the burst' : 'before the restart'}`,
		`${f.lost} lost`,
		`${f.unfinished} without a finished run`,
		`${f.resent} re-sent (${f.cutOff} cut off in flight)`,
		`${f.extraRuns} extra runs (${f.extraRunsBeyondMargin} beyond the margin)`,
		`${f.lookedUp} looked up`,
	];
	if (f.byWorkflow.length > 0) parts.push(`per workflow (lost/extra runs): ${f.byWorkflow.map((w) => `${w.lost}/${w.extraRuns}`).join(', ')}`);
	if (f.resentUnanswered) parts.push(`${f.resentUnanswered} re-sent never answered 2xx`);
	if (f.unattributed) parts.push(`${f.unattributed} executions without an event`);
	return parts.join(', ');
}

/** The suite's reporter, counting the cases reported (set-ups and the closing check are not cases). */
function caseReporter() {
	const report = createReporter();
	let cases = 0;
	return {
		...report,
		/** A case's result. */
		result: (name: string, ok: boolean, detail?: string) => {
			cases++;
			report.result(name, ok, detail);
		},
		/** Anything else: a set-up, the filter, the closing check. */
		check: report.result,
		cases: () => cases,
	};
}

type Reporter = ReturnType<typeof caseReporter>;

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

async function isDown(p: N8n): Promise<boolean> {
	try {
		return !(await fetch(`${p.baseUrl}/healthz`)).ok;
	} catch {
		return true;
	}
}

interface Running {
	d: Deployment;
	stack: Stack;
	list: Receiver[];
	/** The process requests go to (and the one killed). */
	target: N8n;
	command: N8nCommand;
	log: (line: string) => void;
}

/** A case that broke off may have left the target down: the next case needs it up. */
async function ensureUp(r: Running): Promise<void> {
	if (await isDown(r.target)) await r.target.start({ command: r.command }).catch(() => undefined);
}

/**
 * The network cases one after another on the trigger at default settings, then one look-up of all their
 * events: nothing is killed between them, so one settling of the workflow's executions serves them all.
 */
async function networkCases(report: Reporter, r: Running): Promise<void> {
	const receiver = r.list.find((x) => x.title === TITLES.default)!;
	const workflowId = r.stack.workflows.find((w) => w.name === receiver.workflow.name)!.id;
	const url = `${r.target.baseUrl}${receiver.path}`;
	const chosen = NETWORK_FAULTS.map((fault, i) => ({ fault, i, name: networkName(r.d, fault.name) })).filter((c) => chosenIn(r.d, c.name));
	if (chosen.length === 0) return;
	const done: Array<{ name: string; outcome: Awaited<ReturnType<typeof runNetworkFault>> }> = [];
	let before: number;
	try {
		await registered(url);
		before = await latestExecutionId(r.stack.n8n, workflowId);
	} catch (error) {
		for (const c of chosen) report.result(c.name, false, errorText(error));
		return;
	}
	for (const { fault, i, name } of chosen) {
		try {
			const t0 = Date.now();
			const tag = `${deploymentKey(r.d)}-${i}-${Date.now()}`;
			const outcome = await runNetworkFault(fault, url, r.stack.sandbox.credentials.webhookSecret, tag);
			sent(outcome.ids);
			done.push({ name, outcome });
			r.log(`network: ${fault.name}: sent in ${Date.now() - t0} ms`);
		} catch (error) {
			report.result(name, false, errorText(error));
			await ensureUp(r);
		}
	}
	if (done.length === 0) return;
	let runsOf: Map<string, string[]>;
	try {
		const t0 = Date.now();
		runsOf = (await lookUp(r.stack.n8n, workflowId, before, done.flatMap((d) => d.outcome.ids), r.log)).runsOf;
		r.log(`network cases: ${done.length} looked up in ${Date.now() - t0} ms`);
	} catch (error) {
		for (const { name } of done) report.result(name, false, errorText(error));
		await ensureUp(r);
		return;
	}
	for (const { name, outcome } of done) {
		const problems: string[] = [];
		for (const resend of outcome.resends) {
			if (resend.status < 200 || resend.status >= 300) {
				problems.push(`the re-send of ${resend.id} was answered ${resend.status || `nothing within ${RESEND_ANSWER_MS} ms`}${resend.error ? ` (${resend.error})` : ''}`);
			}
		}
		for (const id of outcome.ids) {
			const runs = runsOf.get(id)!.length;
			if (runs !== 1) problems.push(`${id} ran ${runs} times`);
		}
		const slowest = Math.max(...outcome.resends.map((x) => x.ms));
		report.result(`${name}: ${outcome.ids.length} events, each re-send answered ${outcome.resends.filter((x) => x.status === 200).length} of ${outcome.resends.length} (slowest ${slowest} ms), runs ${outcome.ids.map((id) => runsOf.get(id)!.length).join(' ')}`, problems.length === 0, problems.join('\n'));
	}
}

async function restartCases(report: Reporter, r: Running): Promise<void> {
	const sequences = RESTART_SEQUENCES.filter((s) => chosenIn(r.d, restartName(r.d, s.name)));
	if (sequences.length === 0) return;
	try {
		const workflowIdOf = (s: (typeof sequences)[number]) => r.stack.workflows.find((w) => w.name === restartWorkflow(s, r.stack.credential).name)!.id;
		const tag = `${deploymentKey(r.d)}-${Date.now()}`;
		const outcomes = await runRestartSequences(r.target, sequences, workflowIdOf, r.stack.sandbox.credentials.webhookSecret, RESTART_KILL, tag, r.log);
		for (const o of outcomes) {
			const expected = o.sequence.rerunsExpected === 'all' ? RESTART_EVENTS : 0;
			const problems = [...o.problems];
			if (o.reruns !== expected) problems.push(`${o.reruns} of ${RESTART_EVENTS} re-sends ran again; expected ${expected} (docs/trigger.md)`);
			if (o.unanswered) problems.push(`${o.unanswered} re-sends not answered 200`);
			if (o.lost) problems.push(`${o.lost} acknowledged events without a run`);
			report.result(`${restartName(r.d, o.sequence.name)}: ${o.reruns} of ${RESTART_EVENTS} re-sent after the restart ran again`, problems.length === 0, problems.join('\n'));
		}
	} catch (error) {
		for (const s of sequences) report.result(restartName(r.d, s.name), false, errorText(error));
		await ensureUp(r);
	}
}

async function burstCases(report: Reporter, r: Running): Promise<void> {
	for (const kill of KILLS) {
		let reference: Figures | undefined;
		for (const receiver of r.list) {
			const name = burstName(r.d, kill, receiver.title);
			if (!chosenIn(r.d, name)) continue;
			const workflows = [receiver.workflow, ...(receiver.receivingThrough ?? [])].map((x) => r.stack.workflows.find((w) => w.name === x.name)!);
			const workflow = workflows[0];
			try {
				await registered(`${r.target.baseUrl}${receiver.path}`);
				if (receiver.receivingThrough) {
					const t0 = Date.now();
					await everyWorkflowReceives(r.target, r.stack.n8n, r.stack.sandbox.credentials.webhookSecret, workflows, `${deploymentKey(r.d)}-${kill}`.toLowerCase());
					r.log(`${kill}, ${receiver.title}: every workflow received a probe through the sharing trigger in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
				}
				const round = {
					target: r.target,
					command: r.command,
					reader: r.stack.n8n,
					workflows,
					path: receiver.path,
					size: burstSize(kill, receiver.receivingThrough !== undefined),
					secret: r.stack.sandbox.credentials.webhookSecret,
					tag: `${deploymentKey(r.d)}-${kill}-${workflow.id}`.toLowerCase(),
					log: (line: string) => r.log(`${kill}, ${receiver.title}: ${line}`),
				};
				const f = kill === 'SIGSTOP' ? await burstAndStall({ ...round, kill }) : await burstAndKill({ ...round, kill });
				const problems: string[] = [];
				let line = `${name}: ${describe(f, kill)}`;
				if (kill === 'SIGTERM') line += `; shutdown took ${f.exitSeconds.toFixed(1)} s${f.hung ? ' and was cut short by SIGKILL' : ''}`;
				if (receiver.reference) {
					reference = f;
					line += r.target.features.onReceivedAnswersAfterRun ? ' (this n8n answers "Immediately" once the run exists)' : ' (this n8n answers "Immediately" before the run exists)';
				}
				else {
					if (f.lost > 0) problems.push(`${f.lost} events answered 2xx have no run${workflows.length > 1 ? ' in a workflow' : ''}, e.g. ${f.lostIds.slice(0, 3).join(', ')}`);
					if (f.resentUnanswered > 0) problems.push(`${f.resentUnanswered} re-sent events were never answered 2xx`);
					if (f.extraRunsBeyondMargin > 0) problems.push(`${f.extraRunsBeyondMargin} extra runs beyond this burst's margin (one per event cut off in flight), e.g. ${f.extraIds.slice(0, 3).join(', ')}`);
					// Nothing died in a stall: the duplicate store saw every copy, so no event may run twice.
					if (kill === 'SIGSTOP' && f.extraRuns > 0) problems.push(`${f.extraRuns} extra runs after a stall, in which no process died`);
					if (reference) line += ` (Webhook node: ${reference.lost} lost, ${reference.unfinished} without a finished run)`;
				}
				report.result(line, problems.length === 0, problems.join('\n'));
			} catch (error) {
				report.result(name, false, errorText(error));
				await ensureUp(r);
			}
		}
	}
}

/** Under a setting, the process the cases kill runs with it (none for n8n's defaults). */
async function settingCheck(report: Reporter, r: Running, when: string): Promise<void> {
	for (const check of settingChecks(r.d.setting, () => [r.target])) {
		const name = `${prefix(r.d)}: ${check.name}${when}`;
		try {
			await check.fn();
			report.check(name, true);
		} catch (error) {
			report.check(name, false, errorText(error));
		}
	}
}

/**
 * The next deployment on the previous one's n8n: stopped, given the setting and started again (its
 * workflows stay active, its API key stays valid); only the receivers the deployment's cases use are its own.
 */
async function takeOver(from: Running, d: Deployment): Promise<Running> {
	await from.target.stop();
	from.target.setEnv(d.setting.env);
	await from.target.start({ command: from.command });
	return { ...from, d, list: from.list.filter((r) => !d.killsOnly || r.title === TITLES.default) };
}

async function startDeployment(d: Deployment, dir: string, log: (line: string) => void): Promise<Running> {
	let list: Receiver[] = [];
	const options = {
		owner: OWNER,
		n8nVersion: d.version,
		dir: join(dir, deploymentKey(d)),
		env: d.setting.env,
		log,
		workflows: ({ credential }: { credential: CredentialRef }) => {
			list = receivers(credential).filter((r) => !d.killsOnly || r.title === TITLES.default);
			return [...list.flatMap((r) => [r.workflow, ...(r.receivingThrough ?? [])]), ...(d.mode === 'regular' && !d.killsOnly ? RESTART_SEQUENCES.map((s) => restartWorkflow(s, credential)) : [])];
		},
		// Active again after every restart.
		activate: (workflows: Workflow[]) => workflows.map((w) => w.id),
	};
	if (d.mode === 'queue') {
		const stack = await startQueueStack(options);
		return { d, stack, list, target: stack.webhooks[0], command: 'webhook', log };
	}
	const stack = await startStack(options);
	return { d, stack, list, target: stack.n8n, command: 'start', log };
}

/** How many deployments run side by side (FAULTS_LANES, default 2): each n8n's work on a burst is bound by its one main thread. */
const LANES = lanesFromEnv('FAULTS_LANES', 2);

/**
 * The deployments in groups that run in one lane, one after another: a deployment that takes over the one
 * before it (deployments.ts) stays with it. The heaviest groups first (cases, queue mode's twice: five n8n
 * processes per burst), so the lanes end close together.
 */
function laneOrder(deployments: Deployment[]): Deployment[][] {
	const groups: Deployment[][] = [];
	for (const d of deployments) {
		const last = groups.at(-1);
		if (last && takesOver(last.at(-1)!, d)) last.push(d);
		else groups.push([d]);
	}
	const weight = (g: Deployment[]) => g.reduce((sum, d) => sum + caseNames(d).filter(selected).length * (d.mode === 'queue' ? 2 : 1), 0);
	return groups.map((g, i) => ({ g, i })).sort((a, b) => weight(b.g) - weight(a.g) || a.i - b.i).map((x) => x.g);
}

/** One lane's group of deployments: set up (or taken over), their cases, stopped. */
async function runGroup(group: Deployment[], report: Reporter, dir: string, log: (line: string) => void): Promise<void> {
	let previous: Running | undefined;
	for (const d of group) {
		const deploymentStarted = Date.now();
		const dlog = (line: string) => log(`${prefix(d)}: ${line}`);
		const processes = d.mode === 'queue' ? 'PostgreSQL, Redis, main + 2 webhook processes + 1 worker' : 'one process (SQLite)';
		const active = d.killsOnly ? 'the trigger active' : "the receivers and the restart cases' triggers active";
		const reused = previous && takesOver(previous.d, d) ? previous : undefined;
		const setUp = reused
			? `set-up, ${prefix(d)}: the n8n of ${prefix(reused.d)} restarted with ${d.setting.title}, ${active}`
			: `set-up, ${prefix(d)}: ${processes}, ${active}, the sandbox`;
		if (!reused) await previous?.stack.stop();
		previous = undefined;
		let running: Running | undefined;
		try {
			running = reused ? { ...(await takeOver(reused, d)), log: dlog } : await startDeployment(d, dir, dlog);
			report.check(setUp, true);
			await settingCheck(report, running, '');
			await networkCases(report, running);
			await restartCases(report, running);
			await burstCases(report, running);
			await settingCheck(report, running, ', also after its restarts');
			previous = running;
		} catch (error) {
			report.check(setUp, false, errorText(error));
			await (running ?? reused)?.stack.stop();
		} finally {
			dlog(`${formatElapsed(Date.now() - deploymentStarted)} (load average ${load()})`);
		}
	}
	await previous?.stack.stop();
}

async function main(): Promise<number> {
	const started = Date.now();
	const report = caseReporter();
	const log = (line: string) => process.stdout.write(`# ${line}\n`);
	const logs = logsFolder('faults', log);
	const { dir } = logs;
	const all = DEPLOYMENTS.flatMap(caseNames);
	const chosen = all.filter(selected);
	const size = (s: BurstSize) => `${s.events} after the ${s.killAfter}th`;
	log(`${chosen.length} of ${all.length} cases; bursts of events ${CONCURRENCY} at a time, the disruption right after the Nth 2xx answer: SIGKILL ${size(burstSize('SIGKILL', false))}, SIGSTOP ${size(burstSize('SIGSTOP', false))}, SIGTERM ${size(burstSize('SIGTERM', false))} (to the sharing trigger ${size(burstSize('SIGTERM', true))})`);
	if (chosen.length === 0) report.check(`E2E_ONLY=${process.env.E2E_ONLY ?? ''} selects a case`, false, `it matches none of:\n${all.join('\n')}`);

	const groups = laneOrder(DEPLOYMENTS.filter((d) => caseNames(d).some(selected)));
	const lanes = Math.min(LANES, groups.length);
	if (lanes > 1) log(`${lanes} deployments at a time (FAULTS_LANES=${LANES}): ${groups.map((g) => g.map(deploymentLabel).join(' → ')).join('; ')}`);
	await inLanes(groups, lanes, async (group) => await runGroup(group, report, dir, log));

	await stopAll();
	report.check(`the suite ran cases: ${report.cases()} of ${chosen.length} chosen`, report.cases() > 0 && report.cases() === chosen.length);
	const distinct = ledger.sent.size;
	report.check(`every event sent had an id of its own: ${distinct} ids for ${ledger.sends} events`, distinct === ledger.sends, 'cases sent events under ids already used, so one lookup would count for another');
	const lookedUp = [...ledger.sent].filter((id) => ledger.lookedUp.has(id)).length;
	report.check(`every event sent was looked up in n8n's executions: ${lookedUp} of ${distinct}`, distinct > 0 && lookedUp === distinct, `${distinct - lookedUp} events sent were never looked up`);
	log(`whole suite ${formatElapsed(Date.now() - started)} (load average ${load()})`);
	logs.close(report.totals().failed > 0);
	return closingLine(report);
}

runSuite(main);
