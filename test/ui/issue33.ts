/**
 * What issue 33 found by driving the editor, each seen as a user sees it: the send operations' Test Mode
 * notice with Test Mode off, and the note after a run that states the real mode; the trigger's notice in
 * the README's order and its canvas subtitle in words; the node creator's entry; Values labels and the
 * chosen template's name whole at the default panel width; the error for text of only spaces; the
 * credential's Test against a host where nothing answers. Answer-page items: answerPage.ts.
 */
import type { Locator, Page } from 'playwright-core';
import { freePort, waitFor } from '../../tools/n8n/proc';
import type { SandboxProcess } from '../../tools/n8n/sandbox';
import type { N8n } from '../../tools/n8n/n8n';
import type { Workflow } from '../../tools/n8n/workflow';
import { ACTION_TYPE, CREDENTIAL_TYPE } from '../../tools/n8n/workflows';
import { assert, assertEqual } from '../e2e/lib/report';
import { setupNoticeProblems, testModeNoticeProblems, testModeSettings } from '../helpers/panelTexts';
import { makeTemplate } from '../../tools/sandbox/seed';
import { byTestId, openWorkflow, WAIT } from './browser';
import { newCredentialDialog } from './credential';

const canvasNode = (page: Page, name: string) => byTestId(page, 'canvas-node').filter({ hasText: name }).first();

/** The text of the panel's notice that mentions `about`. */
async function noticeText(ndv: Locator, about: string): Promise<string> {
	const notice = ndv.locator('.notice, [class*="notice"]').filter({ hasText: about }).filter({ visible: true }).last();
	await notice.waitFor();
	return (await notice.innerText()).replace(/\s+/g, ' ').trim();
}

/** Runs a workflow from the canvas and opens its Send Text node's panel once the run succeeded. */
async function runAndOpen(page: Page, baseUrl: string, workflow: Workflow): Promise<Locator> {
	await openWorkflow(page, baseUrl, workflow);
	await byTestId(page, 'execute-workflow-button').click();
	await byTestId(canvasNode(page, 'Send Text'), 'canvas-node-status-success').waitFor();
	await canvasNode(page, 'Send Text').dblclick();
	return byTestId(page, 'ndv');
}

/** A send operation's panel with Test Mode off in its credential, after a run; then a run with Dry Run. */
export async function testModeNotice(page: Page, n8n: N8n, off: Workflow, dryRun: Workflow, shot: (name: string) => string): Promise<void> {
	// The credential type as n8n serves it to the editor: its Test Mode settings.
	const types = await n8n.getAsOwner<Array<{ name: string; properties: Array<{ name: string; options?: unknown[] }> }>>('/types/credentials.json');
	const settings = testModeSettings(types.body.find((t) => t.name === CREDENTIAL_TYPE)?.properties ?? []);
	const ndv = await runAndOpen(page, n8n.baseUrl, off);
	const text = await noticeText(ndv, 'Test Mode');
	const problems = testModeNoticeProblems(text, settings);
	assert(problems.length === 0, `the notice with Test Mode off: "${text}"\n${problems.join('\n')}`);
	// With Test Mode off no note about a test setting above the output.
	const output = byTestId(ndv, 'output-panel');
	await waitFor('the run’s output', async () => ((await output.innerText()).includes('wamid.') ? true : undefined), WAIT, 200);
	assert(!(await output.getByText(/Test Mode is on/).count()), 'a run with Test Mode off says Test Mode is on');
	await page.screenshot({ path: shot('test-mode-off-notice-and-run') });

	// The same operation with the Dry Run credential: after the run, the output panel states the real mode.
	const dry = await runAndOpen(page, n8n.baseUrl, dryRun);
	await byTestId(dry, 'output-panel').getByText(/Test Mode is on in the credential: dry run/).filter({ visible: true }).first().waitFor();
}

/** The trigger's notice agrees with the README's set-up; its canvas subtitle names the events in words. */
export async function triggerNoticeAndSubtitle(page: Page, baseUrl: string, allEvents: Workflow, twoEvents: Workflow, shot: (name: string) => string): Promise<void> {
	await openWorkflow(page, baseUrl, twoEvents);
	const trigger = canvasNode(page, twoEvents.nodes[0].name);
	await trigger.getByText('Message Received, Order Created', { exact: true }).waitFor();
	assert(!(await trigger.getByText(/message\.received|order\.created/).count()), 'the subtitle shows raw event values');
	await page.screenshot({ path: shot('trigger-subtitle-two-events') });

	await openWorkflow(page, baseUrl, allEvents);
	const all = canvasNode(page, allEvents.nodes[0].name);
	await all.getByText('All Events', { exact: true }).waitFor();
	assert(!(await all.getByText('*', { exact: true }).count()), 'the subtitle shows *');
	await page.screenshot({ path: shot('trigger-subtitle-all-events') });
	await all.dblclick();
	const text = await noticeText(byTestId(page, 'ndv'), 'Production URL');
	const problems = setupNoticeProblems(text);
	assert(problems.length === 0, `the trigger's notice: "${text}"\n${problems.join('\n')}`);
}

/** The node creator lists both nodes as one entry; its description is what the action node does. */
export async function creatorEntry(page: Page, n8n: N8n, workflow: Workflow): Promise<void> {
	const nodes = await n8n.getAsOwner<Array<{ name: string; description: string }>>('/types/nodes.json');
	const actionNode = nodes.body.find((n) => n.name === ACTION_TYPE)?.description ?? '';
	assert(actionNode, 'n8n lists no description for the action node');
	await openWorkflow(page, n8n.baseUrl, workflow);
	await byTestId(page, 'node-creator-plus-button').first().click();
	await byTestId(page, 'node-creator-search-bar').fill('Business Messaging');
	const name = byTestId(page, 'node-creator-item-name').filter({ hasText: /^Business Messaging$/ }).first();
	// The entry: the nearest element around the name that also holds a description.
	const entry = name.locator('xpath=ancestor::*[.//*[@data-test-id="node-creator-item-description"]][1]');
	const description = (await byTestId(entry, 'node-creator-item-description').first().innerText()).trim();
	assert(description.startsWith(actionNode), `the entry reads "${description}", not the action node's "${actionNode}"`);
}

/**
 * The sendable sandbox templates with the most placeholders, one of each kind (test/sandbox/seed.ts:
 * ids 67 to 72), and the longest of their list names: the hardest cases for the panel's width.
 */
function hardTemplates(): string[] {
	return Array.from({ length: 6 }, (_, i) => makeTemplate(67 + i))
		.filter((t) => t.status === 'APPROVED')
		.map((t) => t.name);
}

type Fit = { text: string; fits: boolean };

/** Whether each Values label and the chosen template's name show whole (not cut with an ellipsis). */
async function fits(ndv: Locator): Promise<{ labels: Fit[]; template: Fit }> {
	const labels = await byTestId(ndv, 'mapping-fields-container')
		.locator('[data-test-id="input-label"] label span')
		.evaluateAll((spans) =>
			(spans as unknown as Array<{ textContent: string | null; scrollWidth: number; clientWidth: number }>)
				.filter((s) => (s.textContent ?? '').includes('{{'))
				.map((s) => ({ text: (s.textContent ?? '').trim(), fits: s.scrollWidth <= s.clientWidth })),
		);
	const template = await byTestId(ndv, 'rlc-input').first().evaluate((e) => {
		const input = (e.tagName === 'INPUT' ? e : e.querySelector('input')) as unknown as { value: string; scrollWidth: number; clientWidth: number };
		const style = (globalThis as unknown as { getComputedStyle: (e: unknown) => { paddingLeft: string; paddingRight: string } }).getComputedStyle(input);
		const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
		return { text: `${input.value} [room ${room} px, ${(style as unknown as { fontSize: string }).fontSize}]`, fits: input.scrollWidth <= input.clientWidth };
	});
	return { labels, template };
}

/** Picks each hard template in Send Text → From Template at the default panel width; every text shows whole. */
export async function placeholderLabelsWhole(page: Page, baseUrl: string, workflow: Workflow, shot: (name: string) => string): Promise<string[]> {
	await openWorkflow(page, baseUrl, workflow);
	await canvasNode(page, 'Send From Template').dblclick();
	const ndv = byTestId(page, 'ndv');
	const cut: string[] = [];
	const seen: string[] = [];
	for (const name of hardTemplates()) {
		await byTestId(ndv, 'rlc-input').first().click();
		await page.getByPlaceholder('Search...').filter({ visible: true }).first().fill(name);
		await byTestId(page, 'rlc-item').filter({ visible: true }).filter({ hasText: name }).first().click();
		const shown = await waitFor(`the Values of ${name}`, async () => {
			const now = await fits(ndv);
			return now.template.text.startsWith(name) && now.labels.length >= 3 ? now : undefined;
		}, WAIT, 200);
		for (const fit of [shown.template, ...shown.labels]) {
			seen.push(fit.text);
			if (!fit.fits) cut.push(fit.text);
		}
		await page.screenshot({ path: shot(`values-${name}`) });
	}
	assert(cut.length === 0, `cut off at the default panel width: ${cut.join(' | ')}`);
	return seen;
}

/** Send Text with Text of only spaces: the error says so and what to do. */
export async function spacesOnlyError(page: Page, baseUrl: string, workflow: Workflow): Promise<void> {
	await openWorkflow(page, baseUrl, workflow);
	await byTestId(page, 'execute-workflow-button').click();
	await byTestId(canvasNode(page, 'Send Text'), 'canvas-node-status-mark-error').waitFor();
	await canvasNode(page, 'Send Text').dblclick();
	const ndv = byTestId(page, 'ndv');
	await ndv.getByText('Text: has only spaces, nothing to send').filter({ visible: true }).first().waitFor();
	await ndv.getByText(/Type what to send in Text, or drag a field from the input panel onto it\./).filter({ visible: true }).first().waitFor();
}

/** A new credential whose Base URL has nothing listening: Save tests it, and the details say what to check. */
export async function unreachableCredential(page: Page, baseUrl: string, sandbox: SandboxProcess): Promise<void> {
	const port = await freePort();
	const values = { ...sandbox.credentials, baseUrl: `http://127.0.0.1:${port}/v1` };
	const dialog = await newCredentialDialog(page, baseUrl);
	for (const name of ['baseUrl', 'clientId', 'clientSecret', 'domain'] as const) {
		await byTestId(dialog, `parameter-input-${name}`).locator('input').fill(values[name]);
	}
	await byTestId(page, 'credential-save-button').click();
	await dialog.getByText('Couldn’t connect with these settings', { exact: false }).first().waitFor();
	await dialog.getByText('More details', { exact: true }).first().click();
	const details = page.getByText(`Nothing answered at 127.0.0.1:${port}: the connection was refused (ECONNREFUSED).`, { exact: false }).filter({ visible: true }).first();
	await details.waitFor();
	const text = await details.innerText();
	assert(/Check the credential’s Base URL: the host name, the port, and https:\/\/ or http:\/\//.test(text), `the details read: ${text}`);
	assertEqual(text.trim() === 'ECONNREFUSED', false, 'the details are only the code');
}

/** Send and Wait's Recipient Phone says that the answer is in this number's name, whoever opens the link. */
export async function answeredByHint(page: Page, baseUrl: string, workflow: Workflow): Promise<void> {
	await openWorkflow(page, baseUrl, workflow);
	await canvasNode(page, 'Ask for Approval').dblclick();
	// The hint under the field (n8n gives it no test id of its own).
	const hint = byTestId(page, 'ndv').getByText(/^The answer’s answeredBy/).filter({ visible: true }).first();
	await hint.waitFor();
	const text = await hint.innerText();
	assert(/answeredBy is this number, whoever opens the link: a forwarded link answers in this number’s name/.test(text), `the hint reads: ${text}`);
}
