/**
 * Send Text → Wait for Status in a real n8n (issue 52), with the sandbox playing the service: it reports
 * `message.status.updated` for the message (on its schedule, or one status at a time through its control API)
 * to the conversations trigger, the one with Share With Other Workflows on; the trigger keeps the tally and
 * hands the run a signed summary. What a user sees is read from the executions n8n saved.
 */
import { type ExecutionSummary, type N8n, nodeOutput } from '../../../tools/n8n/n8n';
import { waitFor } from '../../../tools/n8n/proc';
import type { Stack } from '../../../tools/n8n/stack';
import { chain, node, webhookTrigger, type Workflow } from '../../../tools/n8n/workflow';
import { action, type CredentialRef, TRIGGER_TYPE, triggerProductionPath } from '../../../tools/n8n/workflows';
import { assert, assertEqual, type Check } from '../lib/report';
import { AFTER_NODE, CONVERSATION_TRIGGER_HOOK, execution, newCustomer, settledRun, startWorkflow } from './conversations';

const SEND_NODE = 'Send';
/** The sandbox runs 60 times faster than the clock (the suite's TIME_SCALE): a schedule's minute is a second. */
const SCALED_SECOND = 60_000;

/** Webhook (answers at once) → Send Text to `body.phone`, waiting for `read` for `limit` minutes → After. */
function statusWorkflow(credential: CredentialRef, key: string, limitMinutes: number): Workflow {
	return chain(`e2eStatus${key}`, `E2E: send text and wait for status (${key})`, [
		webhookTrigger(`e2e-status-${key.toLowerCase()}`, 'Run', 'onReceived'),
		action(SEND_NODE, credential, {
			resource: 'message',
			operation: 'sendText',
			phoneNumberId: '',
			phone: '={{ $json.body.phone }}',
			text: 'Your payment is due',
			waitForStatus: 'read',
			statusWaitLimit: limitMinutes,
			statusWaitUnit: 'minutes',
		}),
		node(AFTER_NODE, 'n8n-nodes-base.noOp', 1, {}),
	]);
}

export function statusWaitWorkflows(credential: CredentialRef): Workflow[] {
	return [statusWorkflow(credential, 'Read', 10), statusWorkflow(credential, 'Limit', 0.05)];
}

const byKey = (stack: Stack, key: string) => stack.workflows.find((w) => w.name === `E2E: send text and wait for status (${key})`)!;

interface Sending {
	workflow: Workflow;
	phone: string;
	messageId: string;
	executionId: string;
	resumeUrl: string;
}

/** The status waits the sharing triggers keep, with their watched messages, as n8n saved them. */
async function statusWaits(stack: Stack): Promise<Array<{ resumeUrl: string; messages: string[] }>> {
	const sharing = stack.workflows.filter((w) => w.nodes.some((n) => n.type === TRIGGER_TYPE && n.parameters.resumeWaitingRuns === true));
	const found = await Promise.all(
		sharing.map(async (workflow) => {
			const res = await stack.n8n.api<{ staticData?: Record<string, { statusWaits?: Record<string, unknown[]>; statusWatches?: Record<string, unknown[]> }> }>('GET', `/workflows/${workflow.id}`);
			return Object.values(res.body.staticData ?? {}).flatMap((s) =>
				Object.values(s.statusWatches ?? {}).map((w) => ({ resumeUrl: String(s.statusWaits?.[String(w[0])]?.[0] ?? ''), messages: String(w[1]).split(' ') })),
			);
		}),
	);
	return found.flat();
}

/** Starts the workflow for a new customer (with `schedule` for the sandbox's statuses of its messages) and waits until its run waits. */
async function startSending(stack: Stack, key: string, schedule: { sentMs: number; deliveredMs: number | null; readMs: number | null } | false): Promise<Sending> {
	const { n8n, sandbox } = stack;
	const workflow = byKey(stack, key);
	const phone = newCustomer();
	await sandbox.setStatuses(schedule, phone);
	await startWorkflow(workflow, { phone }, n8n.baseUrl);
	const message = await waitFor(`the message to ${phone}`, async () => (await sandbox.messages()).find((m) => m.phone === phone), 60_000, 200);
	// The run is found through the trigger's record of its wait (n8n before 2.41 leaves waiting runs out of its list).
	const resumeUrl = await waitFor(`the status wait for ${message.message_id}`, async () => (await statusWaits(stack)).find((w) => w.messages.includes(message.message_id))?.resumeUrl || undefined, 30_000, 300);
	const executionId = /\/webhook-waiting\/([^/]+)\//.exec(resumeUrl)![1];
	await waitFor(`execution ${executionId} to wait`, async () => ((await execution(n8n, workflow.id, executionId))?.status === 'waiting' ? true : undefined), 60_000, 300);
	return { workflow, phone, messageId: message.message_id, executionId, resumeUrl };
}

/** The only item the run went on with. */
function sendOutput(run: ExecutionSummary): Record<string, unknown> {
	const items = nodeOutput(run, SEND_NODE);
	assertEqual(items.length, 1, `items out of ${SEND_NODE}`);
	return items[0];
}

async function stillWaiting(n8n: N8n, s: Sending, what: string): Promise<void> {
	// The trigger answers a status that leaves the wait incomplete after it counted it again (about 1 s).
	await new Promise((resolve) => setTimeout(resolve, 2500));
	assertEqual((await execution(n8n, s.workflow.id, s.executionId))?.status, 'waiting', `the run after ${what}`);
}

export function statusWaitChecks(stack: Stack): Check[] {
	const { n8n, sandbox } = stack;
	const triggerUrl = `${n8n.baseUrl}${triggerProductionPath(CONVERSATION_TRIGGER_HOOK)}`;
	let limited: Sending | undefined;
	let before: string | null = null;
	/** The sandbox reports statuses to the sharing trigger while these checks run. */
	const toTrigger = async <T>(fn: () => Promise<T>): Promise<T> => {
		before = await sandbox.webhookUrl();
		await sandbox.setWebhookUrl(triggerUrl);
		try {
			return await fn();
		} finally {
			await sandbox.setWebhookUrl(before);
		}
	};
	const report = async (messageId: string, status: 'sent' | 'delivered' | 'read') => {
		const d = await sandbox.settled(await toTrigger(async () => await sandbox.reportStatus(messageId, status)), 60_000);
		assertEqual([d.state, d.attempts[0]?.status], ['delivered', 200], `the trigger's answer to ${status}`);
	};
	return [
		{
			name: 'status waits: Limit Wait Time — the message goes out and the run waits for it to be read',
			fn: async () => {
				limited = await toTrigger(async () => await startSending(stack, 'Limit', { sentMs: 0, deliveredMs: 0, readMs: null }));
			},
		},
		{
			name: 'status waits: Wait for Status = Read, the sandbox reports delivered then read — the run goes on with reached: true and the times the service reported',
			fn: async () => {
				await toTrigger(async () => {
					const s = await startSending(stack, 'Read', { sentMs: 0, deliveredMs: SCALED_SECOND, readMs: 5 * SCALED_SECOND });
					const run = await settledRun(n8n, s, 60_000);
					assertEqual(run.status, 'success', 'status of the resumed run');
					const out = sendOutput(run);
					const reported = (await sandbox.messages()).find((m) => m.message_id === s.messageId)!.statuses;
					const at = (status: string) => reported.find((r) => r.status === status)?.at;
					assertEqual([out.message_id, out.wanted, out.reached, out.status], [s.messageId, 'read', true, 'read'], 'message_id, wanted, reached, status');
					assertEqual([out.deliveredAt, out.readAt], [at('delivered'), at('read')], 'deliveredAt, readAt (the service’s times)');
					assert(Date.parse(String(out.deliveredAt)) <= Date.parse(String(out.readAt)), `delivered ${String(out.deliveredAt)} before read ${String(out.readAt)}`);
					assertEqual((out.send as Record<string, unknown>)?.message_id, s.messageId, 'the send’s output kept');
					for (const r of reported) {
						const d = await sandbox.delivery(String(r.delivery_id));
						assertEqual(d.attempts[0]?.status, 200, `the trigger’s answer to ${r.status}`);
					}
				});
			},
		},
		{
			name: 'status waits: a forged status (signed with another secret) to the trigger is refused 401 and resumes nothing; the genuine one then does',
			fn: async () => {
				const s = await toTrigger(async () => await startSending(stack, 'Read', false));
				for (const status of ['delivered', 'read']) {
					const forged = await sandbox.settled(
						await sandbox.deliver({ event: 'message.status.updated', url: triggerUrl, signWith: 'not-the-webhook-secret', data: { message_id: s.messageId, status, timestamp: new Date().toISOString() } }),
						60_000,
					);
					assertEqual([forged.state, forged.attempts[0]?.status], ['rejected', 401], `a forged ${status}`);
				}
				// The resume address alone, with a summary the trigger did not sign.
				const direct = await fetch(s.resumeUrl, {
					method: 'POST',
					headers: { 'Content-Type': 'application/json' },
					body: JSON.stringify({ type: 'business-messaging.status-summary', wait: new URL(s.resumeUrl).searchParams.get('wait'), statuses: { [s.messageId]: { status: 'read', deliveredAt: null, readAt: new Date().toISOString() } } }),
				});
				await direct.text();
				assert(direct.status !== 200, `the resume address answered an unsigned summary ${direct.status}`);
				await stillWaiting(n8n, s, 'the forgeries');
				await report(s.messageId, 'read');
				const out = sendOutput(await settledRun(n8n, s, 60_000));
				assertEqual([out.reached, out.status], [true, 'read'], 'reached, status after the genuine read');
			},
		},
		{
			name: 'status waits: statuses out of order and twice — delivered twice, then sent, keep the run waiting; read resumes it with the first delivered time; later repeats change nothing',
			fn: async () => {
				const s = await toTrigger(async () => await startSending(stack, 'Read', false));
				await report(s.messageId, 'delivered');
				const firstDelivered = (await sandbox.messages()).find((m) => m.message_id === s.messageId)!.statuses[0].at;
				await report(s.messageId, 'delivered');
				await report(s.messageId, 'sent');
				await stillWaiting(n8n, s, 'delivered, delivered, sent');
				await report(s.messageId, 'read');
				const run = await settledRun(n8n, s, 60_000);
				const out = sendOutput(run);
				assertEqual([out.reached, out.status, out.deliveredAt], [true, 'read', firstDelivered], 'reached, status, deliveredAt');
				await report(s.messageId, 'read');
				await report(s.messageId, 'delivered');
				await new Promise((resolve) => setTimeout(resolve, 2000));
				const again = await execution(n8n, s.workflow.id, s.executionId);
				assertEqual(JSON.stringify(again?.data?.resultData.runData), JSON.stringify(run.data?.resultData.runData), 'the resumed run, unchanged');
			},
		},
		{
			name: 'status waits: the message never read — the run goes on at Limit Wait Time with reached: false',
			timeoutMs: 240_000,
			fn: async () => {
				assert(limited, 'the limited send did not start');
				const run = await settledRun(n8n, limited, 200_000);
				assertEqual(run.status, 'success', 'status');
				const out = sendOutput(run);
				assertEqual([out.message_id, out.wanted, out.reached, out.readAt], [limited.messageId, 'read', false, null], 'message_id, wanted, reached, readAt');
			},
		},
	];
}
