/**
 * Ask and Wait for Chat Reply in the editor when its trigger is not set up: executed from the canvas,
 * the node fails with what to set up and where, shown in its panel, and the customer gets nothing.
 * First the trigger that resumes waiting runs uses another credential's Webhook Secret; then its
 * workflow is deactivated (no trigger resumes waiting runs).
 */
import type { Page } from 'playwright-core';
import type { Stack } from '../../tools/n8n/stack';
import { chain, manualTrigger, type Workflow } from '../../tools/n8n/workflow';
import { action, type CredentialRef } from '../../tools/n8n/workflows';
import { conversationTriggerWorkflow } from '../e2e/checks/conversations';
import { assertEqual } from '../e2e/lib/report';
import { byTestId, openWorkflow } from './browser';

export const ASKING_NODE = 'Ask Customer';
/** A credential like the sandbox's with another Webhook Secret (the asking node's). */
export const OTHER_SECRET_CREDENTIAL = 'Business Messaging (other webhook secret)';

export function conversationUiWorkflows(credential: CredentialRef, otherSecret: CredentialRef): Workflow[] {
	return [
		conversationTriggerWorkflow(credential),
		chain('uiAskOtherSecret', 'UI: ask and wait for chat reply', [
			manualTrigger(),
			action(ASKING_NODE, otherSecret, { resource: 'message', operation: 'askAndWaitForReply', phone: '+4915112345678', textSource: 'text', text: 'Your order 12 is ready: YES or NO?' }),
		]),
	];
}

/** Executes the asking workflow; its node's panel shows `message` and, under it, `description`. Nothing reaches the customer. */
export async function askRefusedInEditor(page: Page, stack: Stack, workflow: Workflow, message: string, description: RegExp): Promise<void> {
	const since = await stack.sandbox.mark();
	await openWorkflow(page, stack.n8n.baseUrl, workflow);
	await byTestId(page, 'execute-workflow-button').click();
	const node = byTestId(page, 'canvas-node').filter({ hasText: ASKING_NODE }).first();
	await byTestId(node, 'canvas-node-status-mark-error').waitFor();
	await node.dblclick();
	const ndv = byTestId(page, 'ndv');
	await ndv.getByText(message, { exact: true }).filter({ visible: true }).first().waitFor();
	await ndv.getByText(description).filter({ visible: true }).first().waitFor();
	const sends = (await stack.sandbox.requests(since)).filter((r) => r.path.startsWith('/w/message/'));
	assertEqual(sends.length, 0, 'messages sent');
	await page.keyboard.press('Escape');
}
