/**
 * Refused deliveries: while the editor listens for a test event (mode `manual`) the trigger fails with an error
 * naming the failed check (n8n shows it on the node and runs nothing after it); in production they are logged with the reason and counted, and the
 * optional summary starts at most one run per interval. The sender's answer is the same in both modes.
 * Also: the service's test event is marked in the item.
 */
import type { NodeOperationError } from 'n8n-workflow';
import { DEFAULT_CREDENTIALS, TriggerHarness, runWebhook, TEST_WEBHOOK_SECRET, type WebhookOutcome } from '../helpers/webhook';
import { FIXED_NOW_SECONDS, eventBody, messageReceived, sign, signedRequest, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './requests';

const NOW_MS = FIXED_NOW_SECONDS * 1000;
const body = messageReceived('m-1');

const cases: Array<[string, { headers: Record<string, string>; body: Buffer | string }, object | undefined, number, string, string]> = [
	['signed with another secret', signedRequest('rotated-secret', body), undefined, 401, 'invalid signature', 'signature matches the body'],
	['a stale timestamp', signedRequest(TEST_WEBHOOK_SECRET, body, FIXED_NOW_SECONDS - 301), undefined, 401, 'timestamp outside tolerance', 'timestamp within 300 seconds'],
	['no signature', { headers: { 'Content-Type': 'application/json', [TIMESTAMP_HEADER]: String(FIXED_NOW_SECONDS) }, body }, undefined, 401, 'missing signature', 'signature header present'],
	['a signed body that is not JSON', signedRequest(TEST_WEBHOOK_SECRET, 'hello', FIXED_NOW_SECONDS, 'text/plain'), undefined, 400, 'body is not a JSON object', 'body is a JSON object'],
	['a signed JSON body without event fields', signedRequest(TEST_WEBHOOK_SECRET, '{"hello":1}'), undefined, 400, 'missing event', 'event fields present'],
	['a credential without Webhook Secret', signedRequest(TEST_WEBHOOK_SECRET, body), { webhookSecret: '' }, 503, 'webhook secret not configured', 'Webhook Secret present'],
];

describe.each(cases)('a delivery with %s', (_what, request, credentials, status, reason, failedCheck) => {
	const setup = (mode: 'manual' | 'webhook') => ({
		mode,
		typeVersion: 2,
		credentials: credentials ? { ...DEFAULT_CREDENTIALS, ...credentials } : undefined,
	});

	it('while listening: the same answer, then the trigger fails naming the failed check and what to check', async () => {
		const outcome = await runWebhook(request, setup('manual'), NOW_MS);
		expect([outcome.statusCode, outcome.body]).toEqual([status, { error: reason }]);
		expect(outcome.workflowStarted).toBe(false);
		const error = outcome.threw as NodeOperationError;
		// n8n keeps the description of an error thrown by webhook() only for this class name.
		expect([error?.name, error?.message]).toEqual(['NodeOperationError', `Delivery refused (${status}): ${reason}`]);
		expect(error.description).toMatch(new RegExp(`^Failed check: ${failedCheck}\\. .{40,}`));
		// Never the expected value: no 64-hex digest, and the sentinel secret is checked by the harness.
		expect(`${error.message} ${error.description}`).not.toMatch(/[0-9a-f]{64}/i);
	});

	it('in production: the same answer, no run, a log line with the reason and the count', async () => {
		const harness = new TriggerHarness(setup('webhook'));
		let last: WebhookOutcome | undefined;
		for (let i = 0; i < 3; i++) last = await harness.send(request, NOW_MS);
		expect([last!.statusCode, last!.body, last!.workflowStarted]).toEqual([status, { error: reason }, false]);
		expect(last!.logs.join('\n')).toContain(`delivery refused (${status}, ${reason}); 3 refused by this trigger since n8n started`);
	});
});

describe('Report Refused Deliveries', () => {
	const forged = (atSeconds: number) => {
		const timestamp = String(atSeconds);
		return {
			headers: { 'Content-Type': 'application/json', [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: sign('old-secret', timestamp, body) },
			body,
		};
	};

	it('starts one summary run for the first refusal, then at most one per interval, counting the refusals in between', async () => {
		const harness = new TriggerHarness({ typeVersion: 2, parameters: { events: ['*'], options: { refusalSummaryMinutes: 10 } } });
		const started: WebhookOutcome[] = [];
		const at = (minutes: number) => NOW_MS + minutes * 60_000;
		for (const minutes of [0, 1, 2, 3, 9, 10.5, 11]) {
			const outcome = await harness.send(forged(FIXED_NOW_SECONDS + minutes * 60), at(minutes));
			expect(outcome.statusCode).toBe(401);
			if (outcome.workflowStarted) started.push(outcome);
		}
		expect(started).toHaveLength(2);
		expect(started[0].items[0].json).toMatchObject({ event: 'refusals.summary', refusals: 1, byReason: { 'invalid signature': 1 } });
		expect(started[1].items[0].json).toMatchObject({
			event: 'refusals.summary',
			refusals: 5,
			byReason: { 'invalid signature': 5 },
			since: new Date(at(1)).toISOString(),
			until: new Date(at(10.5)).toISOString(),
			totalSinceStart: 6,
		});
	});

	it('is off by default: refusals start nothing', async () => {
		const harness = new TriggerHarness({ typeVersion: 2 });
		for (let i = 0; i < 3; i++) expect((await harness.send(forged(FIXED_NOW_SECONDS), NOW_MS)).workflowStarted).toBe(false);
	});
});

describe('the service’s test event', () => {
	it('is marked with testEvent and a note; other events are not', async () => {
		const test = eventBody('message.received', { message_id: 'wamid.sample.1001', from: '+15550001001', body: 'Hello', test: true });
		const marked = await runWebhook(signedRequest(TEST_WEBHOOK_SECRET, test), { mode: 'manual', typeVersion: 2 }, NOW_MS);
		expect(marked.items[0].json).toMatchObject({ event: 'message.received', testEvent: true });
		expect(String(marked.items[0].json.note)).toContain('the service’s test event');
		const dataOnly = await runWebhook(signedRequest(TEST_WEBHOOK_SECRET, test), { typeVersion: 2, parameters: { events: ['*'], options: { outputDataOnly: true } } }, NOW_MS);
		expect(dataOnly.items[0].json).toMatchObject({ message_id: 'wamid.sample.1001', testEvent: true });
		const plain = await runWebhook(signedRequest(TEST_WEBHOOK_SECRET, body), { typeVersion: 2 }, NOW_MS);
		expect(plain.items[0].json).not.toHaveProperty('testEvent');
		expect(plain.items[0].json).not.toHaveProperty('note');
	});
});
