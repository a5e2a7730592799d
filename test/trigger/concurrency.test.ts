/**
 * Production traffic comes concurrently: the service retries while an answer is slow, and several events
 * arrive at once. n8n loads the workflow's static data afresh for every request and saves it after, last
 * write wins, so these tests run requests at the same moment through the harness, which does exactly that.
 */
import { forgetInProcessDeliveries } from '../../nodes/BusinessMessagingTrigger/deliveryStore';
import { TEST_WEBHOOK_SECRET, TriggerHarness } from '../helpers/webhook';
import { messageReceived, signedRequest } from './requests';

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The same body, each copy signed on its own (a fresh timestamp) as the service's retries are. */
function freshCopies(body: string, count: number) {
	return Array.from({ length: count }, (_, i) => signedRequest(TEST_WEBHOOK_SECRET, body, nowSeconds() - i));
}

afterEach(() => forgetInProcessDeliveries());

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
		const bodies = Array.from({ length: 20 }, (_, i) => messageReceived(`c-many-${i}`));
		const first = await Promise.all(bodies.map((b) => harness.send(signedRequest(TEST_WEBHOOK_SECRET, b, nowSeconds()))));
		expect(first.filter((o) => o.workflowStarted)).toHaveLength(20);

		// A restart: the process's memory is gone, only what n8n saved in its database is left.
		forgetInProcessDeliveries();
		const restarted = new TriggerHarness({ staticData: harness.savedStaticData() });
		const retries = await Promise.all(
			bodies.map((b) => restarted.send(signedRequest(TEST_WEBHOOK_SECRET, b, nowSeconds()))),
		);
		expect(retries.filter((o) => o.workflowStarted)).toHaveLength(0);
	});

	it('repairs a key lost to a concurrent save with the next request, even a duplicate', async () => {
		const harness = new TriggerHarness({ workflowId: 'workflow-repair' });
		const [a, b] = [messageReceived('c-repair-a'), messageReceived('c-repair-b')];
		await harness.send(signedRequest(TEST_WEBHOOK_SECRET, a, nowSeconds()));
		const afterA = harness.savedStaticData();
		await harness.send(signedRequest(TEST_WEBHOOK_SECRET, b, nowSeconds()));
		// The database as it is when the save of the earlier request lands last: b is missing.
		const lagging = new TriggerHarness({ workflowId: 'workflow-repair', staticData: afterA });
		const duplicate = await lagging.send(signedRequest(TEST_WEBHOOK_SECRET, a, nowSeconds()));
		expect(duplicate.workflowStarted).toBe(false);

		forgetInProcessDeliveries();
		const restarted = new TriggerHarness({ staticData: lagging.savedStaticData() });
		expect((await restarted.send(signedRequest(TEST_WEBHOOK_SECRET, b, nowSeconds()))).workflowStarted).toBe(false);
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
});
