/**
 * End-to-end suite: this package in a real n8n against the sandbox, driven over HTTP.
 * npm run test:e2e  (N8N_VERSION=… picks the n8n version, default 2.41.1; E2E_LANES=1 runs every check on one n8n; E2E_SMOKE=1 runs only the smoke
 * checks; E2E_ONLY=<regex> only the checks whose names match; E2E_KEEP=1 keeps the temp folder with the logs even when everything passes)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALLOW_DUPLICATES_WORKFLOW, runTriggerChecks, upgradedTriggerWorkflows } from './checks/trigger';
import { runActionChecks } from './checks/actions';
import { listenChecks, listenWorkflow } from './checks/listen';
import { activatedBySharingChecks, SECOND_ACCOUNT, SHARING_WORKFLOW, sharingChecks, sharingWorkflows } from './checks/sharing';
import { updateCheck } from './checks/update';
import { sendAndWaitChecks, sendAndWaitWorkflows } from './checks/sendAndWait';
import { conversationChecks, conversationRestartCheck, conversationStallCheck, conversationWorkflows, orderConfirmationChecks, orderConfirmationWorkflows } from './checks/conversations';
import { HITL_SCENARIOS, hitlChecks, hitlWorkflow } from './checks/hitl';
import { bulkRecipients, DRY_RUN_CREDENTIAL, paymentReminderChecks, statusBulkCheck, statusLimitAcrossRestart, statusRestartRider, statusWaitChecks, statusWaitWorkflows } from './checks/statusWaits';
import { executionListChecks, stillRunningWorkflow } from './checks/executionLists';
import { everyExecution } from '../../bench/lib/n8n-runs';
import { AGENT_SCENARIOS, AGENT_VERSIONS, agentChecks, ORDERS_EXAMPLE, SUPPORT_BOT_EXAMPLE, supportBotChecks } from './checks/agent';
import { ScriptedModel } from './lib/model';
import {
	DEFAULT_HOOK,
	PACED_HOOK,
	PACED_RATE,
	REPEATS_HOOK,
	RETRY_AFTER_REQUEST_HOOK,
	RETRY_HOOK,
	RETRY_ON_FAIL_HOOK,
	sendingChecks,
	TEST_MODE_CREDENTIAL,
	TEST_MODE_HOOK,
	TEST_MODE_REPEATS_HOOK,
	TEST_RECIPIENT,
	TEMPLATE,
	TEMPLATE_RECIPIENT,
	TEMPLATE_VALUES,
} from './checks/sending';
import { type Check, closingLine, createReporter, type Reporter, runSuite } from './lib/report';
import { settingChecks } from './lib/setting';
import { ENGINE_SETTINGS, type EngineSetting, N8N_DEFAULTS } from '../../tools/n8n/settings';
import { lanesFromEnv } from '../../tools/n8n/lanes';
import { logsFolder } from '../../tools/n8n/logs';
import { stopAll } from '../../tools/n8n/proc';
import { N8N_VERSION, type N8n, n8nId } from '../../tools/n8n/n8n';
import { startStack, type Stack, timingsLine } from '../../tools/n8n/stack';
import { webhookIdFor } from '../../tools/n8n/workflow';
import {
	bareTriggerWorkflow,
	TRIGGER_TYPE,
	bulkTextAfterRequestWorkflow,
	bulkTextWorkflow,
	contactWorkflow,
	httpRequestWorkflow,
	mediaWorkflow,
	missingTemplateWorkflow,
	orderWorkflow,
	replyWorkflow,
	templateSendWorkflow,
	templateWorkflow,
	textWorkflow,
	triggerProductionPath,
	webhookTestWorkflow,
	agentWorkflow,
	CREDENTIAL_TYPE,
	exampleWorkflow,
	OPENAI_CREDENTIAL_TYPE,
} from '../../tools/n8n/workflows';

export const OWNER = {
	email: 'owner@e2e.example.com',
	password: 'E2e-owner-Passw0rd!',
	firstName: 'E2E',
	lastName: 'Owner',
};

const OPENAI_CREDENTIAL = 'OpenAI (scripted model)';

export const TRIGGER_WEBHOOK_ID = webhookIdFor('e2e-trigger');
const SUPPORT_BOT_WEBHOOK_ID = webhookIdFor('e2e-support-bot');
/** Retry delays (1 min, 5 min, …) divided by this: the first retry comes after 1 s. */
const TIME_SCALE = 60;

/** The AI Agent versions of AGENT_VERSIONS that this n8n has (none in a smoke run). */
function agentVersions(n8n: N8n, smoke: boolean): number[] {
	return smoke ? [] : AGENT_VERSIONS.filter((version) => n8n.features.agentVersions.includes(version));
}

/** n8n's human-review tool made from this node, with AI Agent 3.1 (not in a smoke run). */
function hasHitlTool(n8n: N8n, smoke: boolean): boolean {
	return !smoke && n8n.features.hitlTools && n8n.features.agentVersions.includes(3.1);
}

/** The shipped support bot runs on every version that has its AI Agent version, smoke runs included (it is what 1.x users import). */
function hasSupportBotAgent(n8n: N8n): boolean {
	return n8n.features.agentVersions.includes(SUPPORT_BOT_EXAMPLE.agentVersion);
}

/**
 * The checks a smoke run keeps: the package loads, one action, genuine and forged deliveries, duplicates
 * at once and across a restart (they rest on how each n8n answers and saves), forged Send and Wait links
 * (n8n before 2.41 checks their signature only when the node asks) and an answered link opened again (n8n
 * answers it), the credential test's messages (n8n passes on the package's), retry chains (they rest on
 * what n8n copies into a retry), the shipped support bot, chat replies (resumed, forged, across a SIGKILL and a
 * SIGTERM, and in a stall: n8n before 2.41 answers a resume before it writes it), status waits (read resumes,
 * the limit, a forged status, out of order and twice, before the wait, Test Mode, the payment-reminder example:
 * they rest on n8n's waiting webhook and its wait, and on when n8n saves the trigger's static data; 500 recipients
 * under the recommended setting: they rest on how fast n8n takes webhook requests), the suites' execution lists
 * seeing a run still running (they rest on what n8n's public API lists), no secret leaks.
 */
const SMOKE_CHECKS =
	/sharing:|loaded the package|send text|handshake|three signed events|forged event|eight copies|after an n8n restart|earlier releases|forged, stripped or altered link|\$now|credential test|Retry chain|support-bot example|no secret appears|conversations: a chat reply resumes|conversations: a forged|while n8n starts|just before SIGKILL|n8n stalls|status waits, n8n restarted|status waits: (Limit Wait Time|Wait for Status = Read|a forged status|statuses out of order|a fast service|Test Mode|the message never read|500 recipients)|example \(payment reminder\)|execution lists:/;

/**
 * The suite's two lanes, each on an n8n of its own, side by side (E2E_LANES=1: one n8n, every check in turn).
 * Much of the suite waits (n8n's restarts, limits, the service's retries): the restarts lane holds the trigger's
 * checks, the kills and the stall, and last, once the other lane ended, the bulk status wait; the other lane the rest.
 */
type Lane = 'restarts' | 'others';
const TWO_LANES = lanesFromEnv('E2E_LANES', 2) >= 2;

/** E2E_ONLY=<regex>: only the checks whose names match (while working on some). */
const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY, 'i') : undefined;

/**
 * The suite against one n8n version, reporting into `report` (names prefixed with `prefix`). `smoke` keeps
 * only SMOKE_CHECKS. Logs stay in the temp folder when something failed or E2E_KEEP is set.
 */
export async function e2eSuite(options: {
	report: Reporter;
	n8nVersion?: string;
	smoke?: boolean;
	prefix?: string;
	/** An expression-engine setting for n8n (its defaults when not given). */
	setting?: EngineSetting;
	/** Only this lane's checks, on an n8n of its own (E2E_LANES); every check when not given. */
	lane?: Lane;
	/**
	 * The restarts lane's last check, the bulk status wait, starts once this settles (the other lane's end): its
	 * 50 statuses at once take n8n's defaults past the service's 10 s on a loaded machine, and the check then waits
	 * for the service's retries a minute or six minutes later.
	 */
	bulkAfter?: Promise<void>;
}): Promise<void> {
	const { report, smoke = false, prefix = '', lane } = options;
	const started = Date.now();
	const laneTag = lane ? `[${lane}] ` : '';
	const say = (line: string) => process.stdout.write(`# ${prefix}${laneTag}${line}\n`);
	const logs = logsFolder('e2e', say);
	const { dir } = logs;
	const failedBefore = report.totals().failed;
	let stack: Stack | undefined;
	const runCheck = async (check: Check) => {
		if (smoke && !SMOKE_CHECKS.test(check.name)) return;
		if (ONLY && !ONLY.test(check.name)) return;
		await report.run({ ...check, name: `${prefix}${check.name}` });
	};
	const mediaFile = 'pixel.png';
	const model = new ScriptedModel({ ...AGENT_SCENARIOS, ...HITL_SCENARIOS });
	try {
		await model.start();
		stack = await startStack({
			dir,
			n8nVersion: options.n8nVersion,
			env: options.setting?.env,
			owner: OWNER,
			timeScale: TIME_SCALE,
			log: say,
			extraCredentials: { [TEST_MODE_CREDENTIAL]: { testMode: 'redirect', testRecipient: TEST_RECIPIENT }, [DRY_RUN_CREDENTIAL]: { testMode: 'dryRun' }, [SECOND_ACCOUNT.credential]: { webhookSecret: SECOND_ACCOUNT.webhookSecret } },
			otherCredentials: [{ name: OPENAI_CREDENTIAL, type: OPENAI_CREDENTIAL_TYPE, data: { apiKey: 'sk-scripted', url: model.url } }],
			workflows: ({ sandbox, credential, n8n, extraCredentials }) => [
				orderWorkflow(credential),
				templateWorkflow(credential),
				textWorkflow(credential),
				mediaWorkflow(credential, join(n8n.filesDir, mediaFile)),
				contactWorkflow(credential),
				webhookTestWorkflow(credential),
				missingTemplateWorkflow(credential),
				httpRequestWorkflow(credential, sandbox.url, sandbox.credentials.phoneNumberId),
				...sendAndWaitWorkflows(credential),
				...conversationWorkflows(credential),
				...statusWaitWorkflows(credential, { dryRun: extraCredentials[DRY_RUN_CREDENTIAL], redirect: extraCredentials[TEST_MODE_CREDENTIAL] }),
				...sharingWorkflows(credential, extraCredentials[SECOND_ACCOUNT.credential]),
				...orderConfirmationWorkflows(credential),
				listenWorkflow(credential),
				stillRunningWorkflow(),
				bulkTextWorkflow('e2eBulkRetry', credential, RETRY_HOOK, { parallelRequests: 1 }),
				bulkTextAfterRequestWorkflow(credential, sandbox.url, sandbox.credentials.phoneNumberId, RETRY_AFTER_REQUEST_HOOK),
				bulkTextWorkflow('e2eBulkRetryOnFail', credential, RETRY_ON_FAIL_HOOK, { parallelRequests: 1 }, {
					retryOnFail: true,
					maxTries: 2,
					waitBetweenTries: 0,
				}),
				bulkTextWorkflow('e2eBulkRepeats', credential, REPEATS_HOOK, {
					skipRepeatsWithin: 60,
					repeatKey: '={{ $json.order_id }}-shipped',
				}),
				bulkTextWorkflow('e2eBulkDefault', credential, DEFAULT_HOOK),
				bulkTextWorkflow('e2eBulkPaced', credential, PACED_HOOK, { maxMessagesPerSecond: PACED_RATE }),
				templateSendWorkflow(credential, TEMPLATE.id, TEMPLATE_VALUES, TEMPLATE_RECIPIENT),
				bulkTextWorkflow('e2eBulkTestMode', extraCredentials[TEST_MODE_CREDENTIAL], TEST_MODE_HOOK),
				bulkTextWorkflow('e2eBulkTestModeRepeats', extraCredentials[TEST_MODE_CREDENTIAL], TEST_MODE_REPEATS_HOOK, {
					skipRepeatsWithin: 60,
					repeatKey: '={{ $json.order_id }}-shipped',
				}),
				...agentVersions(n8n, smoke).map((version) => agentWorkflow(credential, extraCredentials[OPENAI_CREDENTIAL], version)),
				...(hasHitlTool(n8n, smoke) ? [hitlWorkflow(credential, extraCredentials[OPENAI_CREDENTIAL])] : []),
				...(hasSupportBotAgent(n8n)
					? [
							exampleWorkflow(
								SUPPORT_BOT_EXAMPLE.file,
								'e2eSupportBot',
								{ [CREDENTIAL_TYPE]: credential, [OPENAI_CREDENTIAL_TYPE]: extraCredentials[OPENAI_CREDENTIAL] },
								SUPPORT_BOT_WEBHOOK_ID,
							),
							exampleWorkflow(ORDERS_EXAMPLE.file, ORDERS_EXAMPLE.key, { [CREDENTIAL_TYPE]: credential }, webhookIdFor('e2e-orders-example')),
						]
					: []),
				bareTriggerWorkflow(credential, webhookIdFor('e2e-allow-duplicates'), { allowDuplicates: true }, 'e2eAllowDuplicates', ALLOW_DUPLICATES_WORKFLOW),
				...upgradedTriggerWorkflows(credential),
				bareTriggerWorkflow(credential, webhookIdFor('e2e-adversarial')),
				replyWorkflow(credential, { webhookId: TRIGGER_WEBHOOK_ID }),
			],
			// The trigger workflows, except those that receive through the sharing one (activated once the sharing
			// checks run) and the example pair (its own sharing trigger, only in its check: one trigger per n8n shares);
			// and the workflows that start with n8n's Webhook node (the server runs them on request).
			activate: (workflows) =>
				workflows
					.filter((w) =>
						w.nodes.some((n) => n.type === TRIGGER_TYPE)
							? !activatedBySharingChecks(w) && ![n8nId('e2eSupportBot'), n8nId(ORDERS_EXAMPLE.key)].includes(w.id)
							: w.nodes.some((n) => n.type === 'n8n-nodes-base.webhook'),
					)
					.map((w) => w.id),
		});
		report.result(`${prefix}${laneTag}set-up: n8n with the package, the sandbox, credential and workflows`, true);
	} catch (error) {
		report.result(`${prefix}${laneTag}set-up: n8n with the package, the sandbox, credential and workflows`, false, String(error));
		await finish(report, logs, say, started, failedBefore, stack, model);
		return;
	}

	for (const check of settingChecks(options.setting ?? N8N_DEFAULTS, () => [stack!.n8n])) await report.run({ ...check, name: `${prefix}${laneTag}${check.name}` });
	const waitChecks = sendAndWaitChecks(stack);
	const chatChecks = conversationChecks(stack);
	const exampleChecks = orderConfirmationChecks(stack);
	const statusChecks = statusWaitChecks(stack);
	const paymentChecks = paymentReminderChecks(stack);
	// A status wait's limit rides on the trigger checks' restart: after it the sharing trigger gets a customer's message, no status.
	const triggerChecks = await runTriggerChecks(stack, TRIGGER_WEBHOOK_ID, say);
	const restartAt = triggerChecks.findIndex((check) => /after an n8n restart a repeat of each starts nothing/.test(check.name));
	// Renamed or gone, the status checks would silently not run: the suite stops here instead.
	if (restartAt < 0) throw new Error('the trigger checks have no restart check for the status wait across a restart to ride on');
	triggerChecks.splice(restartAt, 1, ...statusLimitAcrossRestart(stack, triggerChecks[restartAt], say));
	const triggerListenChecks = listenChecks(stack, TRIGGER_WEBHOOK_ID);
	const restartCheck = conversationRestartCheck(stack, say, [statusRestartRider(stack, say)]);
	const stallCheck = conversationStallCheck(stack, say);
	const bulkCheck = statusBulkCheck(stack, bulkRecipients(options.setting), say);
	// The restarts lane: the trigger's checks (their restarts, the status wait across one), the kills and the
	// stall, then the bulk status wait alone (bulkAfter); the other lane everything else, each in the order below.
	const inRestartsLane = new Set<Check>([...triggerChecks, ...triggerListenChecks, restartCheck, stallCheck, bulkCheck]);
	const inLane = (check: Check) => !lane || (lane === 'restarts') === inRestartsLane.has(check);
	const checks: Check[] = [
		// The timeout waits start first and are checked last: n8n looks for due waits once a minute.
		waitChecks[0],
		chatChecks[0],
		statusChecks[0],
		...(await runActionChecks(stack, mediaFile)),
		...executionListChecks(stack),
		...waitChecks.slice(1, -1),
		...sendingChecks(stack),
		...agentChecks(stack, model, agentVersions(stack.n8n, smoke)),
		...(hasHitlTool(stack.n8n, smoke) ? hitlChecks(stack, model) : []),
		...(hasSupportBotAgent(stack.n8n) ? supportBotChecks(stack, model, SUPPORT_BOT_WEBHOOK_ID, stack.workflows.find((w) => w.name === SHARING_WORKFLOW)!.id) : []),
		// Before any restart (the trigger checks' own, in the one lane of the versions smoke): the trigger keeps the
		// limit in memory, and on a machine slow enough n8n was restarted before it handed the run on (n8n 2.3.6,
		// docs/results/2026-12-03-npm-test-e7ba3a3-failed.txt).
		...statusChecks.slice(-1),
		...triggerChecks,
		...triggerListenChecks,
		// Started here, not first: the examples' no-reply and not-read branches send a message when n8n ends the
		// wait (within a minute of its limit), which the checks above, counting what the sandbox got, must not see.
		exampleChecks[0],
		paymentChecks[0],
		...chatChecks.slice(1, -2),
		...statusChecks.slice(1, -1),
		...(lane ? [] : [bulkCheck]),
		exampleChecks[1],
		paymentChecks[1],
		// Message statuses ride on the replies' kills: no restarts of their own.
		restartCheck,
		stallCheck,
		...waitChecks.slice(-1),
		...chatChecks.slice(-2),
		exampleChecks[2],
		paymentChecks[2],
		// Before the sharing checks: they then run on the state the earlier build left.
		updateCheck(stack, TRIGGER_WEBHOOK_ID, () => stack!.workflows.find((w) => w.nodes.some((n) => n.webhookId === TRIGGER_WEBHOOK_ID))!.id, say),
		// Last: they deactivate and restart the sharing (conversations) trigger's workflow.
		...sharingChecks(stack, { deliverTo: [stack.n8n], webhookUrl: `${stack.n8n.baseUrl}${triggerProductionPath(TRIGGER_WEBHOOK_ID)}`, log: say }),
		...(lane ? [bulkCheck] : []),
	];
	for (const check of checks.filter(inLane)) {
		if (check === bulkCheck && options.bulkAfter) {
			// For the log: how long this lane waited for the other one (the suite's wall time is the other lane's plus the bulk check).
			const waitedFrom = Date.now();
			await options.bulkAfter;
			say(`bulk status wait: started ${((Date.now() - waitedFrom) / 1000).toFixed(1)} s after this lane's other checks ended (the other lane's end)`);
		}
		await runCheck(check);
	}

	await runCheck({
		name: `${laneTag}no secret appears in n8n’s log or in any execution’s data`,
		fn: async () => {
			const secrets = [stack!.sandbox.credentials.clientSecret, stack!.sandbox.credentials.webhookSecret];
			// Every page, running ones too: the newest 250 alone left the suite's earlier executions unread.
			const all = await everyExecution(stack!.n8n);
			say(`secrets looked for in the data of ${all.length} executions`);
			const haystacks = [
				['n8n log', existsSync(stack!.n8n.logFile) ? readFileSync(stack!.n8n.logFile, 'utf8') : ''],
				['executions', JSON.stringify(all)],
			];
			for (const [where, text] of haystacks) {
				for (const secret of secrets) if (text.includes(secret)) throw new Error(`a secret appears in ${where}`);
			}
		},
	});
	await finish(report, logs, say, started, failedBefore, stack, model);
}

async function finish(
	report: ReturnType<typeof createReporter>,
	logs: ReturnType<typeof logsFolder>,
	say: (line: string) => void,
	started: number,
	failedBefore: number,
	stack?: Stack,
	model?: ScriptedModel,
): Promise<void> {
	await stack?.stop();
	await model?.stop();
	// What n8n sent the model, tool results included: for reading when a check fails (kept with the logs).
	if (model) writeFileSync(join(logs.dir, 'model-requests.json'), JSON.stringify(model.requests, null, 1));
	if (stack) say(timingsLine(stack.timings, started));
	logs.close(report.totals().failed > failedBefore);
}

async function main(): Promise<number> {
	process.stdout.write(`# n8n ${N8N_VERSION}${process.env.E2E_SMOKE ? ' (smoke)' : ''}\n`);
	// E2E_SETTING=lazy (or another key of ENGINE_SETTINGS): the suite under that expression-engine setting.
	const setting = ENGINE_SETTINGS.find((s) => s.key === process.env.E2E_SETTING);
	const smoke = Boolean(process.env.E2E_SMOKE);
	// One lane (every check), or the two with a reporter each: the restarts lane's bulk status wait starts once
	// the other lane ended.
	const reports: Reporter[] = [];
	const suite = async (lane?: Lane, bulkAfter?: Promise<void>) => {
		const report = createReporter();
		reports.push(report);
		await e2eSuite({ report, smoke, setting, lane, bulkAfter });
	};
	if (!TWO_LANES) await suite();
	else {
		const others = suite('others');
		await Promise.all([others, suite('restarts', others)]);
	}
	await stopAll();
	return closingLine(...reports);
}

if (require.main === module) {
	runSuite(main);
}
