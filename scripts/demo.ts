/**
 * npm run demo: the sandbox and a real n8n with this package, a ready credential and example workflows.
 * State lives in .demo/ (git-ignored) and is started afresh each time. Ctrl-C stops everything.
 *   DEMO_PORT (n8n, default 5678), DEMO_SANDBOX_PORT (default 8765), DEMO_DIR (default .demo)
 */
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { n8nId, REPO_ROOT } from '../tools/n8n/n8n';
import { freePort, installCleanupHandlers, stopAll } from '../tools/n8n/proc';
import { startStack, waitForWebhook } from '../tools/n8n/stack';
import { chain, manualTrigger, webhookIdFor } from '../tools/n8n/workflow';
import { action, CREDENTIAL_TYPE, DEMO_CREDENTIAL_FIELDS, exampleWorkflow, replyWorkflow, triggerProductionPath } from '../tools/n8n/workflows';

const OWNER = {
	email: 'demo@example.com',
	password: 'Demo-Passw0rd!',
	firstName: 'Demo',
	lastName: 'Owner',
};
const TRIGGER_WEBHOOK_ID = webhookIdFor('demo-trigger');

function isFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/** Said when the demo starts and again under its banner. */
const notices: string[] = [];

/** `wanted` when free; otherwise another free port, and a notice the user cannot miss. */
async function portOr(wanted: number, what: string, path = ''): Promise<number> {
	if (await isFree(wanted)) return wanted;
	const port = await freePort();
	notices.push(
		`! Port ${wanted} is busy (another program listens there), so ${what} runs at http://127.0.0.1:${port}${path} instead: open that address, not port ${wanted}.`,
	);
	console.log(notices[notices.length - 1]);
	return port;
}

async function main(): Promise<void> {
	installCleanupHandlers();
	const dir = process.env.DEMO_DIR ?? join(REPO_ROOT, '.demo');
	rmSync(dir, { recursive: true, force: true });
	const n8nPort = await portOr(Number(process.env.DEMO_PORT ?? 5678), 'n8n');
	const sandboxPort = await portOr(Number(process.env.DEMO_SANDBOX_PORT ?? 8765), 'the sandbox');
	const stack = await startStack({
		dir,
		owner: OWNER,
		n8nPort,
		sandboxPort,
		credentialFields: DEMO_CREDENTIAL_FIELDS,
		// Retries 1 min, 5 min, … become 6 s, 30 s, … so a failed delivery shows its retries quickly.
		timeScale: 10,
		log: (line) => console.log(`· ${line}`),
		workflows: ({ credential }) => [
			chain('demoOrderUpdate', 'Demo: accept order 6 and mark it paid', [
				manualTrigger('Click to run'),
				action('Update Order', credential, {
					resource: 'order',
					operation: 'update',
					orderId: '6',
					updateFields: { status: 'accepted', paymentStatus: 'paid', adminNotes: 'Accepted in the demo' },
				}),
			]),
			chain('demoTemplateLookup', 'Demo: look up templates', [
				manualTrigger('Click to run'),
				action('Search Templates', credential, {
					resource: 'template',
					operation: 'getAll',
					returnAll: false,
					limit: 10,
					filters: { searchTerm: 'order' },
				}),
				action(
					'Get Template 2',
					credential,
					{ resource: 'template', operation: 'get', templateId: { __rl: true, mode: 'id', value: '2' } },
					{ executeOnce: true },
				),
			]),
			chain('demoSendText', 'Demo: send a text message', [
				manualTrigger('Click to run'),
				action('Send Text', credential, {
					resource: 'message',
					operation: 'sendText',
					phone: '+15551234567',
					text: 'Hello from n8n!',
				}),
			]),
			chain('demoSendTestEvent', 'Demo: ask the service for a test event', [
				manualTrigger('Click to run'),
				action('Send Test Event', credential, { resource: 'webhook', operation: 'sendTest' }),
			]),
			// Inactive until the user picks an OpenAI credential (see the README's AI agent section).
			exampleWorkflow('support-bot.json', 'demoSupportBot', { [CREDENTIAL_TYPE]: credential }),
			// Active: a shop posts an order, the customer answers YES / NO in the chat (the sandbox plays them).
			exampleWorkflow('order-confirmation.json', 'demoOrderConfirm', { [CREDENTIAL_TYPE]: credential }),
			// Active: a payment reminder that waits for the service's `read` status and escalates at its limit.
			exampleWorkflow('payment-reminder.json', 'demoPayReminder', { [CREDENTIAL_TYPE]: credential }),
			// Active, on the same sandbox URL: new orders come through the auto-reply's trigger, which shares.
			exampleWorkflow('orders.json', 'demoOrders', { [CREDENTIAL_TYPE]: credential }),
			replyWorkflow(credential, {
				id: 'demoAutoReply',
				name: 'Demo: answer incoming messages (active)',
				webhookId: TRIGGER_WEBHOOK_ID,
				resumeWaitingRuns: true,
			}),
		],
		// The sharing trigger first: the orders workflow receives through it.
		activate: (workflows) => [workflows[workflows.length - 1].id, ...workflows.filter((w) => [n8nId('demoOrderConfirm'), n8nId('demoPayReminder'), n8nId('demoOrders')].includes(w.id)).map((w) => w.id)],
	});
	const { n8n, sandbox } = stack;
	const supportBot = stack.workflows.find((w) => w.id === n8nId('demoSupportBot'))!;
	const ordersName = stack.workflows.find((w) => w.id === n8nId('demoOrders'))!.name;
	const productionUrl = `${n8n.baseUrl}${triggerProductionPath(TRIGGER_WEBHOOK_ID)}`;
	await sandbox.setWebhookUrl(productionUrl);
	await waitForWebhook(productionUrl).catch(() => undefined);
	const handshake = await sandbox.verify().catch((e: Error) => ({ ok: false, status: null, body: e.message }));
	const sb = sandbox.url;
	console.log(`
n8n is running:        ${n8n.baseUrl}
  log in as            ${OWNER.email}  /  ${OWNER.password}
  credential           "${stack.credential.name}" (points at the sandbox; Business Name ${DEMO_CREDENTIAL_FIELDS.businessName})
  workflows            Demo: accept order 6 · look up templates · send a text · ask for a test event
                       Demo: answer incoming messages (active; its trigger shares the events: it resumes runs waiting for a chat reply)
                       ${ordersName} (active; receives through that trigger, on the same URL)
                       Business Messaging: order confirmation in the chat (active)
                       Business Messaging: payment reminder that escalates when it is not read in time (active)
                       ${supportBot.name}: pick an OpenAI credential to try it
Sandbox (the service): ${sb}
  webhook URL set to   ${productionUrl}
  verification         ${handshake.ok ? 'ok (the trigger answered the challenge)' : `failed: ${handshake.status} ${handshake.body}`}

Make the service send events to the one URL (each starts the workflows that select it; a received message gets a reply):
  curl -s -X POST ${sb}/_sandbox/deliver -H 'Content-Type: application/json' \\
    -d '{"event":"message.received","data":{"message_id":"wamid.demo.1","conversation_id":1,"from":"+15550001234","to":"+15559990000","type":"text","body":"Hi there!","timestamp":"2026-01-01T00:00:00Z"}}'
  curl -s -X POST ${sb}/_sandbox/deliver -H 'Content-Type: application/json' -d '{"event":"order.status.updated"}'
  curl -s -X POST ${sb}/_sandbox/deliver -H 'Content-Type: application/json' -d '{"event":"order.created"}'   # the orders workflow accepts order 61
  curl -s -X POST ${sb}/_sandbox/deliver -H 'Content-Type: application/json' -d '{"event":"order.created","signWith":"forged"}'   # answered 401, starts nothing
  curl -s ${sb}/_sandbox/deliveries          # delivery states and attempts
  curl -s ${sb}/_sandbox/messages?bytes=0     # messages sent, the replies included
Or run "Demo: ask the service for a test event" in n8n: the action node calls POST /webhooks/test.

Ask a customer and continue on their reply in the chat (examples/order-confirmation.json):
  curl -s -X POST ${n8n.baseUrl}/webhook/order-confirmation -H 'Content-Type: application/json' \
    -d '{"order_id":11,"order_number":"ORD-0011","phone":"+15551234567"}'     # the YES / NO question goes out; the run waits
  curl -s -X POST ${sb}/_sandbox/customer-message -d '{"from":"+15551234567","body":"yes"}'   # the customer answers: order 11 is confirmed

Send a reminder and continue once it is read, or escalate at its limit (examples/payment-reminder.json):
  curl -s -X POST ${sb}/_sandbox/statuses -d '{"phone":"+15551234567","schedule":{"sentMs":0,"deliveredMs":2000,"readMs":10000}}'   # this customer's messages are delivered, then read ("readMs":null: never read)
  curl -s -X POST ${n8n.baseUrl}/webhook/payment-reminder -H 'Content-Type: application/json' \
    -d '{"phone":"+15551234567","invoice":"INV-0042","amount":"EUR 120.00","staff_phone":"+15559990001"}'   # the run waits for "read" (up to 2 hours)
Executions: ${n8n.baseUrl}/home/executions

Logs: ${join(dir, 'n8n', 'n8n.log')}, ${join(dir, 'sandbox.log')}
Ctrl-C stops n8n and the sandbox.${notices.map((notice) => `\n${notice}`).join('')}`);
	await new Promise(() => undefined);
}

main().catch(async (error) => {
	console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
	await stopAll();
	process.exit(1);
});
