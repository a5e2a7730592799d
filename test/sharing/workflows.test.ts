/**
 * Several trigger workflows on one URL, in process: the trigger that shares (Share With Other Workflows) and
 * triggers set to receive through it, each the real node through n8n-core, on one stand-in n8n
 * (test/helpers/sharingN8n.ts). What the service sees (its answer) and what each workflow gets (its runs).
 * In real n8n, on every supported version and in queue mode: test/e2e/checks/sharing.ts.
 */
import { sign } from '../trigger/requests';
import { waitFor } from '../sandbox/test-helpers';
import { TEST_WEBHOOK_SECRET, DEFAULT_CREDENTIALS } from '../helpers/webhook';
import { startSharingN8n, type StandInN8n, type StandInTrigger } from '../helpers/sharingN8n';
import { WAITS_MESSAGE_TYPE, WAITS_PATH } from '../../nodes/shared/sharing';

const THROUGH = { receiveFrom: 'sharingTrigger' };
const SHARES = { resumeWaitingRuns: true };
let n8n: StandInN8n;

beforeEach(async () => (n8n = await startSharingN8n()));
afterEach(async () => await n8n.stop());

let sequence = 0;
function event(name: string, data: Record<string, unknown> = {}): string {
	sequence++;
	const base = name === 'message.received' ? { message_id: `wamid.${sequence}`, conversation_id: 1, from: '+15550001111', to: '+15559990000', type: 'text', body: `hello ${sequence}`, timestamp: '2026-11-28T10:00:00Z' } : { order_id: sequence };
	return JSON.stringify({ event: name, timestamp: new Date().toISOString(), data: { ...base, ...data } });
}

function signed(text: string, secret = TEST_WEBHOOK_SECRET) {
	const ts = String(Math.floor(Date.now() / 1000));
	return { headers: { 'content-type': 'application/json', 'x-service-webhook-signature': sign(secret, ts, text), 'x-service-webhook-timestamp': ts }, body: text };
}

/** The service delivers `text` to the sharing trigger's Production URL. */
const deliver = async (to: StandInTrigger, text: string, secret?: string) => await n8n.post(`/webhook/${to.webhookId}/webhook`, signed(text, secret));

const runsOf = (t: StandInTrigger) => t.runs.map((item) => ((item as { json: { data: { message_id?: string; order_id?: number } } }).json.data.message_id ?? (item as { json: { data: { order_id?: number } } }).json.data.order_id));

/** Until `hub`'s saved static data holds a registration of `receiver` (it registers again every few seconds), at most 20 s. */
const registeredAt = async (hub: StandInTrigger, receiver: StandInTrigger) =>
	await waitFor(() => JSON.stringify(hub.harness.savedStaticData() ?? {}).includes(receiver.webhookId), 20_000).catch(() => undefined);

async function threeWorkflows() {
	const hub = n8n.trigger('Support bot', { events: ['message.received'], ...SHARES });
	const orders = n8n.trigger('Orders', { events: ['order.created', 'order.status.updated'], ...THROUGH });
	const crm = n8n.trigger('CRM sync', { events: ['message.received', 'contact.created'], ...THROUGH });
	return { hub, orders, crm };
}

describe('one URL, every workflow', () => {
	test('each event runs in exactly the workflows whose Events select it; the service gets 200 once each holds its run', async () => {
		const { hub, orders, crm } = await threeWorkflows();
		for (const t of [hub, orders, crm]) expect((await t.activate()).filter((line) => line.startsWith('warn'))).toEqual([]);
		const message = event('message.received');
		const order = event('order.created');
		const contact = event('contact.created');
		const answers = [await deliver(hub, message), await deliver(hub, order), await deliver(hub, contact)];
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
		expect(answers[0].body).toEqual({ executionStarted: true, executionId: '1' });
		expect(answers[1].body).toEqual({ received: true, ignored: 'event not selected' });
		const [messageId, orderId] = [JSON.parse(message).data.message_id, JSON.parse(order).data.order_id];
		expect([runsOf(hub), runsOf(orders), runsOf(crm)]).toEqual([[messageId], [orderId], [messageId, JSON.parse(contact).data.order_id]]);
	});

	test('a workflow that cannot take the event yet (n8n answers it 500) makes the service retry; the retry starts runs only where none exists', async () => {
		const { hub, orders, crm } = await threeWorkflows();
		for (const t of [hub, orders, crm]) await t.activate();
		crm.harness.failNextRuns = 1;
		const message = event('message.received');
		const first = await deliver(hub, message);
		expect([first.status, first.body]).toEqual([503, { error: 'could not hand the event to every workflow' }]);
		const retry = await deliver(hub, message);
		expect(retry.status).toBe(200);
		const again = await deliver(hub, message);
		expect([again.status, again.body]).toEqual([200, { received: true, ignored: 'duplicate delivery' }]);
		expect([runsOf(hub).length, runsOf(crm).length, runsOf(orders).length]).toEqual([1, 1, 0]);
	});

	test('the same event delivered twice at the same moment starts one run per workflow', async () => {
		const { hub, crm } = await threeWorkflows();
		for (const t of [hub, crm]) await t.activate();
		const message = event('message.received');
		const answers = await Promise.all([deliver(hub, message), deliver(hub, message)]);
		expect(answers.map((a) => a.status)).toEqual([200, 200]);
		expect([runsOf(hub).length, runsOf(crm).length]).toEqual([1, 1]);
	});

	test('a deactivated workflow stops receiving at once; one whose webhook is gone (deleted while the sharing trigger was unreachable) is dropped and holds up nobody', async () => {
		const { hub, orders, crm } = await threeWorkflows();
		for (const t of [hub, orders, crm]) await t.activate();
		await crm.deactivate();
		expect((await deliver(hub, event('message.received'))).status).toBe(200);
		expect(crm.answers).toEqual([]);
		// Gone without telling the sharing trigger: n8n answers its webhook 404.
		orders.active = false;
		expect((await deliver(hub, event('order.created'))).status).toBe(200);
		expect((await deliver(hub, event('order.created'))).status).toBe(200);
		expect(hub.answers.flatMap((a) => a.logs).filter((l) => /Orders.*404.*no longer receives/.test(l))).toHaveLength(1);
	});

	test('a forged event reaches no workflow', async () => {
		const { hub, crm } = await threeWorkflows();
		for (const t of [hub, crm]) await t.activate();
		expect((await deliver(hub, event('message.received'), 'not-the-secret')).status).toBe(401);
		expect([hub.runs, crm.answers]).toEqual([[], []]);
	});

	test('what the sharing trigger holds survives a restart', async () => {
		const { hub, crm } = await threeWorkflows();
		for (const t of [hub, crm]) await t.activate();
		n8n.restart();
		const message = event('message.received');
		expect((await deliver(hub, message)).status).toBe(200);
		expect(runsOf(crm)).toEqual([JSON.parse(message).data.message_id]);
	});

	test('a workflow activated before the sharing trigger receives once that one is active (it registers again within seconds)', async () => {
		const { hub, crm } = await threeWorkflows();
		const logs = await crm.activate();
		expect(logs.join('\n')).toMatch(/No Business Messaging Trigger on this n8n shares your service’s events: this workflow receives nothing until then/);
		await hub.activate();
		await registeredAt(hub, crm);
		const message = event('message.received');
		expect((await deliver(hub, message)).status).toBe(200);
		expect(runsOf(crm)).toEqual([JSON.parse(message).data.message_id]);
	});

	test('a second trigger that shares is refused at activation, naming the first workflow', async () => {
		const { hub } = await threeWorkflows();
		await hub.activate();
		const second = n8n.trigger('Another bot', { ...SHARES });
		await expect(second.activate()).rejects.toThrow(/Another Business Messaging Trigger on this n8n already shares this account’s events: workflow "Support bot"/);
	});

	test('listening for a test event works on a trigger that receives through the sharing one; a listener that is gone holds up nothing', async () => {
		const { hub, crm } = await threeWorkflows();
		await hub.activate();
		await crm.listen();
		const test = event('message.received', { test: true });
		expect((await deliver(hub, test)).status).toBe(200);
		expect(crm.heard.map((h) => [h.statusCode, h.workflowStarted])).toEqual([[200, true]]);
		expect(crm.heard[0].items[0].json).toMatchObject({ testEvent: true });
		// n8n stopped listening after that one request; the next event goes to nobody else.
		expect((await deliver(hub, event('message.received'))).status).toBe(200);
		expect(crm.heard).toHaveLength(1);
	});

	test('listening with nothing that shares fails at once, saying what to set up', async () => {
		const { crm } = await threeWorkflows();
		await expect(crm.listen()).rejects.toThrow(/No Business Messaging Trigger on this n8n shares your service’s events/);
	});

	test('the sharing trigger keeps only signed registrations for addresses of this n8n', async () => {
		const { hub } = await threeWorkflows();
		await hub.activate();
		const registration = (url: string) => JSON.stringify({ type: WAITS_MESSAGE_TYPE, action: 'subscribe', subscription: { id: 'sub-00000001', key: 'wf-x/node-x', url, events: ['*'], ignoreStatuses: [], workflow: 'x', registeredAt: Date.now(), until: 0 } });
		expect((await n8n.post(`/webhook/${WAITS_PATH}`, signed(registration('https://elsewhere.example/webhook/x/webhook')))).status).toBe(400);
		expect((await n8n.post(`/webhook/${WAITS_PATH}`, signed(registration(`${n8n.url}/webhook/x/webhook`), 'wrong'))).status).toBe(401);
		expect((await n8n.post(`/webhook/${WAITS_PATH}`, signed(registration(`${n8n.url}/webhook/x/webhook`)))).status).toBe(200);
	});

	test('a trigger with another Webhook Secret (another account) is never registered', async () => {
		const hub = n8n.trigger('Support bot', { ...SHARES });
		await hub.activate();
		const other = n8n.trigger('Other account', { ...THROUGH }, { ...DEFAULT_CREDENTIALS, webhookSecret: 'another-accounts-secret-000000' });
		expect((await other.activate()).join('\n')).toMatch(/uses another Webhook Secret/);
		expect((await deliver(hub, event('message.received'))).status).toBe(200);
		expect(other.answers).toEqual([]);
	});
});

describe('several service accounts on one n8n', () => {
	const SECRET_B = 'account-b-webhook-secret-00000001';
	const accountB = { ...DEFAULT_CREDENTIALS, webhookSecret: SECRET_B };

	test('each account’s sharing trigger (Share As) serves its own account’s workflows; a trigger finds its account’s by its Webhook Secret', async () => {
		const hubA = n8n.trigger('Shop A bot', { events: ['message.received'], ...SHARES });
		const hubB = n8n.trigger('Shop B bot', { events: ['message.received'], ...SHARES, shareAs: 2 }, accountB);
		const ordersA = n8n.trigger('Shop A orders', { events: ['order.created'], ...THROUGH });
		const ordersB = n8n.trigger('Shop B orders', { events: ['order.created'], ...THROUGH }, accountB);
		for (const t of [ordersB, hubA, hubB, ordersA]) await t.activate();
		await registeredAt(hubB, ordersB); // ordersB registers again once hub B is there
		const [orderA, orderB] = [event('order.created'), event('order.created')];
		expect((await deliver(hubA, orderA)).status).toBe(200);
		expect((await deliver(hubB, orderB, SECRET_B)).status).toBe(200);
		expect([runsOf(ordersA), runsOf(ordersB)]).toEqual([[JSON.parse(orderA).data.order_id], [JSON.parse(orderB).data.order_id]]);
	});

	test('a second sharing trigger of one account is refused, whatever its Share As; an account’s Share As taken by another account is refused', async () => {
		const hubA = n8n.trigger('Shop A bot', { ...SHARES });
		await hubA.activate();
		await expect(n8n.trigger('Shop A again', { ...SHARES, shareAs: 2 }).activate()).rejects.toThrow(/already shares this account’s events: workflow "Shop A bot"/);
		await expect(n8n.trigger('Shop B bot', { ...SHARES }, accountB).activate()).rejects.toThrow(/Another service account’s events are shared on this n8n as Account 1/);
		await n8n.trigger('Shop B bot on 2', { ...SHARES, shareAs: 2 }, accountB).activate();
	});
});
