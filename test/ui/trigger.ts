/**
 * The trigger's panel: the Production and Test URLs, then "Execute step" (n8n 2.41's label for a
 * webhook-based trigger; the panel then says "Listening for test event") receives the service's test event,
 * delivered and signed by the sandbox after Webhook → Send Test Event, as the README's set-up describes.
 */
import type { Page } from 'playwright-core';
import { runThroughServer } from '../e2e/checks/actions';
import type { Stack } from '../../tools/n8n/stack';
import type { Workflow } from '../../tools/n8n/workflow';
import { assert, assertEqual } from '../e2e/lib/report';
import { TRIGGER_WEBHOOK_PATH } from '../../tools/n8n/workflows';
import { waitFor } from '../../tools/n8n/proc';
import { byTestId, openWorkflow, WAIT } from './browser';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export async function listenForTestEvent(page: Page, stack: Stack, listen: Workflow, sendTestEvent: Workflow): Promise<void> {
	const { n8n, sandbox } = stack;
	const trigger = listen.nodes[0];
	await openWorkflow(page, n8n.baseUrl, listen);
	await byTestId(page, 'canvas-node').filter({ hasText: trigger.name }).first().dblclick();
	const ndv = byTestId(page, 'ndv');
	await ndv.getByTitle('Click to display webhook URLs').click();
	const url = (kind: string) => ndv.getByText(new RegExp(`^${escape(n8n.baseUrl)}/${kind}/${escape(trigger.webhookId!)}/${TRIGGER_WEBHOOK_PATH}$`));
	await url('webhook-test').waitFor();
	const testUrl = (await url('webhook-test').innerText()).trim();
	await byTestId(ndv, 'radio-button-production').click();
	await url('webhook').waitFor();

	// The dashboard: the service's webhook URL set to the Test URL the panel shows.
	await sandbox.setWebhookUrl(testUrl);
	try {
		await byTestId(ndv, 'trigger-execute-button').click();
		await ndv.getByText('Listening for test event', { exact: true }).waitFor();
		// Webhook → Send Test Event: the service (sandbox) sends its signed test event to that URL.
		assertEqual((await runThroughServer(n8n, sendTestEvent)).status, 'success', 'Send Test Event');
		const output = byTestId(ndv, 'output-panel');
		await output.getByText('message.received', { exact: true }).filter({ visible: true }).first().waitFor();
		// The JSON view shows the whole item: the event marked as the service's test event.
		await byTestId(output, 'radio-button-json').click();
		const json = await waitFor('the test event in the JSON view', async () => {
			const text = await output.innerText();
			return /"testEvent":\s*true/.test(text) ? text : undefined;
		}, WAIT, 200);
		assert(/"event":\s*"message\.received"/.test(json) && /"note":\s*"[^"]*test event/.test(json), `the output is not the service's test event: ${json.slice(0, 1500)}`);
		const delivered = (await sandbox.deliveries()).filter((d) => d.url === testUrl);
		assertEqual(delivered.map((d) => [d.state, d.attempts.map((a) => a.status)]), [['delivered', [200]]], 'the sandbox’s delivery to the Test URL');
		assert(!(await ndv.innerText()).includes(sandbox.credentials.webhookSecret), 'the panel shows the webhook secret');
	} finally {
		await sandbox.setWebhookUrl(null);
	}
}
