/**
 * Browser suite: n8n's editor in Debian's Chromium (driven by playwright-core) against a real n8n 2.41.1
 * with this package and the sandbox, step by step as a user would. One screenshot per step (and per view
 * where a step has several), kept in the suite's folder for review (printed at the start and the end).
 * Page errors and console errors that mention this package fail the suite.
 * Steps: test/ui/credential.ts, fields.ts (against the README's table), trigger.ts, and the ones below.
 * npm run test:ui  (UI_KEEP=1 keeps n8n's folder and logs even when everything passes; UI_ONLY=<regex> runs
 * only the matching steps, while working on them)
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { installCleanupHandlers, stopAll } from '../../tools/n8n/proc';
import { closingLine, createReporter, runSuite } from '../e2e/lib/report';
import { startStack, type Stack } from '../../tools/n8n/stack';
import { listenWorkflow } from '../e2e/checks/listen';
import { chain, manualTrigger, node, webhookIdFor } from '../../tools/n8n/workflow';
import { action, CREDENTIAL_TYPE, DEMO_CREDENTIAL_FIELDS, exampleWorkflow, TRIGGER_TYPE, webhookTestWorkflow } from '../../tools/n8n/workflows';
import { checkAgentToolPanel } from './agentTool';
import { answerPageWorkflows, checkAnswerPage, checkAnswerPageContrast, checkReopenedLink } from './answerPage';
import { byTestId as within, openWorkflow, WAIT } from './browser';
import { createCredential } from './credential';
import { checkFieldsAgainstReadme } from './fields';
import { listenForTestEvent } from './trigger';
import { refusalInPanel, refusedWhileListening, subtitles, templateList, templatePicked, templateRuns } from './issue23';
import { askRefusedInEditor, conversationUiWorkflows, OTHER_SECRET_CREDENTIAL } from './conversations';
import { askPanel, EXAMPLE_ID, exampleExecutionViews, WAITING_ASK_WORKFLOW, WAITING_N8N_WORKFLOW, waitingAskWorkflows, waitingOnCanvas } from './waitingAsk';
import { answeredByHint, creatorEntry, placeholderLabelsWhole, spacesOnlyError, testModeNotice, triggerNoticeAndSubtitle, unreachableCredential } from './issue33';

const OWNER = { email: 'owner@ui.example.com', password: 'Ui-owner-Passw0rd!', firstName: 'UI', lastName: 'Owner' };

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Distinct from their first 16 letters on: n8nId makes the credentials' ids from them.
const DRY_RUN_CREDENTIAL = 'Dry Run: Business Messaging (sandbox)';
const BUSINESS_CREDENTIAL = 'Acme Shop: Business Messaging (sandbox)';

async function main(): Promise<number> {
	const started = Date.now();
	const dir = mkdtempSync(join(tmpdir(), 'bm-ui-'));
	const shots = join(dir, 'screenshots');
	mkdirSync(shots, { recursive: true });
	process.stdout.write(`# screenshots in ${shots}\n`);
	const report = createReporter();
	let stack: Stack | undefined;
	let browser: Browser | undefined;
	installCleanupHandlers(async () => {
		await browser?.close().catch(() => undefined);
	});
	const finish = async () => {
		await browser?.close().catch(() => undefined);
		await stack?.stop();
		await stopAll();
		const { failed } = report.totals();
		process.stdout.write(`# whole suite ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
		// The screenshots stay for review; n8n's folder and the logs only when something failed (or UI_KEEP).
		if (failed === 0 && !process.env.UI_KEEP) {
			for (const entry of readdirSync(dir)) if (entry !== 'screenshots') rmSync(join(dir, entry), { recursive: true, force: true });
		}
		process.stdout.write(`# screenshots kept in ${shots}\n`);
		return closingLine(report);
	};
	try {
		stack = await startStack({
			dir,
			owner: OWNER,
			log: (line) => process.stdout.write(`# ${line}\n`),
			extraCredentials: { [DRY_RUN_CREDENTIAL]: { testMode: 'dryRun' }, [BUSINESS_CREDENTIAL]: DEMO_CREDENTIAL_FIELDS, [OTHER_SECRET_CREDENTIAL]: { webhookSecret: 'another-dashboard-secret' } },
			workflows: ({ credential, extraCredentials }) => [
				chain('uiSend', 'UI: send text', [
					manualTrigger(),
					action('Send Text', credential, { resource: 'message', operation: 'sendText', phone: '+4915112345678', text: 'Hello from the editor' }),
				]),
				chain('uiTemplate', 'UI: get a template', [
					manualTrigger(),
					action('Get Template', credential, { resource: 'template', operation: 'get', templateId: { __rl: true, mode: 'list', value: '' } }),
				]),
				chain('uiAdd', 'UI: a trigger to add the node after', [manualTrigger()]),
				chain('uiBadPhone', 'UI: invalid phone', [
					manualTrigger(),
					action('Send Text', credential, { resource: 'message', operation: 'sendText', phone: '12', text: 'hi' }),
				]),
				chain('uiFields', 'UI: every resource and operation', [
					manualTrigger(),
					action('Business Messaging', credential, { resource: 'message', operation: 'sendText' }),
				]),
				listenWorkflow(credential),
				webhookTestWorkflow(credential),
				exampleWorkflow('support-bot.json', 'uiSupportBot', { [CREDENTIAL_TYPE]: credential }),
				chain('uiFromTemplate', 'UI: send from a template', [
					manualTrigger(),
					action('Send From Template', credential, { resource: 'message', operation: 'sendText', phone: '+4915112345678', textSource: 'template', templateId: { __rl: true, mode: 'list', value: '' } }),
				]),
				...(['', 'Ann'] as const).map((value) =>
					chain(`uiTemplateRun${value || 'Empty'}`, `UI: send from a template, Body {{1}} ${value ? 'filled' : 'empty'}`, [
						manualTrigger(),
						action('Send From Template', credential, {
							resource: 'message',
							operation: 'sendText',
							phone: '+4915112345678',
							textSource: 'template',
							templateId: { __rl: true, mode: 'id', value: '7' },
							placeholderValues: { mappingMode: 'defineBelow', value: { 'Body {{1}}': value }, matchingColumns: [], schema: [], attemptToConvertTypes: false, convertFieldsToString: false },
						}),
					]),
				),
				chain('uiSubtitle', 'UI: a Send and Wait node on the canvas', [
					manualTrigger(),
					action('Ask for Approval', credential, { resource: 'message', operation: 'sendAndWait', phone: '+4915112345678', message: 'Ship order #1042 today?' }),
				]),
				...answerPageWorkflows(extraCredentials[BUSINESS_CREDENTIAL]),
				chain('uiSendDryRun', 'UI: send text, Dry Run credential', [
					manualTrigger(),
					action('Send Text', extraCredentials[DRY_RUN_CREDENTIAL], { resource: 'message', operation: 'sendText', phone: '+4915112345678', text: 'Hello from the editor' }),
				]),
				chain('uiSpaces', 'UI: send text of only spaces', [
					manualTrigger(),
					action('Send Text', credential, { resource: 'message', operation: 'sendText', phone: '+4915112345678', text: '   ' }),
				]),
				chain('uiTwoEvents', 'UI: a trigger for two events', [
					node('Two Events', TRIGGER_TYPE, 2, { events: ['message.received', 'order.created'], options: {} }, { credentials: { [CREDENTIAL_TYPE]: credential }, webhookId: webhookIdFor('ui-two-events') }),
				]),
				...conversationUiWorkflows(credential, extraCredentials[OTHER_SECRET_CREDENTIAL]),
				...waitingAskWorkflows(credential),
			],
			// Send Test Event runs on request through its Webhook node; the trigger that resumes waiting runs; the
			// answer page's questions and the order-confirmation example start through their Webhook nodes.
			activate: (workflows) => [
				workflows[6].id,
				...workflows.filter((w) => w.name.startsWith('E2E: conversations trigger') || w.name.includes('send and wait') || w.id === EXAMPLE_ID).map((w) => w.id),
			],
		});
	} catch (error) {
		report.result('set-up: n8n with the package and the sandbox', false, String(error));
		return await finish();
	}
	const { n8n } = stack;
	browser = await chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	const page = await context.newPage();
	page.setDefaultTimeout(WAIT);
	const packageErrors: string[] = [];
	const ours = (text: string) => /business ?messaging/i.test(text);
	page.on('pageerror', (error) => {
		if (ours(`${error.message} ${error.stack ?? ''}`)) packageErrors.push(`page error: ${error.message}`);
	});
	page.on('console', (message) => {
		if (message.type() === 'error' && ours(message.text())) packageErrors.push(`console: ${message.text()}`);
	});
	let step = 0;
	// UI_ONLY=<regex>: only the steps whose names match (and logging in), while working on one of them.
	const only = process.env.UI_ONLY ? new RegExp(process.env.UI_ONLY, 'i') : undefined;
	const run = async (name: string, fn: (page: Page) => Promise<void>) => {
		if (only && step > 0 && !only.test(name)) return void step++;
		const file = join(shots, `${String(++step).padStart(2, '0')}-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.png`);
		const stepStarted = Date.now();
		await report.run({
			name,
			timeoutMs: 150_000,
			fn: async () => {
				try {
					await fn(page);
				} finally {
					await page.screenshot({ path: file }).catch(() => undefined);
				}
				if (packageErrors.length) throw new Error(packageErrors.splice(0).join('\n'));
			},
		});
		process.stdout.write(`# step ${step}: ${((Date.now() - stepStarted) / 1000).toFixed(1)} s\n`);
	};
	const byTestId = (id: string) => within(page, id);
	/** A further screenshot of the current step. */
	const shot = (name: string) => join(shots, `${String(step).padStart(2, '0')}-${name}.png`);

	await run('log in', async () => {
		await page.goto(`${n8n.baseUrl}/signin`);
		const form = byTestId('signin-form');
		await form.locator('input[type="email"], input[name="emailOrLdapLoginId"]').first().fill(OWNER.email);
		await form.locator('input[type="password"]').fill(OWNER.password);
		await byTestId('form-submit-button').click();
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
	});

	await run('add Business Messaging from the node creator by typing its name', async () => {
		// A workflow with a trigger: the node creator then offers actions (on an empty one, triggers only).
		await openWorkflow(page, n8n.baseUrl, stack!.workflows[2]);
		await byTestId('node-creator-plus-button').first().click();
		await byTestId('node-creator-search-bar').fill('Business Messaging');
		// n8n lists the action node and the trigger as one entry; its panel has Triggers and Actions sections.
		await byTestId('node-creator-item-name').filter({ hasText: /^Business Messaging$/ }).first().click();
		const sendText = page.getByText('Send a text message', { exact: true }).filter({ visible: true }).first();
		if (!(await sendText.isVisible())) await page.getByText(/^Actions \(\d+\)$/).first().click();
		// Choosing an action opens the node's panel with that operation's fields.
		await sendText.click();
		const panel = byTestId('ndv');
		for (const field of ['Credential', 'Resource', 'Operation', 'Recipient Phone', 'Text']) {
			await panel.getByText(field, { exact: true }).filter({ visible: true }).first().waitFor();
		}
	});

	await run('create the credential: Test succeeds; a wrong client secret shows the service’s 401 in words (no ".."); a Base URL ending /api/v9 names the unknown path (404)', async () => {
		await createCredential(page, n8n.baseUrl, stack!.sandbox);
	});

	await run('every resource and operation shows the fields the README lists', async () => {
		await openWorkflow(page, n8n.baseUrl, stack!.workflows[4]);
		await byTestId('canvas-node').filter({ hasText: 'Business Messaging' }).first().dblclick();
		const problems = await checkFieldsAgainstReadme(page, byTestId('node-parameters'));
		if (problems.length) throw new Error(problems.join('\n'));
	});

	await run('trigger panel: Production and Test URLs; listening receives the sandbox’s signed test event', async () => {
		await listenForTestEvent(page, stack!, stack!.workflows[5], stack!.workflows[6]);
	});

	const send = stack.workflows[0];
	await run('execute a workflow from the editor and read the result in the output panel', async () => {
		await openWorkflow(page, n8n.baseUrl, send);
		await byTestId('execute-workflow-button').click();
		await byTestId('canvas-node-status-success').first().waitFor();
		await byTestId('canvas-node').filter({ hasText: 'Send Text' }).first().dblclick();
		const output = byTestId('ndv');
		// n8n remembers the last view (the trigger step used JSON); the table shows each value in its own cell.
		await within(byTestId('output-panel'), 'radio-button-table').click();
		await output.getByText(/^wamid\.\d+$/).filter({ visible: true }).first().waitFor();
		await output.getByText('+4915112345678', { exact: true }).filter({ visible: true }).first().waitFor();
	});

	await run('Template → Get: the searchable list shows sandbox templates for a search term', async () => {
		await openWorkflow(page, n8n.baseUrl, stack!.workflows[1]);
		await byTestId('canvas-node').filter({ hasText: 'Get Template' }).first().dblclick();
		await byTestId('rlc-input').first().click();
		await byTestId('rlc-item').filter({ hasText: 'welcome_' }).filter({ visible: true }).first().waitFor();
		await page.getByPlaceholder('Search...').filter({ visible: true }).first().fill('shipping');
		// The sandbox's search answers: only matching templates stay listed.
		await byTestId('rlc-item').filter({ hasText: 'shipping_notice' }).filter({ visible: true }).first().waitFor();
		await byTestId('rlc-item').filter({ hasText: 'welcome_' }).filter({ visible: true }).first().waitFor({ state: 'hidden' });
	});

	await run('as an AI agent’s tool (the shipped support bot): Allowed Recipients, fields the model fills, no Send and Wait', async () => {
		await checkAgentToolPanel(page, n8n.baseUrl, stack!.workflows[7]);
	});

	const named = (name: string) => stack!.workflows.find((w) => w.name === name)!;
	await run('a delivery refused while listening (Execute workflow): the trigger fails, the node after it does not run', async () => {
		await refusedWhileListening(page, stack!, stack!.workflows[5]);
	});
	await run('the refused delivery in the trigger’s panel: the error names the refusal and the failed check', async () => {
		await refusalInPanel(page, stack!.workflows[5]);
	});
	await run('Send Text → From Template: the picker lists how many values each template needs and marks templates that cannot be sent', async () => {
		await templateList(page, n8n.baseUrl, named('UI: send from a template'));
	});
	await run('Send Text → From Template: the chosen name fits its field; Values show the template’s sample', async () => {
		await templatePicked(page);
	});
	await run('Send Text → From Template: an empty value’s error names Body {{1}}; a send shows the body it sent', async () => {
		await templateRuns(page, n8n.baseUrl, named('UI: send from a template, Body {{1}} empty'), named('UI: send from a template, Body {{1}} filled'));
	});
	await run('the canvas subtitle of Send and Wait reads as its action', async () => {
		await subtitles(page, n8n.baseUrl, named('UI: a Send and Wait node on the canvas'));
	});

	await run('Test Mode off: the send operation’s notice says where Test Mode is set and what each setting does, not that it is on; a Dry Run run’s note says so', async () => {
		await testModeNotice(page, n8n, send, named('UI: send text, Dry Run credential'), shot);
	});
	await run('the trigger: its notice takes the Test URL first, then the Production URL, as the README; its canvas subtitle names the events', async () => {
		await triggerNoticeAndSubtitle(page, n8n.baseUrl, stack!.workflows[5], named('UI: a trigger for two events'), shot);
	});
	await run('the node creator’s entry carries the action node’s description', async () => {
		await creatorEntry(page, n8n, stack!.workflows[2]);
	});
	await run('Send Text → From Template at the default panel width: every Values label and the chosen template’s name show whole', async () => {
		const seen = await placeholderLabelsWhole(page, n8n.baseUrl, named('UI: send from a template'), shot);
		process.stdout.write(`# shown whole: ${seen.join(' | ')}\n`);
	});
	await run('Send and Wait’s Recipient Phone says whose name the answer carries (answeredBy)', async () => {
		await answeredByHint(page, n8n.baseUrl, named('UI: a Send and Wait node on the canvas'));
	});
	await run('Text of only spaces: the error says so and what to do', async () => {
		await spacesOnlyError(page, n8n.baseUrl, named('UI: send text of only spaces'));
	});
	await run('the credential’s Test with nothing listening at the Base URL: the details say what to check, not only ECONNREFUSED', async () => {
		await unreachableCredential(page, n8n.baseUrl, stack!.sandbox);
	});

	const badPhone = stack.workflows[3];
	await run('an invalid phone shows an error naming the field', async () => {
		await openWorkflow(page, n8n.baseUrl, badPhone);
		await byTestId('execute-workflow-button').click();
		await page.getByText('Recipient Phone', { exact: false }).first().waitFor();
		await page.getByText('is not a phone number', { exact: false }).first().waitFor();
	});

	await run('Ask and Wait for Chat Reply’s panel: one sender field, and the first fields in view under the notice', async () => {
		await askPanel(page, n8n.baseUrl, named('UI: ask and wait for chat reply'), shot);
	});
	await run('a waiting Ask and Wait for Chat Reply on the canvas is drawn as n8n’s own waiting Wait node (no error, no warning); OUTPUT’s tick is n8n’s', async () => {
		await waitingOnCanvas(page, n8n.baseUrl, named(WAITING_ASK_WORKFLOW), named(WAITING_N8N_WORKFLOW), shot);
	});
	await run('the order-confirmation example started as in the demo: the execution view shows no changed parameters while it waits and after "yes"; question.from is never null', async () => {
		await exampleExecutionViews(page, stack!, stack!.workflows.find((w) => w.id === EXAMPLE_ID)!, shot);
	});

	const asking = named('UI: ask and wait for chat reply');
	await run('Ask and Wait for Chat Reply whose trigger has another Webhook Secret: the panel says what to set up, nothing is sent', async () => {
		await askRefusedInEditor(page, stack!, asking, 'The Business Messaging Trigger that shares events uses another Webhook Secret', /need the same Webhook Secret .*Nothing was sent\./);
	});
	await run('Ask and Wait for Chat Reply with no active trigger resuming waiting runs: the panel says what to set up and where, nothing is sent', async () => {
		await n8n.deactivate(named('E2E: conversations trigger (Resume Waiting Runs)').id);
		await askRefusedInEditor(page, stack!, asking, 'No Business Messaging Trigger on this n8n shares your service’s events', /turn on Share With Other Workflows, and activate \(publish\) the workflow\. Nothing was sent\./);
	});

	await run('Send and Wait answer page on a phone: the question and who asks (Business Name, or Asked By) above the buttons; after Approve, what was approved', async () => {
		await checkAnswerPage(browser!, stack!, shot);
	});
	await run('the answer page’s contrast at 320 px in dark and light mode meets WCAG 2.2 AA (text 4.5:1, control edges 3:1)', async () => {
		for (const line of await checkAnswerPageContrast(browser!, stack!, shot)) process.stdout.write(`# contrast ${line}\n`);
	});
	await run('an answered link opened again at 320 px in dark mode: the package’s page while the run waits for the next question; n8n’s page once it finished', async () => {
		await checkReopenedLink(browser!, stack!, shot);
	});

	return await finish();
}

runSuite(main);
