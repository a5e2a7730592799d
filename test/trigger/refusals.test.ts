/**
 * Refused deliveries, one row per reason: its HTTP status, what the service does with it, the check it names
 * and the advice shown. While the editor listens for a test event (mode `manual`) the trigger fails with an
 * error naming the failed check (n8n shows it on the node and runs nothing after it); in production they are
 * logged with the reason and counted, and the optional summary starts at most one run per interval. The
 * sender's answer is the same in both modes. Also: the service's test event is marked in the item.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeOperationError } from 'n8n-workflow';
import { explain, REFUSAL_REASONS, refusal } from '../../nodes/BusinessMessagingTrigger/refusals';
import { DEFAULT_CREDENTIALS, TriggerHarness, runWebhook, TEST_WEBHOOK_SECRET, type WebhookOutcome } from '../helpers/webhook';
import { FIXED_NOW_SECONDS, eventBody, messageReceived, sign, signedRequest, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './requests';

const NOW_MS = FIXED_NOW_SECONDS * 1000;
const body = messageReceived('m-1');
const REPO = join(__dirname, '../..');

/** What the service does with each answer (spec, Delivery and retry). */
const SERVICE_DOES: Record<number, string> = { 400: 'no retry', 401: 'no retry', 500: 'retries', 503: 'retries' };

/** Headers with the timestamp but a signature of `signed` (or none). */
function withTimestamp(timestamp: string, signature?: string) {
	return {
		headers: { 'Content-Type': 'application/json', [TIMESTAMP_HEADER]: timestamp, ...(signature ? { [SIGNATURE_HEADER]: signature } : {}) },
		body,
	};
}

interface Row {
	reason: string;
	/** A request that fails this check and no earlier one. */
	request: { headers: Record<string, string>; body: Buffer | string };
	credentials?: object;
	status: number;
	service: string;
	/** The check named in the editor's error. */
	check: string;
	/** What the advice (editor and log) must tell the user. */
	advice: RegExp;
}

/** Every refusal, in the order the trigger checks. */
const TABLE: Row[] = [
	{ reason: 'webhook secret not configured', request: signedRequest(TEST_WEBHOOK_SECRET, body), credentials: { webhookSecret: '' }, status: 503, service: 'retries', check: 'Webhook Secret present', advice: /Copy the webhook secret from the service’s dashboard .* into the credential/ },
	{ reason: 'missing signature', request: withTimestamp(String(FIXED_NOW_SECONDS)), status: 401, service: 'no retry', check: 'signature header present', advice: /no X-Service-Webhook-Signature header/ },
	{ reason: 'missing timestamp', request: { headers: { 'Content-Type': 'application/json', [SIGNATURE_HEADER]: sign(TEST_WEBHOOK_SECRET, String(FIXED_NOW_SECONDS), body) }, body }, status: 401, service: 'no retry', check: 'timestamp header present', advice: /no X-Service-Webhook-Timestamp header/ },
	{ reason: 'invalid timestamp', request: withTimestamp('1795316400.5', sign(TEST_WEBHOOK_SECRET, '1795316400.5', body)), status: 401, service: 'no retry', check: 'timestamp header form', advice: /not whole Unix seconds/ },
	{ reason: 'timestamp outside tolerance', request: signedRequest(TEST_WEBHOOK_SECRET, body, FIXED_NOW_SECONDS - 301), status: 401, service: 'no retry', check: 'timestamp within 300 seconds', advice: /check the server’s clock \(NTP\)/ },
	{ reason: 'invalid signature', request: signedRequest('rotated-secret', body), status: 401, service: 'no retry', check: 'signature matches the body', advice: /Webhook Secret differs from the one in the service’s dashboard/ },
	{ reason: 'body is not a JSON object', request: signedRequest(TEST_WEBHOOK_SECRET, 'hello', FIXED_NOW_SECONDS, 'text/plain'), status: 400, service: 'no retry', check: 'body is a JSON object', advice: /nothing between the service and n8n rewrites the body/ },
	{ reason: 'missing event field', request: signedRequest(TEST_WEBHOOK_SECRET, '{"timestamp":"t","data":{}}'), status: 400, service: 'no retry', check: 'event field present', advice: /has no `event` name/ },
	{ reason: 'missing timestamp field', request: signedRequest(TEST_WEBHOOK_SECRET, eventBody('message.received', {}).replace(/"timestamp":"[^"]*",?/, '')), status: 400, service: 'no retry', check: 'timestamp field present', advice: /no `timestamp` field .* not the X-Service-Webhook-Timestamp header/ },
	{ reason: 'missing data field', request: signedRequest(TEST_WEBHOOK_SECRET, '{"event":"message.received","timestamp":"t","data":[]}'), status: 400, service: 'no retry', check: 'data field is an object', advice: /`data` is missing or not an object/ },
];

describe('the refusal table', () => {
	it('covers every reason the trigger refuses for, once, in the order it checks', () => {
		expect(TABLE.map((row) => row.reason)).toEqual(REFUSAL_REASONS);
	});

	it('gives each reason its own check, in the table and in the trigger', () => {
		expect(new Set(TABLE.map((row) => row.check)).size).toBe(TABLE.length);
		expect(new Set(REFUSAL_REASONS.map((reason) => explain(refusal(reason)).check)).size).toBe(REFUSAL_REASONS.length);
	});

	it('says what the service does with each status, as the spec does', () => {
		for (const row of TABLE) expect([row.reason, SERVICE_DOES[row.status]]).toEqual([row.reason, row.service]);
	});

	it('is what docs/trigger.md names: every check in the refusal details', () => {
		const docs = readFileSync(join(REPO, 'docs/trigger.md'), 'utf8');
		for (const row of TABLE) expect([row.reason, docs.includes(`*${row.check}*`)]).toEqual([row.reason, true]);
	});
});

describe.each(TABLE)('a delivery refused for "$reason"', ({ request, credentials, status, reason, check, advice }) => {
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
		expect(error.description).toMatch(new RegExp(`^Failed check: ${check}\\. `));
		expect(error.description).toMatch(advice);
		// Never the expected value: no 64-hex digest, and the sentinel secret is checked by the harness.
		expect(`${error.message} ${error.description}`).not.toMatch(/[0-9a-f]{64}/i);
	});

	it('in production: the same answer, no run, a log line with the reason, the count and the advice', async () => {
		const harness = new TriggerHarness(setup('webhook'));
		let last: WebhookOutcome | undefined;
		for (let i = 0; i < 3; i++) last = await harness.send(request, NOW_MS);
		expect([last!.statusCode, last!.body, last!.workflowStarted]).toEqual([status, { error: reason }, false]);
		const line = last!.logs.find((l) => l.startsWith('warn Business Messaging Trigger: delivery refused'));
		expect(line).toContain(`delivery refused (${status}, ${reason}); 3 refused by this trigger since n8n started.`);
		expect(line).toMatch(advice);
	});
});

describe('the README’s troubleshooting', () => {
	it('quotes the log line n8n prints for a refused delivery', async () => {
		const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
		const row = readme.split('\n').find((l) => l.startsWith('| The trigger never fires |')) ?? '';
		// The quoted text up to "(…)", which stands for the status and the reason.
		const quoted = /n8n's log for "([^"]+)\(…\)"/.exec(row)?.[1];
		expect(quoted).toBeDefined();
		const outcome = await runWebhook(signedRequest('rotated-secret', body), { typeVersion: 2 }, NOW_MS);
		expect(outcome.logs.some((l) => l.startsWith(`warn ${quoted}(401, invalid signature)`))).toBe(true);
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
