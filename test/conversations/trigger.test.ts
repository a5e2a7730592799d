/**
 * The Business Messaging Trigger with Resume Waiting Runs, through n8n-core's WebhookContext
 * (test/helpers/webhook.ts): its waits webhook takes only signed registrations, and a customer's reply
 * goes to the newest run waiting for that customer and sender number, byte for byte with the service's
 * signature, answered 2xx only once n8n holds the run. The resume address here is a stand-in that
 * answers as the test says; real n8n resuming real runs: test/e2e/checks/conversations.ts.
 */
import { Workflow, type INode, type INodeTypes } from 'n8n-workflow';

import { verifySignature } from '../../credentials/webhookSignature';

import { BusinessMessagingTrigger } from '../../nodes/BusinessMessagingTrigger/BusinessMessagingTrigger.node';
import { forgetRegistrations } from '../../nodes/BusinessMessagingTrigger/sharing/registry';
import { forgetInProcessDeliveries } from '../../nodes/BusinessMessagingTrigger/deliveryStore';
import { WAITS_MESSAGE_TYPE, WAITS_PATH, type WaitRegistration } from '../../nodes/shared/sharing';
import { startTriggerStandIn, type TriggerStandIn } from '../helpers/conversation';
import { sign } from '../trigger/requests';
import { TEST_WEBHOOK_SECRET, TriggerHarness, type WebhookOutcome } from '../helpers/webhook';

const CUSTOMER = '+15550001111';
const SENDER = '+15559990000';
let standIn: TriggerStandIn;

beforeEach(async () => {
	forgetRegistrations();
	standIn = await startTriggerStandIn();
});
afterEach(async () => await standIn.stop());

function signed(text: string, secret = TEST_WEBHOOK_SECRET, timestamp = Math.floor(Date.now() / 1000)) {
	const ts = String(timestamp);
	return { 'content-type': 'application/json', 'x-service-webhook-signature': sign(secret, ts, text), 'x-service-webhook-timestamp': ts };
}

function wait(id: string, extra: Partial<WaitRegistration> = {}): WaitRegistration {
	return { id, customer: CUSTOMER, sender: '', resumeUrl: `${standIn.url}/webhook-waiting/7/node-1?wait=${id}`, until: 0, askedAt: Date.now(), ...extra };
}

async function register(trigger: TriggerHarness, registration: WaitRegistration, secret = TEST_WEBHOOK_SECRET): Promise<WebhookOutcome> {
	const text = JSON.stringify({ type: WAITS_MESSAGE_TYPE, action: 'register', wait: registration });
	return await trigger.send({ path: `/webhook/${WAITS_PATH}`, headers: signed(text, secret), body: text });
}

async function check(trigger: TriggerHarness, id: string): Promise<WebhookOutcome> {
	const text = JSON.stringify({ type: WAITS_MESSAGE_TYPE, action: 'check', id });
	return await trigger.send({ path: `/webhook/${WAITS_PATH}`, headers: signed(text), body: text });
}

function messageBody(from: string, body: string, to = SENDER): string {
	const at = new Date().toISOString();
	return JSON.stringify({ event: 'message.received', timestamp: at, data: { message_id: `wamid.${Math.random()}`, conversation_id: 1, from, to, type: 'text', body, timestamp: at } });
}

async function deliver(trigger: TriggerHarness, text: string): Promise<WebhookOutcome> {
	return await trigger.send({ headers: signed(text), body: text });
}

const harness = (parameters: Record<string, unknown> = {}) =>
	new TriggerHarness({ parameters: { events: ['*'], resumeWaitingRuns: true, ...parameters }, typeVersion: 2, workflowId: 'trigger-workflow' });

describe('the waits webhook', () => {
	test('is registered by n8n only while Share With Other Workflows is on, at its Share As account’s path: the templates n8n evaluates and the resolvers n8n 2.41 uses agree', () => {
		const description = new BusinessMessagingTrigger().description.webhooks!.find((w) => w.name === 'setup')!;
		expect(description).toMatchObject({ isFullPath: true, ndvHideUrl: true, responseMode: 'onReceived', responseData: '' });
		const resolvers = (description as unknown as Record<symbol, Record<string, { template: string; resolve: (p: object) => string }>>)[Symbol.for('n8n.webhookDescriptionResolvers')];
		expect([resolvers.httpMethod.template, resolvers.path.template]).toEqual([description.httpMethod, description.path]);
		const nodeTypes = { getByName: () => new BusinessMessagingTrigger(), getByNameAndVersion: () => new BusinessMessagingTrigger(), getKnownTypes: () => ({}) } as unknown as INodeTypes;
		const cases = [
			[{ resumeWaitingRuns: true }, 'POST', WAITS_PATH],
			[{ resumeWaitingRuns: true, shareAs: 2 }, 'POST', `${WAITS_PATH}-2`],
			[{ resumeWaitingRuns: true, shareAs: 3 }, 'POST', `${WAITS_PATH}-3`],
			[{ resumeWaitingRuns: true, receiveFrom: 'sharingTrigger' }, '', WAITS_PATH],
			[{ resumeWaitingRuns: false }, '', WAITS_PATH],
			[{}, '', WAITS_PATH],
		] as const;
		for (const [parameters, method, path] of cases) {
			const node: INode = { id: 'n', name: 'Trigger', type: 'x.businessMessagingTrigger', typeVersion: 2, position: [0, 0], parameters: { events: ['*'], ...parameters } };
			const workflow = new Workflow({ id: 'w', nodes: [node], connections: {}, active: true, nodeTypes });
			const filled = workflow.getNode('Trigger')!.parameters;
			const evaluated = (template: string) => workflow.expression.getSimpleParameterValue(node, template, 'internal', {});
			expect([evaluated(description.httpMethod as string), resolvers.httpMethod.resolve(filled), evaluated(description.path), resolvers.path.resolve(filled)]).toEqual([method, method, path, path]);
		}
	});

	test('keeps a signed registration in the saved static data; the check says so', async () => {
		const trigger = harness();
		const answer = await register(trigger, wait('wait-0001'));
		expect([answer.statusCode, answer.body, answer.workflowStarted]).toEqual([200, { registered: true, workflow: { id: 'trigger-workflow', name: 'Trigger harness' } }, false]);
		expect(JSON.stringify(trigger.savedStaticData())).toContain('wait-0001');
		expect((await check(trigger, 'wait-0001')).body).toMatchObject({ saved: true });
		expect((await check(trigger, 'wait-9999')).body).toMatchObject({ saved: false });
	});

	test.each([
		['unsigned', (text: string) => ({ 'content-type': 'application/json' }), 401],
		['signed with another secret', (text: string) => signed(text, 'another-secret'), 401],
		['signed 301 s ago', (text: string) => signed(text, TEST_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 301), 401],
	])('refuses a registration %s, and keeps nothing', async (_what, headers, status) => {
		const trigger = harness();
		const text = JSON.stringify({ type: WAITS_MESSAGE_TYPE, action: 'register', wait: wait('wait-0001') });
		const answer = await trigger.send({ path: `/webhook/${WAITS_PATH}`, headers: headers(text), body: text });
		expect([answer.statusCode, answer.workflowStarted]).toEqual([status, false]);
		expect(JSON.stringify(trigger.savedStaticData())).not.toContain('wait-0001');
	});

	test('refuses what is not a registration (400), and answers 503 while the credential has no Webhook Secret', async () => {
		const trigger = harness();
		for (const body of [JSON.stringify({ event: 'message.received', timestamp: 'x', data: {} }), JSON.stringify({ type: WAITS_MESSAGE_TYPE, action: 'register', wait: { ...wait('x'), resumeUrl: 'file:///etc/passwd' } })]) {
			expect((await trigger.send({ path: `/webhook/${WAITS_PATH}`, headers: signed(body), body })).statusCode).toBe(400);
		}
		const noSecret = new TriggerHarness({ parameters: { resumeWaitingRuns: true }, credentials: { webhookSecret: '' } });
		const text = JSON.stringify({ type: WAITS_MESSAGE_TYPE, action: 'register', wait: wait('wait-0001') });
		expect((await noSecret.send({ path: `/webhook/${WAITS_PATH}`, headers: signed(text), body: text })).statusCode).toBe(503);
	});
});

describe('a customer’s reply', () => {
	test('goes to the waiting run byte for byte with the service’s signature; the service gets 2xx once n8n holds the run; the workflow does not start', async () => {
		const trigger = harness();
		await register(trigger, wait('wait-0001'));
		const text = messageBody(CUSTOMER, 'YES');
		const headers = signed(text);
		const answer = await trigger.send({ headers, body: text });
		expect([answer.statusCode, answer.body, answer.workflowStarted]).toEqual([200, { received: true, resumedWaitingRun: true }, false]);
		const [post, probe] = standIn.resumes;
		expect([post.method, post.url, post.body]).toEqual(['POST', '/webhook-waiting/7/node-1?wait=wait-0001', text]);
		expect([post.headers['x-service-webhook-signature'], post.headers['x-service-webhook-timestamp']]).toEqual([headers['x-service-webhook-signature'], headers['x-service-webhook-timestamp']]);
		expect(probe.method).toBe('GET');
		// The asking node answers only what is signed with the Webhook Secret: the question whether n8n holds the run too.
		expect(verifySignature(TEST_WEBHOOK_SECRET, probe.headers['x-service-webhook-signature'], probe.headers['x-service-webhook-timestamp'], Buffer.from(probe.body), Math.floor(Date.now() / 1000))).toMatchObject({ valid: true });
		// The wait is done: the customer's next message is an ordinary message.
		const next = await deliver(trigger, messageBody(CUSTOMER, 'thanks'));
		expect([next.statusCode, next.workflowStarted]).toEqual([200, true]);
		expect(standIn.resumes).toHaveLength(2);
	});

	test('from another number, to another sender number (when the wait names one), or a status update: no run is resumed, the workflow starts as before', async () => {
		const trigger = harness();
		await register(trigger, wait('wait-0001', { sender: SENDER }));
		for (const text of [messageBody('+15550002222', 'YES'), messageBody(CUSTOMER, 'YES', '+15559990077'), JSON.stringify({ event: 'message.status.updated', timestamp: 'now', data: { message_id: 'm', status: 'read' } })]) {
			const answer = await deliver(trigger, text);
			expect([answer.statusCode, answer.workflowStarted]).toEqual([200, true]);
		}
		expect(standIn.resumes).toEqual([]);
	});

	test('two waits for the same customer: the newest question gets it; a run that no longer waits (409) is passed over and marked done', async () => {
		const trigger = harness();
		await register(trigger, wait('older-wait', { askedAt: Date.now() - 5000, resumeUrl: `${standIn.url}/webhook-waiting/1/n?wait=older-wait` }));
		await register(trigger, wait('newer-wait', { askedAt: Date.now() - 1000, resumeUrl: `${standIn.url}/webhook-waiting/2/n?wait=newer-wait` }));
		const answered = new Set<string>();
		standIn.answerResume = (call) => {
			const run = call.url.split('/')[2];
			if (call.method === 'GET') return answered.has(run) ? { status: 409, body: {} } : { status: 200, body: { outcome: 'waiting' } };
			answered.add(run);
			return { status: 200, body: { outcome: 'resumed' } };
		};
		expect((await deliver(trigger, messageBody(CUSTOMER, 'first'))).body).toEqual({ received: true, resumedWaitingRun: true });
		expect(standIn.resumes.filter((c) => c.method === 'POST').map((c) => c.url)).toEqual(['/webhook-waiting/2/n?wait=newer-wait']);
		expect((await deliver(trigger, messageBody(CUSTOMER, 'second'))).body).toEqual({ received: true, resumedWaitingRun: true });
		expect(standIn.resumes.filter((c) => c.method === 'POST').map((c) => c.url)).toEqual(['/webhook-waiting/2/n?wait=newer-wait', '/webhook-waiting/1/n?wait=older-wait']);

		// A run that ended meanwhile (n8n answers 409 itself): passed over, done, the message starts the workflow.
		await register(trigger, wait('ended-wait', { resumeUrl: `${standIn.url}/webhook-waiting/3/n?wait=ended-wait` }));
		standIn.answerResume = () => ({ status: 409, body: { message: 'The execution "3 has finished already.' } });
		const third = await deliver(trigger, messageBody(CUSTOMER, 'third'));
		expect([third.statusCode, third.workflowStarted]).toEqual([200, true]);
		const fourth = await deliver(trigger, messageBody(CUSTOMER, 'fourth'));
		expect(fourth.workflowStarted).toBe(true);
		expect(standIn.resumes.filter((c) => c.url.includes('ended-wait'))).toHaveLength(1);
	});

	test('when the run cannot take it (n8n answers 500, or is unreachable) the service gets 503 and retries; nothing starts; the retry goes to the run', async () => {
		const trigger = harness();
		await register(trigger, wait('wait-0001'));
		standIn.answerResume = () => ({ status: 500, body: { message: 'Error in handling webhook request' } });
		const text = messageBody(CUSTOMER, 'YES');
		const failed = await deliver(trigger, text);
		expect([failed.statusCode, failed.workflowStarted]).toEqual([503, false]);
		expect(failed.logs.join('\n')).toMatch(/could not hand a reply to the run waiting for it \(answered 500\)/);
		let resumed = false;
		standIn.answerResume = (call) => (call.method === 'GET' ? (resumed ? { status: 409, body: {} } : { status: 200, body: { outcome: 'waiting' } }) : ((resumed = true), { status: 200, body: { outcome: 'resumed' } }));
		const retry = await deliver(trigger, text);
		expect([retry.statusCode, retry.body, retry.workflowStarted]).toEqual([200, { received: true, resumedWaitingRun: true }, false]);
		// The service's retry of an acknowledged reply (the same bytes) is a duplicate: no second hand-over.
		const again = await deliver(trigger, text);
		expect([again.statusCode, again.body]).toEqual([200, { received: true, ignored: 'duplicate delivery' }]);
		expect(standIn.resumes.filter((c) => c.method === 'POST')).toHaveLength(2);
	});

	test('n8n stalled while the trigger asks whether it holds the run (n8n before 2.41 answers the resume before it writes it): the trigger asks on, and the service gets 200 once n8n does', async () => {
		const trigger = harness();
		await register(trigger, wait('wait-0001'));
		const realNow = Date.now.bind(Date);
		let stalledFor = 0;
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + stalledFor);
		try {
			let asked = 0;
			standIn.answerResume = (call) => {
				if (call.method === 'POST') return { status: 200, body: { outcome: 'resumed' } };
				// The first question outlasts the trigger's 15 s: n8n's process stood still while it was asked.
				if (++asked === 1) stalledFor += 20_000;
				return asked < 3 ? { status: 200, body: { outcome: 'waiting' } } : { status: 409, body: {} };
			};
			const outcome = await deliver(trigger, messageBody(CUSTOMER, 'YES'));
			expect([outcome.statusCode, outcome.body, outcome.workflowStarted]).toEqual([200, { received: true, resumedWaitingRun: true }, false]);
			expect(asked).toBe(3);
		} finally {
			clock.mockRestore();
		}
	});

	test('the service’s retry of a reply a run took, whose first answer did not reach the service in time: answered 200, nothing handed over or started again', async () => {
		// Allow Duplicate Deliveries: the duplicate store would otherwise answer the retry itself.
		const trigger = harness({ options: { allowDuplicates: true } });
		await register(trigger, wait('wait-0001'));
		const text = messageBody(CUSTOMER, 'YES');
		expect((await deliver(trigger, text)).body).toEqual({ received: true, resumedWaitingRun: true });
		const retry = await deliver(trigger, text);
		expect([retry.statusCode, retry.body, retry.workflowStarted]).toEqual([200, { received: true, resumedWaitingRun: true }, false]);
		expect(standIn.resumes.filter((c) => c.method === 'POST')).toHaveLength(1);
		// Another message of the customer is an ordinary message.
		expect((await deliver(trigger, messageBody(CUSTOMER, 'thanks'))).workflowStarted).toBe(true);
	});

	test('a reply a run took is answered by the trigger, which hands the duplicate store over with it: after a restart, the events acknowledged before it and its own retry start nothing', async () => {
		const trigger = harness();
		await register(trigger, wait('wait-0001'));
		// An ordinary message first: n8n saves no static data for a request that starts a run (hostedChat).
		const earlier = messageBody('+15550002222', 'hello');
		expect((await deliver(trigger, earlier)).workflowStarted).toBe(true);
		const reply = messageBody(CUSTOMER, 'YES');
		expect((await deliver(trigger, reply)).body).toEqual({ received: true, resumedWaitingRun: true });

		forgetInProcessDeliveries();
		forgetRegistrations();
		const restarted = new TriggerHarness({ parameters: { events: ['*'], resumeWaitingRuns: true }, typeVersion: 2, workflowId: 'trigger-workflow', staticData: trigger.savedStaticData() });
		for (const retry of [earlier, reply]) {
			const answer = await deliver(restarted, retry);
			expect([answer.statusCode, answer.workflowStarted]).toEqual([200, false]);
		}
		expect(standIn.resumes.filter((c) => c.method === 'POST')).toHaveLength(1);
	});

	test('a reply the run did not take (not an expected answer) starts the workflow, marked; Also Start This Workflow for Replies starts it for a taken one, marked', async () => {
		const trigger = harness();
		await register(trigger, wait('wait-0001'));
		standIn.answerResume = () => ({ status: 200, body: { outcome: 'waiting' } });
		const kept = await deliver(trigger, messageBody(CUSTOMER, 'maybe'));
		expect([kept.workflowStarted, kept.items[0]?.json.replyKeptWaiting]).toEqual([true, true]);

		forgetRegistrations();
		await standIn.stop();
		standIn = await startTriggerStandIn();
		const also = harness({ alsoStartForReplies: true });
		await register(also, wait('wait-0002'));
		const taken = await deliver(also, messageBody(CUSTOMER, 'YES'));
		expect([taken.statusCode, taken.workflowStarted, taken.items[0]?.json.resumedWaitingRun]).toEqual([200, true, true]);
	});

	test('resumes the run also when Message Received does not start this workflow; other messages are then ignored as before', async () => {
		const trigger = harness({ events: ['order.created'] });
		await register(trigger, wait('wait-0001'));
		const reply = await deliver(trigger, messageBody(CUSTOMER, 'YES'));
		expect([reply.statusCode, reply.body, reply.workflowStarted]).toEqual([200, { received: true, resumedWaitingRun: true }, false]);
		const other = await deliver(trigger, messageBody('+15550002222', 'hello'));
		expect([other.statusCode, other.body, other.workflowStarted]).toEqual([200, { received: true, ignored: 'event not selected' }, false]);
	});

	test('a trigger without Resume Waiting Runs hands nothing over', async () => {
		const trigger = harness({ resumeWaitingRuns: false });
		const off = harness();
		await register(off, wait('wait-0001'));
		const answer = await deliver(new TriggerHarness({ parameters: { events: ['*'] }, typeVersion: 2, workflowId: 'trigger-workflow', staticData: off.savedStaticData() }), messageBody(CUSTOMER, 'YES'));
		expect([answer.statusCode, answer.workflowStarted]).toEqual([200, true]);
		expect((await deliver(trigger, messageBody(CUSTOMER, 'YES'))).workflowStarted).toBe(true);
		expect(standIn.resumes).toEqual([]);
	});
});
