/**
 * Adversarial webhook requests for the Business Messaging Trigger, as plain data, so the in-process
 * suite (adversarial.test.ts) and an end-to-end suite against a real n8n over HTTP replay the same
 * cases. A case says what bytes and headers to send and what must come back; `buildCaseRequests`
 * turns it into concrete requests for a given clock and secret.
 *
 * Assumes the trigger's defaults: events "*", duplicate suppression on, verification on.
 *
 * Over HTTP: send `prior` (if any) first, then `request`; compare the last answer. Cases marked
 * `clockSensitive` sit on the 300 s edge or a second from it, where the seconds ticking between building
 * and receiving the request can change the answer; replay them with a fixed clock or skip them. Bodies
 * carry `runId`, so repeated runs against one n8n are not taken for retries of earlier runs.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Webhook-Signature';
export const TIMESTAMP_HEADER = 'X-Service-Webhook-Timestamp';

/** genuine: what the service itself sends. forged: not from the service, or altered on the way. */
export type Origin = 'genuine' | 'forged' | 'handshake';

/** X-Service-Webhook-Timestamp: integer seconds relative to now, now in milliseconds, a literal, or absent. */
export type TimestampSpec = { offset: number } | { milliseconds: true } | { literal: string } | null;

/** Which key signs, over which text, written how. `null`: no signature header. */
export type SignatureSpec =
	| {
			key: 'webhookSecret' | 'otherSecret' | 'clientSecret' | 'emptySecret';
			/** The signed text: the spec's `timestamp.body`, or a common mistake. Default `timestampDotBody`. */
			text?: 'timestampDotBody' | 'timestampBody' | 'bodyOnly' | 'nextSecondDotBody';
			/** Default `hex` (lowercase, as the service sends). */
			form?: 'hex' | 'upperHex' | 'sha256Prefixed' | 'sha1Prefixed';
	  }
	| { literal: string }
	| null;

export interface AdversarialCase {
	id: string;
	name: string;
	origin: Origin;
	/** Body as UTF-8 text; `__RUN__` is replaced by the run id. */
	body: string;
	/** When set, the signature covers these bytes instead of `body` (the body was altered after signing). */
	signedBody?: string;
	contentType: string;
	timestamp: TimestampSpec;
	signature: SignatureSpec;
	/** The same body delivered before: `sameHeaders` replays the identical request, otherwise it is re-signed. */
	prior?: { secondsEarlier: number; sameHeaders: boolean };
	clockSensitive?: boolean;
	expect: { status: number; started: boolean; body?: unknown };
}

export interface CaseContext {
	nowSeconds: number;
	webhookSecret: string;
	/** The credential's client secret (signs API requests, not webhooks). */
	clientSecret: string;
	runId?: string;
}

export interface WireRequest {
	headers: Record<string, string>;
	body: Buffer;
}

export interface CaseRequests {
	prior?: { request: WireRequest; atSeconds: number };
	request: WireRequest;
	atSeconds: number;
}

const OTHER_SECRET = 'a-secret-that-is-not-the-webhook-secret';

function event(id: string, extra: Record<string, unknown> = {}, eventName = 'message.received'): string {
	return JSON.stringify({
		event: eventName,
		timestamp: '2026-11-22T02:59:58Z',
		data: {
			message_id: `adv-${id}-__RUN__`,
			conversation_id: 42,
			from: '+15550001111',
			to: '+15550002222',
			type: 'text',
			body: 'Hello',
			timestamp: '2026-11-22T02:59:57Z',
			...extra,
		},
	});
}

function rewrite(body: string, change: (value: Record<string, unknown>) => unknown, space?: number): string {
	return JSON.stringify(change(JSON.parse(body) as Record<string, unknown>), null, space);
}

function without(key: string) {
	return (value: Record<string, unknown>) => {
		const copy = { ...value };
		delete copy[key];
		return copy;
	};
}

const PLAIN = 'application/json';
const NOW: TimestampSpec = { offset: 0 };
const SIGNED: SignatureSpec = { key: 'webhookSecret' };
const STARTS = { status: 200, started: true };
const UNAUTHORIZED = { status: 401, started: false };
const BAD_DATA = { status: 400, started: false };
const IGNORED = { status: 200, started: false };

const genuine = (id: string, name: string, body: string, extra: Partial<AdversarialCase> = {}): AdversarialCase => ({
	id,
	name,
	origin: 'genuine',
	body,
	contentType: PLAIN,
	timestamp: NOW,
	signature: SIGNED,
	expect: STARTS,
	...extra,
});

const forged = (id: string, name: string, extra: Partial<AdversarialCase>): AdversarialCase => ({
	id,
	name,
	origin: 'forged',
	body: event(id),
	contentType: PLAIN,
	timestamp: NOW,
	signature: SIGNED,
	expect: UNAUTHORIZED,
	...extra,
});

const handshake = (id: string, name: string, body: string, extra: Partial<AdversarialCase> = {}): AdversarialCase => ({
	id,
	name,
	origin: 'handshake',
	body,
	contentType: PLAIN,
	timestamp: null,
	signature: null,
	expect: { status: 200, started: false, body: { challenge: 'challenge-__RUN__' } },
	...extra,
});

const FIVE_MB_TEXT = 'x'.repeat(5 * 1024 * 1024);
const EMOJI_TEXT = '👋🏽 Hi! 🎉 Your order #12 is ready ✅ 🇩🇪';
const RTL_TEXT = 'مرحبا، طلبك جاهز للاستلام — שלום, ההזמנה מוכנה';

export const ADVERSARIAL_CASES: readonly AdversarialCase[] = [
	// Genuine deliveries: signed with the webhook secret over the exact bytes sent.
	genuine('G01', 'valid event', event('G01')),
	genuine('G02', 'signature in uppercase hex', event('G02'), { signature: { key: 'webhookSecret', form: 'upperHex' } }),
	genuine('G03', 'signature with sha256= prefix', event('G03'), { signature: { key: 'webhookSecret', form: 'sha256Prefixed' } }),
	genuine('G04', 'timestamp 300 s in the past', event('G04'), { timestamp: { offset: -300 }, clockSensitive: true }),
	genuine('G05', 'timestamp 300 s in the future', event('G05'), { timestamp: { offset: 300 }, clockSensitive: true }),
	genuine('G06', 'timestamp 299 s in the past', event('G06'), { timestamp: { offset: -299 }, clockSensitive: true }),
	genuine('G07', 'UTF-8 text with emoji', event('G07', { body: EMOJI_TEXT })),
	genuine('G08', 'UTF-8 right-to-left text', event('G08', { body: RTL_TEXT })),
	genuine('G09', 'pretty-printed JSON, signed as sent', rewrite(event('G09'), (value) => value, 2)),
	genuine('G10', 'escaped unicode (\\u00e9) kept as sent', event('G10').replace('Hello', 'caf\\u00e9 \\ud83d\\ude00')),
	genuine('G11', 'body of 5 MB', event('G11', { body: FIVE_MB_TEXT })),
	genuine('G12', 'unknown event name, "*" selected: starts', event('G12', {}, 'invoice.created')),
	genuine('G13', 'order.created event', event('G13', { order_id: 9, status: 'pending', total: 12.5, currency: 'EUR' }, 'order.created')),
	genuine('G14', 'UTF-8 byte order mark before the JSON', `\uFEFF${event('G14')}`),
	genuine('G15', 'service retry: same body re-signed 60 s later', event('G15'), {
		prior: { secondsEarlier: 60, sameHeaders: false },
		expect: IGNORED,
	}),
	genuine('G16', 'service retry 6 h later (last retry)', event('G16'), {
		prior: { secondsEarlier: 6 * 3600, sameHeaders: false },
		expect: IGNORED,
	}),
	// Content types n8n does not parse: version 2 of the node reads those bytes itself.
	genuine('G17', 'event sent as application/octet-stream', event('G17'), { contentType: 'application/octet-stream' }),
	genuine('G18', 'event sent as text/plain', event('G18'), { contentType: 'text/plain' }),
	genuine('G19', 'event sent with a charset parameter', event('G19', { body: EMOJI_TEXT }), {
		contentType: 'application/json; charset=utf-8',
	}),
	// Genuine signature, unusable data: 400 so the service does not retry.
	genuine('D01', 'signed body that is not JSON', 'event=message.received&data=1', { contentType: 'text/plain', expect: BAD_DATA }),
	genuine('D02', 'signed JSON array', '[{"event":"message.received"}]', { expect: BAD_DATA }),
	genuine('D03', 'signed JSON string', '"message.received"', { expect: BAD_DATA }),
	genuine('D04', 'signed JSON null', 'null', { expect: BAD_DATA }),
	genuine('D05', 'signed event without "event"', rewrite(event('D05'), without('event')), { expect: BAD_DATA }),
	genuine('D06', 'signed event without "data"', rewrite(event('D06'), without('data')), { expect: BAD_DATA }),
	genuine('D07', 'signed event without "timestamp"', rewrite(event('D07'), without('timestamp')), { expect: BAD_DATA }),
	genuine('D08', 'signed event whose data is an array', rewrite(event('D08'), (value) => ({ ...value, data: [1] })), { expect: BAD_DATA }),
	genuine('D09', 'signed empty body', '', { contentType: 'text/plain', expect: BAD_DATA }),
	genuine('D10', 'signed non-JSON sent as application/json: n8n answers 422 before the node', 'not json', {
		expect: { status: 422, started: false },
	}),
	// Forged or altered.
	forged('F01', 'no signature header', { signature: null }),
	forged('F02', 'empty signature header', { signature: { literal: '' } }),
	forged('F03', 'no timestamp header', { timestamp: null }),
	forged('F04', 'empty timestamp header', { timestamp: { literal: '' } }),
	forged('F05', 'no headers at all', { timestamp: null, signature: null }),
	forged('F06', 'non-hex signature of the right length', { signature: { literal: 'g'.repeat(64) } }),
	forged('F07', 'signature of 63 hex digits', { signature: { literal: 'a'.repeat(63) } }),
	forged('F08', 'signature of 65 hex digits', { signature: { literal: 'a'.repeat(65) } }),
	forged('F09', 'two signatures joined (128 hex digits)', { signature: { literal: 'ab'.repeat(64) } }),
	forged('F10', 'sha256= prefix with a made-up digest', { signature: { literal: `sha256=${'0'.repeat(64)}` } }),
	forged('F11', 'valid digest with sha1= prefix', { signature: { key: 'webhookSecret', form: 'sha1Prefixed' } }),
	forged('F12', 'signed with another secret', { signature: { key: 'otherSecret' } }),
	forged('F13', 'signed with the client secret (API key) instead', { signature: { key: 'clientSecret' } }),
	forged('F14', 'signed with an empty key', { signature: { key: 'emptySecret' } }),
	forged('F15', 'one body byte changed after signing', { body: event('F15').replace('Hello', 'Hellp'), signedBody: event('F15') }),
	forged('F16', 'whitespace added (re-serialized) after signing', {
		body: rewrite(event('F16'), (value) => value, 1),
		signedBody: event('F16'),
	}),
	forged('F17', 'key order changed (re-serialized) after signing', {
		body: rewrite(event('F17'), (value) => Object.fromEntries(Object.entries(value).reverse())),
		signedBody: event('F17'),
	}),
	forged('F18', 'emoji body with one byte changed', {
		body: event('F18', { body: EMOJI_TEXT.replace('🎉', '🎊') }),
		signedBody: event('F18', { body: EMOJI_TEXT }),
	}),
	forged('F19', 'right-to-left body signed as Latin-1 re-encoding', {
		body: event('F19', { body: RTL_TEXT }),
		signedBody: Buffer.from(event('F19', { body: RTL_TEXT }), 'latin1').toString('utf8'),
	}),
	forged('F20', 'signed text without the "." (the API signing rule)', { signature: { key: 'webhookSecret', text: 'timestampBody' } }),
	forged('F21', 'signature over the body only', { signature: { key: 'webhookSecret', text: 'bodyOnly' } }),
	forged('F22', 'signature for another timestamp than the header', { signature: { key: 'webhookSecret', text: 'nextSecondDotBody' } }),
	forged('F23', 'timestamp 301 s in the past', { timestamp: { offset: -301 }, clockSensitive: true }),
	forged('F24', 'timestamp 301 s in the future', { timestamp: { offset: 301 }, clockSensitive: true }),
	forged('F25', 'timestamp one hour old', { timestamp: { offset: -3600 } }),
	forged('F26', 'timestamp in milliseconds', { timestamp: { milliseconds: true } }),
	forged('F27', 'negative timestamp', { timestamp: { literal: '-1795316400' } }),
	forged('F28', 'fractional timestamp', { timestamp: { literal: '1795316400.5' } }),
	forged('F29', 'non-numeric timestamp', { timestamp: { literal: 'now' } }),
	forged('F30', 'timestamp with a plus sign', { timestamp: { literal: '+1795316400' } }),
	forged('F31', 'ISO date as timestamp', { timestamp: { literal: '2026-11-22T03:00:00Z' } }),
	forged('F32', 'timestamp 0 (the epoch)', { timestamp: { literal: '0' } }),
	forged('F33', 'unsigned body that is not JSON (signature is checked first)', {
		body: 'hello',
		contentType: 'text/plain',
		signature: null,
	}),
	forged('F34', 'unsigned 5 MB body', { body: event('F34', { body: FIVE_MB_TEXT }), signature: null }),
	forged('F35', 'verification body whose challenge is not a string, unsigned', {
		body: JSON.stringify({ type: 'verification', challenge: 12345 }),
		signature: null,
	}),
	forged('F38', 'one body byte changed after signing, sent as application/octet-stream', {
		body: event('F38').replace('Hello', 'Hellp'),
		signedBody: event('F38'),
		contentType: 'application/octet-stream',
	}),
	forged('F36', 'captured valid request replayed 120 s later', {
		prior: { secondsEarlier: 120, sameHeaders: true },
		expect: IGNORED,
	}),
	forged('F37', 'captured valid request replayed 10 min later', {
		prior: { secondsEarlier: 600, sameHeaders: true },
	}),
	// Set-up handshake: answered without a signature, never starts the workflow.
	handshake('H01', 'verification challenge', JSON.stringify({ type: 'verification', challenge: 'challenge-__RUN__' })),
	handshake(
		'H02',
		'verification challenge with extra fields',
		JSON.stringify({ type: 'verification', challenge: 'challenge-__RUN__', account: 'x', event: 'message.received', data: {} }),
	),
	handshake('H03', 'verification challenge with a bogus signature', JSON.stringify({ type: 'verification', challenge: 'challenge-__RUN__' }), {
		timestamp: { literal: 'junk' },
		signature: { literal: 'junk' },
	}),
	handshake('H04', 'verification challenge, signed', JSON.stringify({ type: 'verification', challenge: 'challenge-__RUN__' }), {
		timestamp: NOW,
		signature: SIGNED,
	}),
];

function timestampValue(spec: TimestampSpec, nowSeconds: number): string | undefined {
	if (spec === null) return undefined;
	if ('offset' in spec) return String(nowSeconds + spec.offset);
	if ('milliseconds' in spec) return String(nowSeconds * 1000);
	return spec.literal;
}

function signatureValue(
	spec: SignatureSpec,
	timestamp: string | undefined,
	signedBytes: Buffer,
	context: CaseContext,
): string | undefined {
	if (spec === null) return undefined;
	if ('literal' in spec) return spec.literal;
	const key = {
		webhookSecret: context.webhookSecret,
		otherSecret: OTHER_SECRET,
		clientSecret: context.clientSecret,
		emptySecret: '',
	}[spec.key];
	const stamp = timestamp ?? '';
	const prefix = {
		timestampDotBody: `${stamp}.`,
		timestampBody: stamp,
		bodyOnly: '',
		nextSecondDotBody: `${Number(stamp) + 1}.`,
	}[spec.text ?? 'timestampDotBody'];
	const hex = createHmac('sha256', key).update(prefix).update(signedBytes).digest('hex');
	return { hex, upperHex: hex.toUpperCase(), sha256Prefixed: `sha256=${hex}`, sha1Prefixed: `sha1=${hex}` }[
		spec.form ?? 'hex'
	];
}

function wireRequest(testCase: AdversarialCase, nowSeconds: number, context: CaseContext): WireRequest {
	const fill = (text: string) => text.split('__RUN__').join(context.runId ?? '');
	const body = Buffer.from(fill(testCase.body), 'utf8');
	const signedBytes = testCase.signedBody === undefined ? body : Buffer.from(fill(testCase.signedBody), 'utf8');
	const timestamp = timestampValue(testCase.timestamp, nowSeconds);
	const signature = signatureValue(testCase.signature, timestamp, signedBytes, context);
	const headers: Record<string, string> = { 'Content-Type': testCase.contentType };
	if (timestamp !== undefined) headers[TIMESTAMP_HEADER] = timestamp;
	if (signature !== undefined) headers[SIGNATURE_HEADER] = signature;
	return { headers, body };
}

/** The concrete requests of a case: send `prior` at `prior.atSeconds` (if any), then `request` at `atSeconds`. */
export function buildCaseRequests(testCase: AdversarialCase, context: CaseContext): CaseRequests {
	const { nowSeconds } = context;
	if (testCase.prior === undefined) return { request: wireRequest(testCase, nowSeconds, context), atSeconds: nowSeconds };
	const priorAt = nowSeconds - testCase.prior.secondsEarlier;
	const priorRequest = wireRequest(testCase, priorAt, context);
	return {
		prior: { request: priorRequest, atSeconds: priorAt },
		request: testCase.prior.sameHeaders ? priorRequest : wireRequest(testCase, nowSeconds, context),
		atSeconds: nowSeconds,
	};
}

/** The answer body a case expects, if it expects one (with the run id filled in). */
export function expectedBody(testCase: AdversarialCase, runId = ''): unknown {
	if (testCase.expect.body === undefined) return undefined;
	return JSON.parse(JSON.stringify(testCase.expect.body).split('__RUN__').join(runId)) as unknown;
}

export interface CaseResult {
	testCase: AdversarialCase;
	status: number;
	started: boolean;
	threw: boolean;
}

export interface Tally {
	tried: number;
	/** Not sent by the service (or altered), yet the workflow started. Must be 0. */
	forgedAccepted: number;
	/** Sent by the service, yet turned away (401 or 5xx) or not started when it should. Must be 0. */
	genuineRejected: number;
	/** Cases whose answer code or start differs from `expect`, or that threw. */
	mismatches: string[];
}

export function tally(results: readonly CaseResult[]): Tally {
	const summary: Tally = { tried: results.length, forgedAccepted: 0, genuineRejected: 0, mismatches: [] };
	for (const { testCase, status, started, threw } of results) {
		if (testCase.origin !== 'genuine' && started) summary.forgedAccepted++;
		if (
			testCase.origin === 'genuine' &&
			(status === 401 || status >= 500 || (testCase.expect.started && !started))
		) {
			summary.genuineRejected++;
		}
		if (threw || status !== testCase.expect.status || started !== testCase.expect.started) {
			summary.mismatches.push(
				`${testCase.id} ${testCase.name}: got ${status}${started ? ' started' : ''}${threw ? ' threw' : ''}, expected ${testCase.expect.status}${testCase.expect.started ? ' started' : ''}`,
			);
		}
	}
	return summary;
}
