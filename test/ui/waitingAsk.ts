/**
 * Ask and Wait for Chat Reply as a user sees it (issue 51, part 4): its panel (one sender field, the first
 * fields in view under one short notice); a waiting run on the canvas beside n8n's own Wait node (the same
 * outline: n8n's, docs/conversations.md); the shipped order-confirmation example started as the demo starts it,
 * in the execution view while it waits and once the customer answered (no "Node parameters have changed",
 * question.from never null).
 */
import type { Locator, Page } from 'playwright-core';
import { type ExecutionSummary, n8nId, nodeOutput, underWay } from '../../tools/n8n/n8n';
import { waitFor } from '../../tools/n8n/proc';
import type { Stack } from '../../tools/n8n/stack';
import { chain, manualTrigger, node, webhookIdFor, type Workflow } from '../../tools/n8n/workflow';
import { action, CREDENTIAL_TYPE, type CredentialRef, exampleWorkflow } from '../../tools/n8n/workflows';
import { customerWrites, newCustomer, ORDER_CONFIRMATION_EXAMPLE, startAsking } from '../e2e/checks/conversations';
import { assert, assertEqual } from '../e2e/lib/report';
import { byTestId, openWorkflow, visibleLabels, WAIT } from './browser';

const ASKING = 'Ask Customer';
const N8N_WAIT = 'Wait';
const EXAMPLE_ASK = 'Ask the Customer';
export const WAITING_ASK_WORKFLOW = 'UI: a waiting Ask and Wait for Chat Reply';
export const WAITING_N8N_WORKFLOW = 'UI: a waiting Wait node of n8n';
/** The shipped example, under its own name: found by the id this key seeds. */
export const EXAMPLE_ID = n8nId('uiOrderConfirm');

export function waitingAskWorkflows(credential: CredentialRef): Workflow[] {
	const example = exampleWorkflow(ORDER_CONFIRMATION_EXAMPLE, 'uiOrderConfirm', { [CREDENTIAL_TYPE]: credential });
	return [
		chain('uiAskWaiting', WAITING_ASK_WORKFLOW, [
			manualTrigger(),
			action(ASKING, credential, { resource: 'message', operation: 'askAndWaitForReply', phone: '+4915112345679', textSource: 'text', text: 'Your order 12 is ready: YES or NO?' }),
		]),
		chain('uiN8nWaiting', WAITING_N8N_WORKFLOW, [manualTrigger(), node(N8N_WAIT, 'n8n-nodes-base.wait', 1.1, { resume: 'webhook', options: {} }, { webhookId: webhookIdFor('ui-n8n-wait') })]),
		example,
	];
}

type Shot = (name: string) => string;
type Scope = Page | Locator;

const canvasNode = (scope: Scope, name: string) => byTestId(scope, 'canvas-node').filter({ hasText: name }).first();
/** The node's box on the canvas: n8n's CanvasNodeDefault, whose classes carry the run's state. */
const nodeBox = (scope: Scope, name: string) => canvasNode(scope, name).locator('[data-test-id^="canvas-"][data-test-id$="-node"]').first();

/** The states n8n's canvas draws for a node (its CSS module classes: `_waiting_1n0cc_20` → waiting). */
async function drawnStates(scope: Scope, name: string): Promise<string[]> {
	const classes = ((await nodeBox(scope, name).getAttribute('class')) ?? '').split(/\s+/);
	const states = ['success', 'error', 'warning', 'waiting', 'running', 'pinned', 'disabled'];
	return states.filter((state) => classes.some((c) => c.startsWith(`_${state}_`)));
}

/** The colours of the outline n8n draws around a waiting node (its ::after). */
async function outlineOf(scope: Scope, name: string): Promise<string> {
	return await nodeBox(scope, name).evaluate((e) => {
		const style = (globalThis as unknown as { getComputedStyle: (e: unknown, pseudo: string) => { backgroundImage: string } }).getComputedStyle(e, '::after');
		return style.backgroundImage;
	}).then((image) => image.replace(/from [^,]*,\s*/, '')); // the angle turns (n8n animates it)
}

/** The Ask node's panel: one field about the sender; the notices short enough that the first fields are in view. */
export async function askPanel(page: Page, baseUrl: string, workflow: Workflow, shot: Shot): Promise<void> {
	await openWorkflow(page, baseUrl, workflow);
	await canvasNode(page, ASKING).dblclick();
	const ndv = byTestId(page, 'ndv');
	const parameters = byTestId(ndv, 'node-parameters');
	await parameters.getByText('Recipient Phone', { exact: true }).filter({ visible: true }).first().waitFor();
	const labels = await visibleLabels(parameters);
	const senders = labels.filter((l) => /sender/i.test(l));
	assertEqual(senders, ['Sender (Phone Number ID)'], 'the fields about the sender');
	// The first fields are in view without scrolling: their labels end above the panel's bottom.
	const panelBox = await parameters.boundingBox();
	assert(panelBox, 'the panel has no box');
	const viewBottom = Math.min(panelBox.y + panelBox.height, page.viewportSize()!.height);
	const notices = parameters.locator('.notice, [class*="notice"]').filter({ visible: true });
	const noticeLines: number[] = [];
	for (const notice of await notices.all()) {
		const box = await notice.boundingBox();
		const lineHeight = await notice.evaluate((e) => parseFloat((globalThis as unknown as { getComputedStyle: (e: unknown) => { lineHeight: string } }).getComputedStyle(e).lineHeight) || 20);
		if (box) noticeLines.push(Math.round(box.height / lineHeight));
	}
	process.stdout.write(`# Ask and Wait for Chat Reply: notices of about ${noticeLines.join(' + ') || 0} lines before the fields\n`);
	for (const label of ['Sender (Phone Number ID)', 'Recipient Phone']) {
		const box = await parameters.getByText(label, { exact: true }).filter({ visible: true }).first().boundingBox();
		assert(box && box.y + box.height <= viewBottom, `${label} is below the panel's first screen (${JSON.stringify(box)}, panel ends at ${viewBottom})`);
	}
	await page.screenshot({ path: shot('ask-panel-first-fields') });
	await page.keyboard.press('Escape');
}

/** Executes `workflow` from the canvas; returns once `nodeName` is drawn waiting. */
async function runUntilWaiting(page: Page, baseUrl: string, workflow: Workflow, nodeName: string): Promise<string[]> {
	await openWorkflow(page, baseUrl, workflow);
	await byTestId(page, 'execute-workflow-button').click();
	return await waitFor(`${nodeName} drawn waiting`, async () => {
		const states = await drawnStates(page, nodeName).catch((): string[] => []);
		return states.includes('waiting') ? states : undefined;
	}, WAIT, 200);
}

/**
 * A waiting Ask run on the canvas is drawn as n8n draws its own waiting Wait node: waiting (and, in the editor,
 * running), no error, no warning, n8n's turning outline in its brand colour; OUTPUT's tick is n8n's for any run without an
 * error. Nothing the node reports makes it look failed.
 */
export async function waitingOnCanvas(page: Page, baseUrl: string, ask: Workflow, n8nWait: Workflow, shot: Shot): Promise<void> {
	const n8nStates = await runUntilWaiting(page, baseUrl, n8nWait, N8N_WAIT);
	const n8nOutline = await outlineOf(page, N8N_WAIT);
	await page.screenshot({ path: shot('n8n-wait-node-waiting') });
	const askStates = await runUntilWaiting(page, baseUrl, ask, ASKING);
	const askOutline = await outlineOf(page, ASKING);
	await page.screenshot({ path: shot('ask-node-waiting') });
	process.stdout.write(`# a waiting node on the canvas: Ask ${askStates.join(',')} ${askOutline}; n8n's Wait ${n8nStates.join(',')} ${n8nOutline}\n`);
	// In the editor n8n draws a node its run waits at as waiting and running (test:ui of 2026-11-28: both nodes).
	assert(askStates.includes('waiting') && !askStates.includes('error') && !askStates.includes('warning'), `the states drawn for the waiting Ask node: ${askStates.join(',')}`);
	assertEqual(askStates, n8nStates, 'the states drawn for the waiting Ask node, against n8n’s waiting Wait node');
	assertEqual(askOutline, n8nOutline, 'the outline of the waiting Ask node, against n8n’s waiting Wait node');
	await canvasNode(page, ASKING).dblclick();
	const ndv = byTestId(page, 'ndv');
	await byTestId(ndv, 'node-run-status-success').filter({ visible: true }).first().waitFor();
	assertEqual(await byTestId(ndv, 'node-run-info-stale').filter({ visible: true }).count(), 0, '"Node parameters have changed" on a run nobody edited');
	await page.screenshot({ path: shot('ask-node-waiting-output') });
	await page.keyboard.press('Escape');
}

async function executionOf(stack: Stack, id: string): Promise<ExecutionSummary> {
	return (await stack.n8n.api<ExecutionSummary>('GET', `/executions/${encodeURIComponent(id)}?includeData=true`)).body;
}

/** The execution view of one run: n8n's preview of it (2.41: in the page, no iframe). */
async function executionView(page: Page, baseUrl: string, workflow: Workflow, executionId: string, firstNode: string): Promise<Scope> {
	await page.goto(`${baseUrl}/workflow/${workflow.id}/executions/${executionId}`);
	const host = byTestId(page, 'execution-preview-host');
	const scope: Scope = (await host.count()) ? host : page;
	await canvasNode(scope, firstNode).waitFor();
	return scope;
}

/** Opens `name`'s panel in the execution view: it shows no "Node parameters have changed"; closes it. */
async function openedUnchanged(page: Page, scope: Scope, name: string): Promise<Locator> {
	await canvasNode(scope, name).dblclick();
	const ndv = byTestId(page, 'ndv');
	await ndv.waitFor();
	await byTestId(ndv, 'output-panel').waitFor();
	// Values (From Template) write the template's fields into the node once fetched, if they differ from the
	// saved ones: that write is what "Node parameters have changed" reports, so look once they show.
	if (name === EXAMPLE_ASK) await byTestId(ndv, 'mapping-fields-container').getByText('Body {{1}}', { exact: false }).filter({ visible: true }).first().waitFor();
	await page.waitForTimeout(1_000);
	assertEqual(await byTestId(ndv, 'node-run-info-stale').filter({ visible: true }).count(), 0, `"Node parameters have changed" in ${name} on a run nobody edited`);
	return ndv;
}

/**
 * The shipped order-confirmation example started as the demo starts it (a POST to its Webhook): in the execution
 * view the waiting run shows no changed parameters and the asking node is drawn waiting, not failed; after the
 * customer's "yes" the run's Ask output carries the question without a null `from`.
 */
export async function exampleExecutionViews(page: Page, stack: Stack, example: Workflow, shot: Shot): Promise<void> {
	const { baseUrl } = stack.n8n;
	const phone = newCustomer();
	const asked = await startAsking(stack, example, phone, { order_id: 11, order_number: 'ORD-0011', phone });

	let view = await executionView(page, baseUrl, example, asked.executionId, 'New Order');
	assertEqual(await drawnStates(view, EXAMPLE_ASK), ['waiting'], 'the states drawn for the waiting asking node in the execution view');
	// Opening the asking node (its Values fetch the template's schema) changes nothing; then its input's node.
	await openedUnchanged(page, view, EXAMPLE_ASK);
	await page.keyboard.press('Escape');
	await openedUnchanged(page, view, 'New Order');
	await page.screenshot({ path: shot('example-waiting-execution-view') });
	await page.keyboard.press('Escape');
	for (const name of ['New Order', EXAMPLE_ASK]) assert(!(await drawnStates(view, name)).includes('warning'), `${name} is drawn as changed in the execution view`);

	await customerWrites(stack, phone, 'yes');
	const run = await waitFor(`execution ${asked.executionId} to finish`, async () => {
		const e = await executionOf(stack, asked.executionId);
		return e && !underWay(e.status) && nodeOutput(e, EXAMPLE_ASK).length > 0 ? e : undefined;
	}, 120_000, 500);
	assertEqual(run.status, 'success', 'the example’s run after "yes"');
	const question = nodeOutput(run, EXAMPLE_ASK)[0].question as Record<string, unknown>;
	assert(question && question.from !== null, `the output's question.from is null: ${JSON.stringify(question)}`);
	assert(typeof question.phone_number_id === 'string' && question.phone_number_id !== '', `the output's question names no sender: ${JSON.stringify(question)}`);

	view = await executionView(page, baseUrl, example, asked.executionId, 'New Order');
	const ndv = await openedUnchanged(page, view, EXAMPLE_ASK);
	const output = byTestId(ndv, 'output-panel');
	await byTestId(output, 'radio-button-json').click();
	await waitFor('the Ask output as JSON', async () => ((await output.innerText()).includes('phone_number_id') ? true : undefined), WAIT, 200);
	const shown = (await output.innerText()).replace(/\s+/g, ' ');
	assert(!/"from": ?null/.test(shown), `the output panel shows "from": null: ${shown.slice(0, 600)}`);
	await page.screenshot({ path: shot('example-answered-ask-output') });
	await page.keyboard.press('Escape');
}
