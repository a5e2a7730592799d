/**
 * The trigger reads its credential's Webhook Secret at most once a second per credential under load
 * (nodes/shared/webhookSecret.ts). What a user sees: an edited secret takes effect
 * within a second, a credential that failed to load is read again at once, and a test event always uses
 * the credential as it is now. The same in a real n8n: test/e2e/checks/trigger.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { forgetInProcessDeliveries } from '../../nodes/BusinessMessagingTrigger/deliveryStore';
import { forgetWebhookSecrets, SECRET_REUSE_MS } from '../../nodes/shared/webhookSecret';
import { DEFAULT_CREDENTIALS, TEST_WEBHOOK_SECRET, TriggerHarness } from '../helpers/webhook';
import { messageReceived, signedRequest } from './requests';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const signed = (secret: string, id: string) => signedRequest(secret, messageReceived(id), nowSeconds());

afterEach(() => {
	forgetInProcessDeliveries();
	forgetWebhookSecrets();
});

describe('reading the Webhook Secret', () => {
	it('reads the credential once for twenty events arriving at once, and again a second later', async () => {
		const harness = new TriggerHarness();
		const started = Date.now();
		const outcomes = await Promise.all(
			Array.from({ length: 20 }, (_, i) => harness.send(signed(TEST_WEBHOOK_SECRET, `burst-${i}`))),
		);
		expect(outcomes.filter((o) => o.workflowStarted)).toHaveLength(20);
		// Once (a busy machine that spread the burst over more than a second: once a second).
		expect(harness.credentialReads).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / SECRET_REUSE_MS));
		const readsBefore = harness.credentialReads;

		await sleep(SECRET_REUSE_MS + 100);
		expect((await harness.send(signed(TEST_WEBHOOK_SECRET, 'after-a-second'))).workflowStarted).toBe(true);
		expect(harness.credentialReads).toBe(readsBefore + 1);
	});

	it('uses a changed Webhook Secret within a second: the old one is then refused, the new one accepted', async () => {
		const before = new TriggerHarness({ workflowId: 'workflow-rotation' });
		expect((await before.send(signed(TEST_WEBHOOK_SECRET, 'before-rotation'))).workflowStarted).toBe(true);

		// The same workflow and node after the user saved the credential with a new secret.
		const rotated = { ...DEFAULT_CREDENTIALS, webhookSecret: 'the-rotated-webhook-secret' };
		const after = new TriggerHarness({ workflowId: 'workflow-rotation', credentials: rotated });
		await sleep(SECRET_REUSE_MS + 100);
		const old = await after.send(signed(TEST_WEBHOOK_SECRET, 'old-secret'));
		expect([old.statusCode, old.workflowStarted, old.body]).toEqual([401, false, { error: 'invalid signature' }]);
		expect((await after.send(signed('the-rotated-webhook-secret', 'new-secret'))).workflowStarted).toBe(true);
	});

	it('keeps the one-second bound when a stalled event loop delays the removal of the reading', async () => {
		const before = new TriggerHarness({ workflowId: 'workflow-stall' });
		expect((await before.send(signed(TEST_WEBHOOK_SECRET, 'before-stall'))).workflowStarted).toBe(true);
		const rotated = { ...DEFAULT_CREDENTIALS, webhookSecret: 'the-rotated-webhook-secret' };
		const after = new TriggerHarness({ workflowId: 'workflow-stall', credentials: rotated });
		// Busy for longer than the reuse time: no timer can run until the next request has read its secret.
		const stalledUntil = Date.now() + SECRET_REUSE_MS + 100;
		while (Date.now() < stalledUntil);
		expect((await after.send(signed(TEST_WEBHOOK_SECRET, 'old-secret-after-stall'))).statusCode).toBe(401);
	});

	it('reads again at once after a credential could not be loaded (500, the service retries)', async () => {
		const failing = new TriggerHarness({ workflowId: 'workflow-unreadable', credentials: null });
		expect((await failing.send(signed(TEST_WEBHOOK_SECRET, 'unreadable'))).statusCode).toBe(500);

		const repaired = new TriggerHarness({ workflowId: 'workflow-unreadable' });
		const retry = await repaired.send(signed(TEST_WEBHOOK_SECRET, 'unreadable'));
		expect([retry.statusCode, retry.workflowStarted]).toEqual([200, true]);
		expect(repaired.credentialReads).toBe(1);
	});

	it('reads the credential for every test event while the editor listens', async () => {
		const harness = new TriggerHarness({ mode: 'manual' });
		await harness.send(signed(TEST_WEBHOOK_SECRET, 'test-1'));
		await harness.send(signed(TEST_WEBHOOK_SECRET, 'test-2'));
		expect(harness.credentialReads).toBe(2);
	});

	it('checks each credential’s events with that credential’s own secret only', async () => {
		const one = new TriggerHarness({ workflowId: 'workflow-one' });
		const two = new TriggerHarness({ workflowId: 'workflow-two', credentials: { ...DEFAULT_CREDENTIALS, webhookSecret: 'secret-two' } });
		expect((await one.send(signed(TEST_WEBHOOK_SECRET, 'to-one'))).workflowStarted).toBe(true);
		expect((await two.send(signed(TEST_WEBHOOK_SECRET, 'one-secret-to-two'))).statusCode).toBe(401);
		expect((await two.send(signed('secret-two', 'to-two'))).workflowStarted).toBe(true);
	});
});
