import type { IDataObject } from 'n8n-workflow';
import {
	MAX_REMEMBERED_DELIVERIES,
	REMEMBER_FOR_SECONDS,
	RETRY_HORIZON_SECONDS,
	deliveryKey,
	forgetInProcessDeliveries,
	storedDeliveryCount,
} from '../../nodes/BusinessMessagingTrigger/deliveryStore';
import { TEST_WEBHOOK_SECRET, TriggerHarness } from '../helpers/webhook';
import { eventBody, FIXED_NOW_SECONDS, messageReceived, messageStatusUpdated, signedRequest } from './requests';

/** Delivers `body` as the service would at `atSeconds`: signed then, received then. */
async function deliver(harness: TriggerHarness, body: string, atSeconds: number) {
	return await harness.send(signedRequest(TEST_WEBHOOK_SECRET, body, atSeconds), atSeconds * 1000);
}

const NODE_KEY = 'node:Business Messaging Trigger';

function rememberedCount(harness: TriggerHarness): number {
	return storedDeliveryCount((harness.savedStaticData()[NODE_KEY] ?? {}) as IDataObject);
}

describe('duplicate deliveries', () => {
	it('starts once for a body the service re-signs and sends again later', async () => {
		const harness = new TriggerHarness();
		const body = messageReceived('d-1');
		const first = await deliver(harness, body, FIXED_NOW_SECONDS);
		expect(first.workflowStarted).toBe(true);
		// Left to n8n, which answers once the run exists: the 2xx the service stops on is never early.
		expect([first.answeredAfterRunQueued, first.body]).toEqual([true, { executionStarted: true, executionId: '1' }]);

		for (const delay of [60, 300, 900, 3600, RETRY_HORIZON_SECONDS]) {
			const retry = await deliver(harness, body, FIXED_NOW_SECONDS + delay);
			expect(retry.threw).toBeUndefined();
			expect(retry.statusCode).toBe(200);
			expect(retry.workflowStarted).toBe(false);
			expect(retry.body).toEqual({ received: true, ignored: 'duplicate delivery' });
		}
	});

	it('starts for a different body, and gives each body its own delivery key', async () => {
		const harness = new TriggerHarness();
		const a = await deliver(harness, messageReceived('d-a'), FIXED_NOW_SECONDS);
		const b = await deliver(harness, messageReceived('d-b'), FIXED_NOW_SECONDS + 1);
		expect(a.workflowStarted && b.workflowStarted).toBe(true);
		expect(a.items[0].json.deliveryKey).not.toBe(b.items[0].json.deliveryKey);
	});

	it('forgets a body after the retry horizon (plus margin)', async () => {
		const harness = new TriggerHarness();
		const body = messageReceived('d-old');
		await deliver(harness, body, FIXED_NOW_SECONDS);
		const late = await deliver(harness, body, FIXED_NOW_SECONDS + REMEMBER_FOR_SECONDS + 1);
		expect(late.workflowStarted).toBe(true);
	});

	// n8n saves static data only for a request the trigger answers itself: each kind hands the store over.
	const answeredByTheTrigger: Array<[string, (harness: TriggerHarness, at: number) => Promise<unknown>]> = [
		['a repeat', async (h, at) => await deliver(h, messageReceived('d-restart'), at)],
		['an event type not selected', async (h, at) => await deliver(h, eventBody('contact.updated', { contact_id: 1 }), at)],
		['an ignored message status', async (h, at) => await deliver(h, messageStatusUpdated('wamid.status', 'read'), at)],
		['a refusal', async (h, at) => await h.send(signedRequest('not-the-secret', messageReceived('d-forged')), at * 1000)],
		['the verification challenge', async (h, at) => await h.send({ headers: { 'Content-Type': 'application/json' }, body: '{"type":"verification","challenge":"c"}' }, at * 1000)],
		['a malformed event', async (h, at) => await deliver(h, '{"event":"message.received"}', at)],
	];

	it.each(answeredByTheTrigger)('hands the acknowledged bodies to the static data with %s, so a restart still knows them', async (_what, answeredItself) => {
		const parameters = { events: ['message.received', 'message.status.updated'], options: { ignoreStatuses: ['read'] } };
		const before = new TriggerHarness({ parameters });
		const body = messageReceived('d-restart');
		expect((await deliver(before, body, FIXED_NOW_SECONDS)).workflowStarted).toBe(true);
		// Not with the request that starts the run: n8n saves no static data for it.
		expect(rememberedCount(before)).toBe(0);
		await answeredItself(before, FIXED_NOW_SECONDS + 2);
		expect(rememberedCount(before)).toBe(1);

		forgetInProcessDeliveries();
		const after = new TriggerHarness({ parameters, staticData: before.savedStaticData() });
		const retry = await deliver(after, body, FIXED_NOW_SECONDS + 300);
		expect([retry.statusCode, retry.workflowStarted]).toEqual([200, false]);
	});

	it('forgets, after a restart, bodies acknowledged since the last request it answered itself (only new events in between)', async () => {
		const before = new TriggerHarness();
		const bodies = [messageReceived('d-only-new-1'), messageReceived('d-only-new-2')];
		for (const [i, body] of bodies.entries()) await deliver(before, body, FIXED_NOW_SECONDS + i);
		expect(rememberedCount(before)).toBe(0);
		forgetInProcessDeliveries();
		const after = new TriggerHarness({ staticData: before.savedStaticData() });
		// The retry of an acknowledged event runs again: a duplicate, never a loss (docs/trigger.md).
		expect((await deliver(after, bodies[0], FIXED_NOW_SECONDS + 300)).workflowStarted).toBe(true);
	});

	it('forgets a body whose run n8n did not take (answered 500), so the service’s retry runs it', async () => {
		const harness = new TriggerHarness();
		const body = messageReceived('d-not-taken');
		harness.failNextRuns = 1;
		expect((await deliver(harness, body, FIXED_NOW_SECONDS)).statusCode).toBe(500);
		await deliver(harness, messageReceived('d-not-taken-other'), FIXED_NOW_SECONDS + 1);
		// A repeat of the other event hands over what was acknowledged: not the body n8n did not take.
		await deliver(harness, messageReceived('d-not-taken-other'), FIXED_NOW_SECONDS + 2);
		expect(rememberedCount(harness)).toBe(1);
		const retry = await deliver(harness, body, FIXED_NOW_SECONDS + 60);
		expect([retry.statusCode, retry.workflowStarted]).toEqual([200, true]);
	});

	it('keeps the store bounded: at most the cap, oldest forgotten first', async () => {
		const harness = new TriggerHarness();
		const total = MAX_REMEMBERED_DELIVERIES + 25;
		for (let i = 0; i < total; i++) {
			await deliver(harness, messageReceived(`d-cap-${i}`), FIXED_NOW_SECONDS + i);
		}
		// The newest is still suppressed (and its repeat hands the store over), the oldest is not.
		const newest = await deliver(harness, messageReceived(`d-cap-${total - 1}`), FIXED_NOW_SECONDS + total);
		expect(newest.workflowStarted).toBe(false);
		expect(rememberedCount(harness)).toBe(MAX_REMEMBERED_DELIVERIES);
		const oldest = await deliver(harness, messageReceived('d-cap-0'), FIXED_NOW_SECONDS + total);
		expect(oldest.workflowStarted).toBe(true);
	});

	it('prunes entries past their time when a new body is accepted', async () => {
		const harness = new TriggerHarness();
		await deliver(harness, messageReceived('d-p1'), FIXED_NOW_SECONDS);
		await deliver(harness, messageReceived('d-p2'), FIXED_NOW_SECONDS + REMEMBER_FOR_SECONDS + 1);
		await deliver(harness, messageReceived('d-p2'), FIXED_NOW_SECONDS + REMEMBER_FOR_SECONDS + 3);
		expect(rememberedCount(harness)).toBe(1);
	});

	it('starts every time when "Allow Duplicate Deliveries" is on, and remembers nothing', async () => {
		const harness = new TriggerHarness({ parameters: { options: { allowDuplicates: true } } });
		const body = messageReceived('d-allow');
		const first = await deliver(harness, body, FIXED_NOW_SECONDS);
		expect(first.workflowStarted).toBe(true);
		// n8n answers once the run exists: an answered event cannot be lost.
		expect([first.answeredAfterRunQueued, first.statusCode, first.body]).toEqual([true, 200, { executionStarted: true, executionId: '1' }]);
		expect((await deliver(harness, body, FIXED_NOW_SECONDS + 60)).workflowStarted).toBe(true);
		expect(rememberedCount(harness)).toBe(0);
	});

	it('does not suppress in test mode, where n8n saves no static data', async () => {
		const harness = new TriggerHarness({ mode: 'manual' });
		const body = messageReceived('d-manual');
		expect((await deliver(harness, body, FIXED_NOW_SECONDS)).workflowStarted).toBe(true);
		expect((await deliver(harness, body, FIXED_NOW_SECONDS + 60)).workflowStarted).toBe(true);
		expect(harness.savedStaticData()).toEqual({});
	});

	it('reads what version 0.1.0 saved, and saves it in the compact form with the next request', async () => {
		const old = messageReceived('d-legacy');
		const staticData = {
			[NODE_KEY]: { deliveries: { [deliveryKey(Buffer.from(old)).slice(0, 32)]: FIXED_NOW_SECONDS - 60 } },
		};
		const harness = new TriggerHarness({ staticData });
		expect((await deliver(harness, old, FIXED_NOW_SECONDS)).workflowStarted).toBe(false);
		expect((await deliver(harness, messageReceived('d-after-upgrade'), FIXED_NOW_SECONDS + 1)).workflowStarted).toBe(true);
		await deliver(harness, old, FIXED_NOW_SECONDS + 3);
		const saved = harness.savedStaticData()[NODE_KEY] as IDataObject;
		expect(saved.deliveries).toBeUndefined();
		expect(storedDeliveryCount(saved)).toBe(2);
		expect((await deliver(new TriggerHarness({ staticData: harness.savedStaticData() }), old, FIXED_NOW_SECONDS + 2)).workflowStarted).toBe(false);
	});

	it('reads what development builds of 0.2.0 saved (hex records), and saves it in the shorter form with the next request', async () => {
		const old = messageReceived('d-hex');
		const at = (FIXED_NOW_SECONDS - 60).toString(16).padStart(8, '0');
		const harness = new TriggerHarness({ staticData: { [NODE_KEY]: { accepted: `${deliveryKey(Buffer.from(old)).slice(0, 16)}${at}` } } });
		expect((await deliver(harness, old, FIXED_NOW_SECONDS)).workflowStarted).toBe(false);
		expect((await deliver(harness, messageReceived('d-after-hex'), FIXED_NOW_SECONDS + 1)).workflowStarted).toBe(true);
		await deliver(harness, old, FIXED_NOW_SECONDS + 3);
		const saved = harness.savedStaticData()[NODE_KEY] as IDataObject;
		expect(Object.keys(saved)).toEqual(['acknowledged']);
		expect(String(saved.acknowledged)).toHaveLength(2 * 12);
		expect((await deliver(new TriggerHarness({ staticData: harness.savedStaticData() }), old, FIXED_NOW_SECONDS + 2)).workflowStarted).toBe(false);
	});

	it('copes with damaged static data', async () => {
		const harness = new TriggerHarness({
			staticData: { 'node:Business Messaging Trigger': { deliveries: 'not an object' } },
		});
		const outcome = await deliver(harness, messageReceived('d-damaged'), FIXED_NOW_SECONDS);
		expect(outcome.threw).toBeUndefined();
		expect(outcome.workflowStarted).toBe(true);
		await deliver(harness, messageReceived('d-damaged'), FIXED_NOW_SECONDS + 2);
		expect(rememberedCount(harness)).toBe(1);
	});

	it('does not remember rejected or ignored deliveries', async () => {
		const harness = new TriggerHarness({ parameters: { events: ['order.created'] } });
		await deliver(harness, messageReceived('d-ignored'), FIXED_NOW_SECONDS);
		await harness.send(signedRequest('wrong', messageReceived('d-forged')), FIXED_NOW_SECONDS * 1000);
		expect(rememberedCount(harness)).toBe(0);
	});
});
