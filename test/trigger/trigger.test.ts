import { runWebhook, TEST_WEBHOOK_SECRET, type WebhookOutcome } from '../helpers/webhook';
import {
	FIXED_NOW_SECONDS,
	SIGNATURE_HEADER,
	TIMESTAMP_HEADER,
	eventBody,
	messageReceived,
	messageStatusUpdated,
	sign,
	signedRequest,
} from './requests';

const NOW_MS = FIXED_NOW_SECONDS * 1000;

function expectNotStarted(outcome: WebhookOutcome, statusCode: number) {
	expect(outcome.threw).toBeUndefined();
	expect(outcome.workflowStarted).toBe(false);
	expect(outcome.statusCode).toBe(statusCode);
}

describe('verification handshake', () => {
	it('echoes the challenge with 200 and starts nothing, without a signature', async () => {
		const body = JSON.stringify({ type: 'verification', challenge: 'abc-123' });
		const outcome = await runWebhook({ headers: { 'Content-Type': 'application/json' }, body }, {}, NOW_MS);
		expectNotStarted(outcome, 200);
		expect(outcome.body).toEqual({ challenge: 'abc-123' });
	});

	it('is answered in test mode too, and while the webhook secret is still empty', async () => {
		const body = JSON.stringify({ type: 'verification', challenge: 'xyz' });
		const request = { headers: { 'Content-Type': 'application/json' }, body };
		for (const outcome of [
			await runWebhook(request, { mode: 'manual' }, NOW_MS),
			await runWebhook(request, { credentials: { webhookSecret: '' } }, NOW_MS),
		]) {
			expectNotStarted(outcome, 200);
			expect(outcome.body).toEqual({ challenge: 'xyz' });
		}
	});
});

describe('a signed event', () => {
	it('starts the workflow with one item: event, timestamp, data, deliveryKey, signatureTimestamp', async () => {
		const body = messageReceived('m-1');
		const outcome = await runWebhook(signedRequest(TEST_WEBHOOK_SECRET, body), {}, NOW_MS);
		expect(outcome.threw).toBeUndefined();
		expect(outcome.statusCode).toBe(200);
		// n8n's answer once the execution exists (response mode hostedChat).
		expect([outcome.answeredAfterRunQueued, outcome.body]).toEqual([true, { executionStarted: true, executionId: '1' }]);
		expect(outcome.workflowStarted).toBe(true);
		expect(outcome.items).toHaveLength(1);
		const parsed = JSON.parse(body) as Record<string, unknown>;
		expect(outcome.items[0].json).toEqual({
			event: 'message.received',
			timestamp: parsed.timestamp,
			data: parsed.data,
			deliveryKey: expect.stringMatching(/^[0-9a-f]{64}$/),
			signatureTimestamp: String(FIXED_NOW_SECONDS),
		});
	});

	it('outputs the data alone when asked', async () => {
		const body = messageReceived('m-2');
		const outcome = await runWebhook(
			signedRequest(TEST_WEBHOOK_SECRET, body),
			{ parameters: { options: { outputDataOnly: true } } },
			NOW_MS,
		);
		expect(outcome.workflowStarted).toBe(true);
		expect(outcome.items[0].json).toEqual((JSON.parse(body) as { data: unknown }).data);
	});
});

describe('signature rejections answer 401 and start nothing', () => {
	const body = messageReceived('m-401');

	const cases: Array<[string, { headers: Record<string, string>; body: Buffer | string }]> = [
		['another secret', signedRequest('not-the-secret', body)],
		[
			'one body byte changed',
			{ ...signedRequest(TEST_WEBHOOK_SECRET, body), body: body.replace('Hello', 'Hellp') },
		],
		[
			'whitespace changed',
			{ ...signedRequest(TEST_WEBHOOK_SECRET, body), body: JSON.stringify(JSON.parse(body), null, 2) },
		],
		[
			'key order changed',
			{
				...signedRequest(TEST_WEBHOOK_SECRET, body),
				body: JSON.stringify(
					Object.fromEntries(Object.entries(JSON.parse(body) as Record<string, unknown>).reverse()),
				),
			},
		],
		['no signature header', { headers: { [TIMESTAMP_HEADER]: String(FIXED_NOW_SECONDS) }, body }],
		[
			'no timestamp header',
			{ headers: { [SIGNATURE_HEADER]: sign(TEST_WEBHOOK_SECRET, String(FIXED_NOW_SECONDS), body) }, body },
		],
		['no headers at all', { headers: {}, body }],
		['timestamp 301 s old', signedRequest(TEST_WEBHOOK_SECRET, body, FIXED_NOW_SECONDS - 301)],
		['timestamp 301 s ahead', signedRequest(TEST_WEBHOOK_SECRET, body, FIXED_NOW_SECONDS + 301)],
		[
			'non-numeric timestamp',
			{
				headers: {
					[TIMESTAMP_HEADER]: 'yesterday',
					[SIGNATURE_HEADER]: sign(TEST_WEBHOOK_SECRET, 'yesterday', body),
				},
				body,
			},
		],
	];

	it.each(cases)('%s', async (_name, request) => {
		const outcome = await runWebhook(request, {}, NOW_MS);
		expectNotStarted(outcome, 401);
		expect(outcome.body).toEqual({ error: expect.any(String) });
	});

	it.each([
		['300 s old', FIXED_NOW_SECONDS - 300],
		['300 s ahead', FIXED_NOW_SECONDS + 300],
	])('accepts a timestamp %s', async (_name, timestamp) => {
		const outcome = await runWebhook(signedRequest(TEST_WEBHOOK_SECRET, body, timestamp), {}, NOW_MS);
		expect(outcome.workflowStarted).toBe(true);
	});
});

describe('multibyte text is verified over the bytes received', () => {
	it.each([
		['emoji', '👋🏽 Hi! 🎉 Order #12 ✅'],
		['right-to-left', 'مرحبا، طلبك جاهز — שלום'],
		['combining marks and CJK', 'e\u0301 café 注文'],
	])('%s', async (_name, text) => {
		const body = messageReceived('m-mb', text);
		const outcome = await runWebhook(signedRequest(TEST_WEBHOOK_SECRET, body), {}, NOW_MS);
		expect(outcome.workflowStarted).toBe(true);
		expect((outcome.items[0].json.data as { body: string }).body).toBe(text);
	});
});

describe('bad event data answers 400', () => {
	it.each([
		['not JSON', 'event=message.received', 'text/plain'],
		['a JSON array', '[1,2]', 'application/json'],
		['a JSON string', '"message.received"', 'application/json'],
		['missing event field', JSON.stringify({ timestamp: 't', data: {} }), 'application/json'],
		['missing timestamp field', JSON.stringify({ event: 'message.received', data: {} }), 'application/json'],
		['missing data field', JSON.stringify({ event: 'message.received', timestamp: 't' }), 'application/json'],
	])('%s', async (_name, body, contentType) => {
		const outcome = await runWebhook(
			signedRequest(TEST_WEBHOOK_SECRET, body, FIXED_NOW_SECONDS, contentType),
			{},
			NOW_MS,
		);
		expectNotStarted(outcome, 400);
	});

	it('checks the signature before the data (unsigned junk is 401, not 400)', async () => {
		const outcome = await runWebhook({ headers: { 'Content-Type': 'text/plain' }, body: 'junk' }, {}, NOW_MS);
		expectNotStarted(outcome, 401);
	});
});

describe('event filtering', () => {
	it('answers 200 and starts nothing for an event that is not selected', async () => {
		const outcome = await runWebhook(
			signedRequest(TEST_WEBHOOK_SECRET, messageReceived('m-f1')),
			{ parameters: { events: ['order.created'] } },
			NOW_MS,
		);
		expectNotStarted(outcome, 200);
	});

	it('starts for a selected event', async () => {
		const outcome = await runWebhook(
			signedRequest(TEST_WEBHOOK_SECRET, messageReceived('m-f2')),
			{ parameters: { events: ['order.created', 'message.received'] } },
			NOW_MS,
		);
		expect(outcome.workflowStarted).toBe(true);
	});

	it('starts for an event name the service adds later when "*" is selected, ignores it otherwise', async () => {
		const body = eventBody('invoice.created', { invoice_id: 7 });
		const all = await runWebhook(signedRequest(TEST_WEBHOOK_SECRET, body), {}, NOW_MS);
		expect(all.workflowStarted).toBe(true);
		const some = await runWebhook(
			signedRequest(TEST_WEBHOOK_SECRET, body),
			{ parameters: { events: ['message.received'] } },
			NOW_MS,
		);
		expectNotStarted(some, 200);
	});

	it('drops message status updates with the chosen statuses only', async () => {
		const setup = { parameters: { options: { ignoreStatuses: ['sent', 'delivered'] } } };
		for (const status of ['sent', 'delivered']) {
			const outcome = await runWebhook(
				signedRequest(TEST_WEBHOOK_SECRET, messageStatusUpdated('m-s', status)),
				setup,
				NOW_MS,
			);
			expectNotStarted(outcome, 200);
		}
		const read = await runWebhook(
			signedRequest(TEST_WEBHOOK_SECRET, messageStatusUpdated('m-s', 'read')),
			setup,
			NOW_MS,
		);
		expect(read.workflowStarted).toBe(true);
	});
});

describe('webhook secret', () => {
	it('refuses to verify with an empty secret: 503 (the service retries), said in the answer and the log', async () => {
		const outcome = await runWebhook(
			signedRequest('', messageReceived('m-e')),
			{ credentials: { webhookSecret: '' } },
			NOW_MS,
		);
		expectNotStarted(outcome, 503);
		expect(outcome.body).toEqual({ error: 'webhook secret not configured' });
		expect(outcome.logs.join('\n')).toMatch(/Webhook Secret/);
	});

	it('accepts unsigned events when verification is explicitly turned off', async () => {
		const outcome = await runWebhook(
			{ headers: { 'Content-Type': 'application/json' }, body: messageReceived('m-off') },
			{ credentials: { webhookSecret: '' }, parameters: { options: { skipSignatureVerification: true } } },
			NOW_MS,
		);
		expect(outcome.workflowStarted).toBe(true);
		expect(outcome.items[0].json.signatureTimestamp).toBeNull();
	});

	it('never puts the secret in an answer or a log', async () => {
		const body = messageReceived('m-leak');
		const outcomes = [
			await runWebhook(signedRequest('wrong', body), {}, NOW_MS),
			await runWebhook(signedRequest(TEST_WEBHOOK_SECRET, body), {}, NOW_MS),
			await runWebhook(signedRequest(TEST_WEBHOOK_SECRET, body, FIXED_NOW_SECONDS - 999), {}, NOW_MS),
		];
		for (const outcome of outcomes) {
			expect(JSON.stringify([outcome.body, outcome.items, outcome.logs])).not.toContain(TEST_WEBHOOK_SECRET);
		}
	});

	it('answers 500 (retry) when the credential cannot be loaded, without throwing', async () => {
		const outcome = await runWebhook(signedRequest(TEST_WEBHOOK_SECRET, messageReceived('m-c')), { credentials: null }, NOW_MS);
		expectNotStarted(outcome, 500);
	});
});
