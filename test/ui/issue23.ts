/**
 * What issue 23 found by driving the editor, each seen as a user sees it: a delivery refused while
 * listening shows the trigger failed and nothing after it run; the Template picker says what each template
 * needs; the Values fields show the template's samples; an empty value's error names the field as labelled;
 * Send Text From Template shows the text it sent; the canvas subtitle reads as words.
 */
import type { Page } from 'playwright-core';
import { AFTER_TRIGGER_NODE } from '../e2e/checks/listen';
import { waitFor } from '../../tools/n8n/proc';
import { assert, assertEqual } from '../e2e/lib/report';
import type { Stack } from '../../tools/n8n/stack';
import type { Workflow } from '../../tools/n8n/workflow';
import { TRIGGER_WEBHOOK_PATH } from '../../tools/n8n/workflows';
import { byTestId, openWorkflow, visibleLabels, WAIT } from './browser';

/** A sandbox template with one body placeholder (tools/sandbox/seed.ts: template 7). */
export const TEMPLATE_WITH_PLACEHOLDERS = 'order_update_0007';

const canvasNode = (page: Page, name: string) => byTestId(page, 'canvas-node').filter({ hasText: name }).first();

/** Execute workflow on a trigger workflow, then a delivery signed with another secret to the Test URL. */
export async function refusedWhileListening(page: Page, stack: Stack, listen: Workflow): Promise<void> {
	const { n8n, sandbox } = stack;
	const trigger = listen.nodes[0];
	await openWorkflow(page, n8n.baseUrl, listen);
	await byTestId(page, 'execute-workflow-button').click();
	await page.getByText(/Waiting for trigger event|Listening for test event/).filter({ visible: true }).first().waitFor();
	const id = await sandbox.deliver({ event: 'message.received', url: `${n8n.baseUrl}/webhook-test/${trigger.webhookId!}/${TRIGGER_WEBHOOK_PATH}`, signWith: 'not-the-dashboard-secret' });
	assertEqual((await sandbox.settled(id)).attempts.map((a) => a.status), [401], 'the sender’s answer');
	// The trigger is shown failed; the node after it never ran.
	await byTestId(canvasNode(page, trigger.name), 'canvas-node-status-mark-error').waitFor();
	const after = canvasNode(page, AFTER_TRIGGER_NODE);
	assertEqual(await after.locator('[data-test-id="canvas-node-status-success"], [data-test-id="canvas-node-status-mark-success"]').count(), 0, 'the node after the trigger shown as run');
	assert(!(await page.getByText('Node executed successfully').filter({ visible: true }).count()), 'n8n says the node executed successfully');
}

/** The trigger's panel after that: the error names the refusal and the check that failed. */
export async function refusalInPanel(page: Page, listen: Workflow): Promise<void> {
	await canvasNode(page, listen.nodes[0].name).dblclick();
	const ndv = byTestId(page, 'ndv');
	await ndv.getByText('Delivery refused (401): invalid signature').filter({ visible: true }).first().waitFor();
	await ndv.getByText(/Failed check: signature matches the body\./).filter({ visible: true }).first().waitFor();
	assert(!(await ndv.getByText('Node executed successfully').filter({ visible: true }).count()), 'the panel says the node executed successfully');
}

/** Send Text → From Template: the picker's list says what each template needs, with the dropdown open. */
export async function templateList(page: Page, baseUrl: string, workflow: Workflow): Promise<void> {
	await openWorkflow(page, baseUrl, workflow);
	await canvasNode(page, 'Send From Template').dblclick();
	const ndv = byTestId(page, 'ndv');
	await byTestId(ndv, 'rlc-input').first().click();
	const items = byTestId(page, 'rlc-item').filter({ visible: true });
	await items.first().waitFor();
	const names = await items.allInnerTexts();
	assert(names.some((n) => /\(.+, \d+ values?\)$/.test(n.trim())), `no count of values in the list: ${names.slice(0, 10).join(' | ')}`);
	assert(names.some((n) => /(PENDING|REJECTED): cannot be sent\)$/.test(n.trim())), `no unsendable mark in the list: ${names.slice(0, 12).join(' | ')}`);
}

/** Then the pick: the chosen name fits its field and the Values field shows the template's sample. */
export async function templatePicked(page: Page): Promise<void> {
	const ndv = byTestId(page, 'ndv');
	await page.getByPlaceholder('Search...').filter({ visible: true }).first().fill(TEMPLATE_WITH_PLACEHOLDERS);
	await byTestId(page, 'rlc-item').filter({ visible: true }).filter({ hasText: TEMPLATE_WITH_PLACEHOLDERS }).first().click();
	// The rlc-input is the input itself or holds it (as in fields.ts).
	type Input = { value: string; scrollWidth: number; clientWidth: number };
	const read = () =>
		byTestId(ndv, 'rlc-input').first().evaluate((e) => {
			const input = (e.tagName === 'INPUT' ? e : e.querySelector('input')) as unknown as Input | null;
			return { value: input?.value ?? '', fits: input ? input.scrollWidth <= input.clientWidth : false };
		});
	const { value, fits } = await waitFor('the chosen template', async () => ((await read()).value ? await read() : undefined), WAIT, 100);
	assert(value.startsWith(TEMPLATE_WITH_PLACEHOLDERS), `the field shows ${value}`);
	assert(fits, `the chosen template’s name is cut off in its field: ${value}`);
	// The label reads "Body {{1}} (<sample>)" (issue33.ts checks that it shows whole).
	await waitFor('the Values field labelled with the sample', async () => ((await visibleLabels(ndv)).some((l) => /^Body \{\{1\}\} \(.+\)/.test(l)) ? true : undefined), WAIT, 200);
}

/** A run with Body {{1}} empty fails naming that field; a run with it filled shows the body it sent. */
export async function templateRuns(page: Page, baseUrl: string, empty: Workflow, filled: Workflow): Promise<void> {
	await openWorkflow(page, baseUrl, empty);
	await byTestId(page, 'execute-workflow-button').click();
	await byTestId(canvasNode(page, 'Send From Template'), 'canvas-node-status-mark-error').waitFor();
	await canvasNode(page, 'Send From Template').dblclick();
	await byTestId(page, 'ndv').getByText(/no value for Body \{\{1\}\} of template/).filter({ visible: true }).first().waitFor();
	assert(!(await page.getByText('body.1').filter({ visible: true }).count()), 'an error names body.1');

	await openWorkflow(page, baseUrl, filled);
	await byTestId(page, 'execute-workflow-button').click();
	await byTestId(canvasNode(page, 'Send From Template'), 'canvas-node-status-success').waitFor();
	await canvasNode(page, 'Send From Template').dblclick();
	const output = byTestId(page, 'output-panel');
	await byTestId(output, 'radio-button-json').click();
	await waitFor('the body sent, in the output', async () => (/"body":\s*"[^"]*Ann/.test(await output.innerText()) ? true : undefined), WAIT, 200);
}

/** The canvas: a Send and Wait node's subtitle reads as its action, not "sendAndWait: message". */
export async function subtitles(page: Page, baseUrl: string, workflow: Workflow): Promise<void> {
	await openWorkflow(page, baseUrl, workflow);
	const node = canvasNode(page, 'Ask for Approval');
	await node.getByText('Send a message and wait for the answer').waitFor();
	assert(!(await page.getByText('sendAndWait: message').count()), 'the raw subtitle is shown');
}
