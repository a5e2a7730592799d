/**
 * Production traffic comes concurrently: the service retries while an answer is slow, and several events
 * arrive at once. These tests run requests at the same moment through n8n-core's webhook context; each
 * request loads the static data afresh, as n8n does. The same in a real n8n: test/e2e/checks/trigger.ts.
 */
import { forgetInProcessDeliveries, IN_FLIGHT_WAIT_MS } from '../../nodes/BusinessMessagingTrigger/deliveryStore';
import { type HangUp, TEST_WEBHOOK_SECRET, TriggerHarness } from '../helpers/webhook';
import { messageReceived, signedRequest } from './requests';

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The same body, each copy signed on its own (a fresh timestamp) as the service's retries are. */
function freshCopies(body: string, count: number) {
	return Array.from({ length: count }, (_, i) => signedRequest(TEST_WEBHOOK_SECRET, body, nowSeconds() - i));
}

// A copy waits for n8n's answer to an earlier copy with a timer (IN_FLIGHT_WAIT_MS): faked, so none outlives a test.
beforeEach(() => jest.useFakeTimers({ doNotFake: ['Date', 'nextTick', 'setImmediate', 'queueMicrotask', 'hrtime', 'performance'] }));
afterEach(() => {
	jest.useRealTimers();
	forgetInProcessDeliveries();
});

describe('concurrent deliveries on one n8n instance', () => {
	it('starts one run for eight freshly signed copies of one delivery arriving at once', async () => {
		const harness = new TriggerHarness();
		const outcomes = await Promise.all(freshCopies(messageReceived('c-fresh'), 8).map((r) => harness.send(r)));
		expect(outcomes.map((o) => o.statusCode)).toEqual(Array(8).fill(200));
		expect(outcomes.filter((o) => o.workflowStarted)).toHaveLength(1);
		expect(outcomes.filter((o) => !o.workflowStarted).map((o) => o.body)).toEqual(
			Array(7).fill({ received: true, ignored: 'duplicate delivery' }),
		);
	});

	it('starts one run for eight identical requests (same signature) arriving at once', async () => {
		const harness = new TriggerHarness();
		const request = signedRequest(TEST_WEBHOOK_SECRET, messageReceived('c-same'), nowSeconds());
		const outcomes = await Promise.all(Array.from({ length: 8 }, () => harness.send(request)));
		expect(outcomes.filter((o) => o.workflowStarted)).toHaveLength(1);
	});

	it('keeps every key when different events are accepted at once, also across a restart', async () => {
		const harness = new TriggerHarness();
		const t = nowSeconds();
		const bodies = Array.from({ length: 20 }, (_, i) => messageReceived(`c-many-${i}`));
		const first = await Promise.all(bodies.map((b) => harness.send(signedRequest(TEST_WEBHOOK_SECRET, b, t), t * 1000)));
		expect(first.filter((o) => o.workflowStarted)).toHaveLength(20);
		// The next request hands the acknowledged keys to the static data.
		await harness.send(signedRequest(TEST_WEBHOOK_SECRET, bodies[0], t + 2), (t + 2) * 1000);

		// A restart: the process's memory is gone, only the saved static data is left.
		forgetInProcessDeliveries();
		const restarted = new TriggerHarness({ staticData: harness.savedStaticData() });
		const retries = await Promise.all(
			bodies.map((b) => restarted.send(signedRequest(TEST_WEBHOOK_SECRET, b, t + 4), (t + 4) * 1000)),
		);
		expect(retries.filter((o) => o.workflowStarted)).toHaveLength(0);
	});

	it('repairs a key lost to a concurrent save with the next request, even a duplicate', async () => {
		const harness = new TriggerHarness({ workflowId: 'workflow-repair' });
		const t = nowSeconds();
		const [a, b] = [messageReceived('c-repair-a'), messageReceived('c-repair-b')];
		await harness.send(signedRequest(TEST_WEBHOOK_SECRET, a, t), t * 1000);
		await harness.send(signedRequest(TEST_WEBHOOK_SECRET, b, t + 2), (t + 2) * 1000);
		const withA = harness.savedStaticData();
		// The database as it is when a save that lacks b lands last.
		const lagging = new TriggerHarness({ workflowId: 'workflow-repair', staticData: withA });
		const duplicate = await lagging.send(signedRequest(TEST_WEBHOOK_SECRET, a, t + 4), (t + 4) * 1000);
		expect(duplicate.workflowStarted).toBe(false);

		forgetInProcessDeliveries();
		const restarted = new TriggerHarness({ staticData: lagging.savedStaticData() });
		expect((await restarted.send(signedRequest(TEST_WEBHOOK_SECRET, b, t + 6), (t + 6) * 1000)).workflowStarted).toBe(false);
	});

	it('lets a copy that waited run the event when n8n failed to take the first copy’s run', async () => {
		const harness = new TriggerHarness();
		harness.failNextRuns = 1;
		const outcomes = await Promise.all(freshCopies(messageReceived('c-first-failed'), 4).map((r) => harness.send(r)));
		// The first copy's run was not taken (500, the service retries it); exactly one other copy ran it.
		expect(outcomes.map((o) => o.statusCode).sort()).toEqual([200, 200, 200, 500]);
		expect(outcomes.filter((o) => o.workflowStarted)).toHaveLength(1);
	});

	it('keeps workflows apart: the same body to two trigger workflows starts each once', async () => {
		const one = new TriggerHarness({ workflowId: 'workflow-a' });
		const two = new TriggerHarness({ workflowId: 'workflow-b' });
		const body = messageReceived('c-two-workflows');
		const outcomes = await Promise.all([
			...freshCopies(body, 3).map((r) => one.send(r)),
			...freshCopies(body, 3).map((r) => two.send(r)),
		]);
		expect(outcomes.slice(0, 3).filter((o) => o.workflowStarted)).toHaveLength(1);
		expect(outcomes.slice(3).filter((o) => o.workflowStarted)).toHaveLength(1);
	});

	// The sender hangs up before the trigger runs (the 0 ms hang-up), or in the instant n8n answers, while Node
	// is closing the connection (then Node says only 'close', no 'prefinish': acknowledgement.ts).
	it.each<[HangUp, string]>([
		['before the trigger runs', 'c-hung-up'],
		['as n8n answers', 'c-hung-up-as-answered'],
	])('answers a re-send at once when the first sender hung up %s, and runs the event once', async (hangUp, messageId) => {
		const harness = new TriggerHarness();
		const body = messageReceived(messageId);
		const first = await harness.send(signedRequest(TEST_WEBHOOK_SECRET, body, nowSeconds()), undefined, { hangUp });
		// n8n ran it and ended the response; the sender, gone, got nothing.
		expect([first.statusCode, first.workflowStarted]).toEqual([0, true]);
		const resend = await harness.send(signedRequest(TEST_WEBHOOK_SECRET, body, nowSeconds()));
		expect([resend.statusCode, resend.body, resend.workflowStarted]).toEqual([200, { received: true, ignored: 'duplicate delivery' }, false]);
	}, 5000);

	it('answers a copy 503 when n8n has not answered the earlier copy within the wait, and runs the event once', async () => {
		const harness = new TriggerHarness();
		const body = messageReceived('c-n8n-behind');
		const release = harness.holdRunAnswers();
		const first = harness.send(signedRequest(TEST_WEBHOOK_SECRET, body, nowSeconds()));
		const copy = harness.send(signedRequest(TEST_WEBHOOK_SECRET, body, nowSeconds()));
		await jest.advanceTimersByTimeAsync(IN_FLIGHT_WAIT_MS);
		const waited = await copy;
		expect([waited.statusCode, waited.body, waited.workflowStarted]).toEqual([503, { error: 'delivery in progress' }, false]);
		expect(waited.logs.join('\n')).toContain('answered 503; the service retries it');
		release();
		expect((await first).workflowStarted).toBe(true);
		// The service's retry, later: a duplicate.
		expect((await harness.send(signedRequest(TEST_WEBHOOK_SECRET, body, nowSeconds()))).workflowStarted).toBe(false);
	});
});
