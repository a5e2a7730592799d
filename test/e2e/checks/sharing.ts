/**
 * Several trigger workflows on the one URL the service allows, in a real n8n: the conversations trigger shares
 * (Share With Other Workflows, saved as package 0.2.0 saves it), three trigger workflows receive through it, each
 * with its own Events. Each event is looked up in every workflow's executions by its own id.
 */
import { randomUUID } from 'node:crypto';
import { type ExecutionSummary, type N8n, nodeOutput, underWay } from '../../../tools/n8n/n8n';
import { sleep, waitFor } from '../../../tools/n8n/proc';
import type { Stack } from '../../../tools/n8n/stack';
import { chain, node, type Workflow, webhookIdFor } from '../../../tools/n8n/workflow';
import { CREDENTIAL_TYPE, type CredentialRef, TRIGGER_TYPE, triggerProductionPath } from '../../../tools/n8n/workflows';
import { signedRequest } from '../../trigger/requests';
import { assert, assertEqual, type Check } from '../lib/report';
import { askCustomer, askOutput, askWorkflow, CONVERSATION_TRIGGER_HOOK, newCustomer, settledRun } from './conversations';
import { SANDBOX_SENDER_PHONE } from '../../../tools/sandbox/webhooks';
import { listen } from './listen';

const TRIGGER_NODE = 'Business Messaging Trigger';
/** The suite's sharing trigger: the conversations trigger, saved as package 0.2.0 saves it. */
export const SHARING_WORKFLOW = 'E2E: conversations trigger (Resume Waiting Runs)';
const SHARING = SHARING_WORKFLOW;

/** The workflows that receive through the sharing trigger, each with its own Events. */
const RECEIVERS = {
	orders: { name: 'E2E: sharing, orders', events: ['order.created', 'order.status.updated'], ignoreStatuses: [] as string[] },
	crm: { name: 'E2E: sharing, CRM sync', events: ['message.received', 'contact.created'], ignoreStatuses: [] as string[] },
	statuses: { name: 'E2E: sharing, delivery statuses', events: ['message.status.updated'], ignoreStatuses: ['sent'] },
};
type Receiver = keyof typeof RECEIVERS;
const hookOf = (receiver: Receiver) => webhookIdFor(`e2e-sharing-${receiver}`);

/** A second service account on the same n8n: its own Webhook Secret (the credential the suite makes with it). */
export const SECOND_ACCOUNT = { credential: 'Second account (Business Messaging)', webhookSecret: 'second-account-webhook-secret-0001' };
const SECOND = { sharing: 'E2E: sharing, second account (Share As: Account 2)', orders: 'E2E: sharing, second account’s orders', ask: 'Second' };
const SECOND_HOOK = webhookIdFor('e2e-2nd-sharing');

/** Inactive until the checks activate them. `second`: the second account's credential. */
export function sharingWorkflows(credential: CredentialRef, second: CredentialRef): Workflow[] {
	const trigger = (parameters: Record<string, unknown>, webhookId: string, on = credential) =>
		node(TRIGGER_NODE, TRIGGER_TYPE, 2, { options: {}, ...parameters }, { credentials: { [CREDENTIAL_TYPE]: on }, webhookId });
	return [
		...(Object.keys(RECEIVERS) as Receiver[]).map((receiver) => {
			const { name, events, ignoreStatuses } = RECEIVERS[receiver];
			return chain(`e2eShare${receiver}`, name, [trigger({ receiveFrom: 'sharingTrigger', events, options: { ignoreStatuses } }, hookOf(receiver))]);
		}),
		chain('e2eShareSecondHub', SECOND.sharing, [trigger({ events: ['*'], resumeWaitingRuns: true, shareAs: 2 }, SECOND_HOOK, second)]),
		chain('e2eShareSecondOrders', SECOND.orders, [trigger({ receiveFrom: 'sharingTrigger', events: ['order.created'] }, webhookIdFor('e2e-2nd-orders'), second)]),
		askWorkflow(second, SECOND.ask, {}),
	];
}

/** A customer nobody asked: their messages resume no run. */
const STRANGER = '+15550009876';

/** One event of each kind, each with an id of its own (the `tag`), and which workflows select it. */
function events(tag: string): Array<{ id: string; body: string; selectedBy: Receiver[] }> {
	const at = new Date().toISOString();
	const n = (i: number) => `${tag}-${i}`;
	let i = 0;
	// `ref` names the event in every workflow's runs, whatever fields its kind has.
	const make = (event: string, data: Record<string, unknown>) => JSON.stringify({ event, timestamp: at, data: { ...data, ref: n(++i) } });
	return [
		{ id: n(1), body: make('message.received', { message_id: n(1), conversation_id: 1, from: STRANGER, to: '+15559990000', type: 'text', body: 'hello', timestamp: at }), selectedBy: ['crm'] },
		{ id: n(2), body: make('order.created', { order_id: n(2), conversation_id: 1, status: 'pending', total: 10, currency: 'EUR', created_at: at }), selectedBy: ['orders'] },
		{ id: n(3), body: make('order.status.updated', { order_id: n(3), old_status: 'pending', new_status: 'accepted', updated_at: at }), selectedBy: ['orders'] },
		{ id: n(4), body: make('contact.created', { contact_id: n(4) }), selectedBy: ['crm'] },
		{ id: n(5), body: make('message.status.updated', { message_id: n(5), status: 'sent', timestamp: at }), selectedBy: [] },
		{ id: n(6), body: make('message.status.updated', { message_id: n(6), status: 'read', timestamp: at }), selectedBy: ['statuses'] },
		{ id: n(7), body: make('conversation.created', { conversation_id: n(7), contact_id: 1, phone_number: STRANGER, created_at: at }), selectedBy: [] },
	];
}

/** The event a trigger run holds: its `ref`. */
function eventIdOf(execution: ExecutionSummary): string | undefined {
	const data = (nodeOutput(execution, TRIGGER_NODE)[0]?.data ?? {}) as Record<string, unknown>;
	return data.ref === undefined ? undefined : String(data.ref);
}

/**
 * `deliverTo`: the processes the service's deliveries land on, in turn (n8n itself; queue mode's webhook
 * processes). `webhookUrl`: the sandbox's webhook URL, put back after the test event.
 */
export function sharingChecks(stack: Stack, o: { deliverTo: N8n[]; webhookUrl: string; log: (line: string) => void }): Check[] {
	const { n8n, sandbox } = stack;
	const { webhookUrl, log } = o;
	const secret = sandbox.credentials.webhookSecret;
	const workflowId = (name: string) => stack.workflows.find((w) => w.name === name)!.id;
	const receivers = Object.keys(RECEIVERS) as Receiver[];
	const sharingUrls = o.deliverTo.map((p) => `${p.baseUrl}${triggerProductionPath(CONVERSATION_TRIGGER_HOOK)}`);
	const sharingUrl = sharingUrls[0];
	let turn = 0;

	/** One delivery as the service sends it, to the next process in turn. */
	const post = async (body: string, signWith = secret, timestamp = Math.floor(Date.now() / 1000)) => {
		const url = sharingUrls[turn++ % sharingUrls.length];
		const res = await fetch(url, { method: 'POST', headers: signedRequest(signWith, body, timestamp).headers, body });
		return { status: res.status, body: await res.text() };
	};

	const everyWorkflow = () => [SHARING, ...receivers.map((r) => RECEIVERS[r].name)];

	/** Event refs in each workflow's runs since `since` (execution ids). */
	async function runsSince(since: Record<string, number>): Promise<Record<string, string[]>> {
		const out: Record<string, string[]> = {};
		for (const name of everyWorkflow()) {
			const all = (await n8n.executions(workflowId(name), 250)).filter((e) => Number(e.id) > (since[name] ?? 0) && !underWay(e.status, { waiting: false }));
			out[name] = all.map(eventIdOf).filter((id): id is string => id !== undefined).sort();
		}
		return out;
	}

	/**
	 * Each workflow's runs since `since` are exactly `expected` (event refs per workflow name, none for a
	 * workflow not named): waits until every expected run has ended, then a little longer for runs too many.
	 */
	async function expectRuns(since: Record<string, number>, expected: Record<string, string[]>): Promise<void> {
		const want = (name: string) => [...(expected[name] ?? [])].sort();
		await waitFor('every expected run', async () => {
			const runs = await runsSince(since);
			return everyWorkflow().every((name) => want(name).every((id) => runs[name].includes(id))) ? true : undefined;
		}, 60_000, 300).catch(() => undefined);
		await sleep(1500);
		const runs = await runsSince(since);
		for (const name of everyWorkflow()) assertEqual(runs[name], want(name), `events in ${name}`);
	}

	async function newest(): Promise<Record<string, number>> {
		const out: Record<string, number> = {};
		for (const name of everyWorkflow()) out[name] = Math.max(0, ...(await n8n.executions(workflowId(name), 1)).map((e) => Number(e.id)));
		return out;
	}

	/** Sends one event of each kind; each must be answered 200 and run exactly in the workflows that select it. */
	async function eachEventOnce(tag: string, active: Receiver[] = receivers): Promise<void> {
		const since = await newest();
		const sent = events(tag);
		for (const e of sent) {
			const answer = await post(e.body);
			assertEqual(answer.status, 200, `the answer to ${e.id} (${answer.body})`);
		}
		// The sharing trigger's workflow selects every event.
		const expected: Record<string, string[]> = { [SHARING]: sent.map((e) => e.id) };
		for (const r of active) expected[RECEIVERS[r].name] = sent.filter((e) => e.selectedBy.includes(r)).map((e) => e.id);
		await expectRuns(since, expected);
	}

	/** Until one event reaches every active receiver (a receiver activated before the sharing trigger registers again within seconds). */
	async function untilEveryoneReceives(active: Receiver[]): Promise<void> {
		const started = Date.now();
		await waitFor('every workflow to receive through the sharing trigger', async () => {
			const since = await newest();
			const probe = events(`probe-${randomUUID().slice(0, 8)}`);
			for (const e of probe) await post(e.body);
			await sleep(1000);
			const runs = await runsSince(since);
			return active.every((r) => probe.filter((e) => e.selectedBy.includes(r)).every((e) => runs[RECEIVERS[r].name].includes(e.id))) ? true : undefined;
		}, 90_000, 500);
		log(`every workflow received ${((Date.now() - started) / 1000).toFixed(1)} s after the last activation`);
	}

	/**
	 * n8n 2.x answers a deactivation before it removes the webhook (its publication outbox does that a moment
	 * later, workflow.service.js `_unpublishViaOutbox`); until then the workflow still takes requests, from the
	 * service as from the sharing trigger. Waits until every process answers the receiver's own URL 404
	 * (an unsigned POST: 401 while it is registered, and it starts nothing); returns how long that took.
	 */
	async function untilRemoved(receiver: Receiver): Promise<number> {
		const started = Date.now();
		const url = (p: N8n) => `${p.baseUrl}${triggerProductionPath(hookOf(receiver))}`;
		const removed = async () => (await Promise.all(o.deliverTo.map(async (p) => (await fetch(url(p), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status))).every((code) => code === 404);
		await waitFor(`n8n to remove the webhook of ${RECEIVERS[receiver].name}`, async () => ((await removed()) ? true : undefined), 30_000, 100);
		return Date.now() - started;
	}

	const activate = async (name: string) => await n8n.activate(workflowId(name));
	const deactivate = async (name: string) => await n8n.deactivate(workflowId(name));

	return [
		{
			name: 'sharing: three trigger workflows with different Events receive through the trigger that shares (its URL the only one in the dashboard): each event runs in exactly the workflows that select it, and the service gets 200 once each holds its run',
			fn: async () => {
				for (const r of receivers) await activate(RECEIVERS[r].name);
				await eachEventOnce(`first-${randomUUID().slice(0, 8)}`);
			},
		},
		{
			name: 'sharing: activation in every order (the receiving workflows before the sharing one, after it, in between), and after an n8n restart: then each event runs in exactly the workflows that select it',
			timeoutMs: 600_000,
			fn: async () => {
				const orders: Array<{ title: string; steps: string[] }> = [
					{ title: 'receivers first', steps: [...receivers.map((r) => RECEIVERS[r].name), SHARING] },
					{ title: 'sharing first', steps: [SHARING, ...receivers.map((r) => RECEIVERS[r].name)] },
					{ title: 'in between', steps: [RECEIVERS.orders.name, SHARING, RECEIVERS.crm.name, RECEIVERS.statuses.name] },
				];
				for (const order of orders) {
					for (const name of [SHARING, ...receivers.map((r) => RECEIVERS[r].name)]) await deactivate(name);
					for (const name of order.steps) await activate(name);
					await untilEveryoneReceives(receivers);
					await eachEventOnce(`order-${order.title.replace(/\W/g, '')}-${randomUUID().slice(0, 6)}`);
				}
				await n8n.stop();
				await n8n.start();
				await untilEveryoneReceives(receivers);
				await eachEventOnce(`restart-${randomUUID().slice(0, 8)}`);
			},
		},
		{
			name: 'sharing: a workflow deactivated while events stream in stops receiving once n8n has removed its webhook, and holds up none: every event answered 200 and run in the sharing workflow; the deactivated one got only the events before',
			timeoutMs: 300_000,
			fn: async () => {
				const since = await newest();
				const ids: string[] = [];
				const at = new Date().toISOString();
				try {
					for (let i = 0; i < 20; i++) {
						const id = `stream-${randomUUID().slice(0, 8)}-${String(i).padStart(2, '0')}`;
						ids.push(id);
						const body = JSON.stringify({ event: 'message.received', timestamp: at, data: { message_id: id, ref: id, conversation_id: 1, from: STRANGER, to: '+15559990000', type: 'text', body: 'hi', timestamp: at } });
						const answer = await post(body);
						assertEqual(answer.status, 200, `the answer to event ${i} (${answer.body})`);
						if (i === 9) {
							await deactivate(RECEIVERS.crm.name);
							o.log(`n8n removed the deactivated workflow's webhook ${await untilRemoved('crm')} ms after it answered the deactivation`);
						}
					}
					await expectRuns(since, { [SHARING]: ids, [RECEIVERS.crm.name]: ids.slice(0, 10) });
				} finally {
					await activate(RECEIVERS.crm.name);
				}
			},
		},
		{
			name: 'sharing: eight copies of one event at the same moment, then the service’s retry, start one run in each workflow that selects it',
			fn: async () => {
				const since = await newest();
				const [message] = events(`copies-${randomUUID().slice(0, 8)}`);
				const base = Math.floor(Date.now() / 1000);
				const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(message.body, secret, base - (i % 4))));
				assertEqual(answers.map((a) => a.status), Array(8).fill(200), `the answers (${answers.map((a) => a.body).join(' ')})`);
				assertEqual((await post(message.body)).status, 200, 'the retry');
				await expectRuns(since, { [SHARING]: [message.id], [RECEIVERS.crm.name]: [message.id] });
			},
		},
		{
			name: 'sharing: a forged, unsigned or stale event is refused (401) and starts nothing in any workflow',
			fn: async () => {
				const since = await newest();
				const [message] = events(`forged-${randomUUID().slice(0, 8)}`);
				assertEqual((await post(message.body, 'not-the-dashboard-secret')).status, 401, 'signed with another secret');
				assertEqual((await post(message.body, secret, Math.floor(Date.now() / 1000) - 400)).status, 401, 'stale');
				for (const url of sharingUrls) {
					const unsigned = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: message.body });
					assertEqual(unsigned.status, 401, `unsigned, to ${url}`);
				}
				await expectRuns(since, {});
			},
		},
		{
			name: 'sharing: a second service account on the same n8n (its sharing trigger with Share As: Account 2, its own Webhook Secret): its receiving trigger and its Ask and Wait for Chat Reply find their account’s sharing trigger by the secret; each account’s events reach only its own workflows',
			timeoutMs: 300_000,
			fn: async () => {
				const second = (name: string) => stack.workflows.find((w) => w.name === name)!;
				await activate(SECOND.orders);
				await activate(SECOND.sharing);
				const url = `${o.deliverTo[0].baseUrl}${triggerProductionPath(SECOND_HOOK)}`;
				const postB = async (body: string) => {
					const res = await fetch(url, { method: 'POST', headers: signedRequest(SECOND_ACCOUNT.webhookSecret, body, Math.floor(Date.now() / 1000)).headers, body });
					return { status: res.status, body: await res.text() };
				};
				try {
					// The orders trigger was activated first: it registers again within seconds.
					const ordersB = second(SECOND.orders).id;
					const before = Math.max(0, ...(await n8n.executions(ordersB, 1)).map((e) => Number(e.id)));
					const since = await newest();
					const [, order] = events(`second-${randomUUID().slice(0, 8)}`);
					await waitFor('the second account’s orders workflow to receive', async () => {
						assertEqual((await postB(order.body)).status, 200, 'the second account’s event');
						await sleep(1000);
						return (await n8n.executions(ordersB, 5)).some((e) => Number(e.id) > before && eventIdOf(e) === order.id) ? true : undefined;
					}, 60_000, 1000);
					// The first account's workflows got none of it.
					await expectRuns(since, {});
					// A question asked with the second account's credential, answered through its sharing trigger.
					const customer = newCustomer();
					const question = await askCustomer(stack, second(`E2E: ask and wait for chat reply (${SECOND.ask})`), customer, 'ORD-B');
					const at = new Date().toISOString();
					const reply = JSON.stringify({ event: 'message.received', timestamp: at, data: { message_id: `wamid.second.${randomUUID().slice(0, 6)}`, conversation_id: 2, from: customer, to: SANDBOX_SENDER_PHONE, type: 'text', body: 'yes', timestamp: at } });
					assertEqual((await postB(reply)).status, 200, 'the reply, to the second account’s sharing trigger');
					const resumed = await settledRun(n8n, question);
					assertEqual([resumed.status, askOutput(resumed).replied], ['success', true], 'the second account’s asking run');
				} finally {
					await deactivate(SECOND.sharing).catch(() => undefined);
					await deactivate(SECOND.orders).catch(() => undefined);
				}
			},
		},
		{
			name: 'sharing: listening for a test event (Execute step) on a trigger that receives through the sharing one: Webhook → Send Test Event shows in its output, marked as the service’s test event',
			fn: async () => {
				const workflow = stack.workflows.find((w) => w.name === RECEIVERS.crm.name)!;
				const since = await newest();
				await listen(n8n, workflow, 'step', hookOf('crm'));
				await sandbox.setWebhookUrl(sharingUrl);
				try {
					const sender = stack.workflows.find((w) => w.name.startsWith('E2E: ask the service'));
					assert(sender, 'no send-test-event workflow');
					const { runThroughServer } = await import('./actions');
					assertEqual((await runThroughServer(n8n, sender)).status, 'success', 'Send Test Event');
					// The workflow is active too: its production run gets the test event as well, as from the dashboard.
					const execution = await waitFor('the listening run', async () => (await n8n.executions(workflow.id)).find((e) => Number(e.id) > since[workflow.name] && e.mode === 'manual' && !underWay(e.status)), 60_000, 300);
					const [item] = nodeOutput(execution, TRIGGER_NODE);
					assertEqual([item?.event, item?.testEvent], ['message.received', true], 'the listening run’s event, marked as the test event');
				} finally {
					await sandbox.setWebhookUrl(webhookUrl);
				}
			},
		},
	];
}

/** The workflows the sharing checks activate themselves (the receivers and the second account's pair), not the set-up. */
export const activatedBySharingChecks = (workflow: Workflow) => [...Object.values(RECEIVERS).map((r) => r.name), SECOND.sharing, SECOND.orders].includes(workflow.name);
