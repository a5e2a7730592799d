/**
 * The node as an AI agent's tool, as a user meets it in the shipped support bot: the tool's panel shows
 * Allowed Recipients with the conversation's number, the fields the model fills, and no Send and Wait.
 */
import type { Locator, Page } from 'playwright-core';
import { byTestId, closeDropdown, openDropdown, openWorkflow, visibleLabels, WAIT } from './browser';
import { waitFor } from '../../tools/n8n/proc';

/** What n8n shows in a field the model fills (`$fromAI`), or the expression itself. */
const FILLED_BY_MODEL = /Defined automatically by the model|\$fromAI\(/;

export async function checkAgentToolPanel(page: Page, baseUrl: string, workflow: { id: string; name: string }): Promise<void> {
	await openWorkflow(page, baseUrl, workflow);
	await byTestId(page, 'canvas-node').filter({ hasText: 'Send Text' }).first().dblclick();
	const panel = byTestId(page, 'node-parameters');
	const item = (label: string): Locator =>
		byTestId(panel, 'parameter-item').filter({ visible: true }).filter({ has: byTestId(page, 'input-label').getByText(label, { exact: true }) }).first();
	await waitFor('the tool’s fields', async () => ((await visibleLabels(panel)).includes('Allowed Recipients') ? true : undefined), WAIT, 100);
	const allowed = await item('Allowed Recipients').innerText();
	if (!allowed.includes("$('Business Messaging Trigger')")) throw new Error(`Allowed Recipients shows: ${allowed}`);
	for (const label of ['Recipient Phone', 'Text']) {
		const text = await item(label).innerText();
		if (!FILLED_BY_MODEL.test(text)) throw new Error(`${label} is not filled by the model: ${text}`);
	}
	const { list, headlines } = await openDropdown(page, byTestId(panel, 'parameter-input-operation'));
	await closeDropdown(page, list);
	if (headlines.includes('Send and Wait for Response') || !headlines.includes('Send Text')) {
		throw new Error(`the tool offers the operations ${headlines.join(', ')}`);
	}
}
