/**
 * The trigger while the editor listens for a test event (n8n mode `manual`): a refused delivery ends the
 * listening with the trigger failed, its error naming the check that failed, and the node after it not run;
 * the service's test event (Webhook → Send Test Event) arrives marked as such. Listening is started with the
 * REST call the editor makes: `POST /rest/workflows/:id/run`, with the trigger as destination for Execute
 * step, without one for Execute workflow (n8n's workflows controller).
 */
import { existsSync, readFileSync } from 'node:fs';
import { type ExecutionSummary, type N8n, nodeError, nodeOutput, underWay } from '../../../tools/n8n/n8n';
import { waitFor } from '../../../tools/n8n/proc';
import { assert, assertEqual, type Check } from '../lib/report';
import type { Stack } from '../../../tools/n8n/stack';
import { chain, node, setFields, webhookIdFor, type Workflow } from '../../../tools/n8n/workflow';
import { CREDENTIAL_TYPE, type CredentialRef, TRIGGER_TYPE, TRIGGER_WEBHOOK_PATH, triggerProductionPath } from '../../../tools/n8n/workflows';

const TRIGGER_NODE = 'Business Messaging Trigger';
/** The node after the trigger: it must never run on a refused delivery. */
export const AFTER_TRIGGER_NODE = 'After the Trigger';
const LISTEN_WEBHOOK_ID = webhookIdFor('e2e-listen');

/** Inactive: it only ever runs while listening. */
export function listenWorkflow(credential: CredentialRef): Workflow {
	return chain('e2eListen', 'E2E: trigger while listening for a test event', [
		node(TRIGGER_NODE, TRIGGER_TYPE, 2, { events: ['*'], options: {} }, {
			credentials: { [CREDENTIAL_TYPE]: credential },
			webhookId: LISTEN_WEBHOOK_ID,
		}),
		setFields(AFTER_TRIGGER_NODE, { ran: true }),
	]);
}

/**
 * What the editor does on the trigger's Execute step (`step`) or on Execute workflow (listen for a test
 * event); answers with the Test URL.
 */
export async function listen(n8n: N8n, workflow: Workflow, how: 'step' | 'workflow' = 'step', webhookId = LISTEN_WEBHOOK_ID): Promise<string> {
	const target = how === 'step' ? { destinationNode: { nodeName: TRIGGER_NODE, mode: 'inclusive' } } : { triggerToStartFrom: { name: TRIGGER_NODE } };
	// The editor of n8n before 2.41 sends the workflow along; 2.41 reads it from the database.
	const workflowData = n8n.features.manualRunReadsDatabase ? undefined : (await n8n.rest<{ data: unknown }>('GET', `/workflows/${workflow.id}`)).body.data;
	const res = await n8n.rest<{ data?: { waitingForWebhook?: boolean } }>('POST', `/workflows/${workflow.id}/run`, { ...target, ...(workflowData ? { workflowData } : {}) });
	assert(res.status === 200 && res.body.data?.waitingForWebhook === true, `listening did not start: ${res.status} ${JSON.stringify(res.body)}`);
	return `${n8n.baseUrl}/webhook-test/${webhookId}/${TRIGGER_WEBHOOK_PATH}`;
}

export async function nextExecution(n8n: N8n, workflowId: string, before: number): Promise<ExecutionSummary> {
	return await waitFor(
		'the test execution',
		async () => {
			const list = (await n8n.executions(workflowId)).filter((e) => !underWay(e.status));
			return list.length > before ? list[0] : undefined;
		},
		60_000,
		300,
	);
}

export function listenChecks(stack: Stack, productionWebhookId: string): Check[] {
	const { n8n, sandbox, workflows } = stack;
	const workflow = workflows.find((w) => w.name === 'E2E: trigger while listening for a test event')!;
	return [
		{
			name: 'trigger, listening for a test event (Execute workflow): a delivery signed with another secret gets 401; the trigger fails naming the failed check, the node after it does not run, no production run',
			fn: async () => {
				const before = (await n8n.executions(workflow.id)).length;
				const testUrl = await listen(n8n, workflow, 'workflow');
				const id = await sandbox.deliver({ event: 'message.received', url: testUrl, signWith: 'not-the-dashboard-secret' });
				const delivery = await sandbox.settled(id);
				assertEqual(delivery.attempts.map((a) => [a.status, a.responseBody && JSON.parse(a.responseBody)]), [[401, { error: 'invalid signature' }]], 'answers to the sender');
				const execution = await nextExecution(n8n, workflow.id, before);
				assertEqual([execution.mode, execution.status], ['manual', 'error'], 'execution mode and status');
				const error = nodeError(execution, TRIGGER_NODE) as { message?: string; description?: string } | undefined;
				assertEqual(error?.message, 'Delivery refused (401): invalid signature', 'the trigger’s error');
				assert(/^Failed check: signature matches the body\. .*Webhook Secret/.test(String(error?.description)), `the error does not name the check and the Webhook Secret: ${String(error?.description)}`);
				assertEqual(execution.data?.resultData.runData[AFTER_TRIGGER_NODE], undefined, 'runs of the node after the trigger');
				assert(!JSON.stringify(execution.data).includes(sandbox.credentials.webhookSecret), 'the execution contains the secret');
				const all = await n8n.executions(workflow.id);
				assertEqual(all.filter((e) => e.mode !== 'manual').length, 0, 'production runs');
				// Production refusals (the forged-event check before this one) are logged with reason and count.
				const log = existsSync(n8n.logFile) ? readFileSync(n8n.logFile, 'utf8') : '';
				assert(/delivery refused \(401, invalid signature\); \d+ refused by this trigger since n8n started/.test(log), 'no refusal in n8n’s log');
			},
		},
		{
			name: 'trigger, listening for a test event: Webhook → Send Test Event ends in the trigger’s output marked as the service’s test event',
			fn: async () => {
				const before = (await n8n.executions(workflow.id)).length;
				const testUrl = await listen(n8n, workflow);
				await sandbox.setWebhookUrl(testUrl);
				try {
					const sender = workflows.find((w) => w.name.startsWith('E2E: ask the service'));
					assert(sender, 'no send-test-event workflow');
					const { runThroughServer } = await import('./actions');
					assertEqual((await runThroughServer(n8n, sender)).status, 'success', 'Send Test Event');
					const execution = await nextExecution(n8n, workflow.id, before);
					const [item] = nodeOutput(execution, TRIGGER_NODE);
					assertEqual([item?.event, item?.testEvent], ['message.received', true], 'test event item');
					assert(String(item.note).includes('test event'), `no note on the test event: ${JSON.stringify(item)}`);
				} finally {
					await sandbox.setWebhookUrl(`${n8n.baseUrl}${triggerProductionPath(productionWebhookId)}`);
				}
			},
		},
	];
}
