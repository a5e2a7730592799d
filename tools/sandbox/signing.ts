/**
 * Request and webhook signatures, written independently of the package's credential code so the
 * sandbox is a real check on it rather than a mirror of its mistakes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * How far an X-Timestamp may be from the server clock, in either direction. The spec states 300 s only
 * for webhook receivers; using the same window for API requests is our assumption.
 */
export const REQUEST_TIMESTAMP_TOLERANCE_S = 300;

export type MultipartSigning = 'rawBody' | 'queryString' | 'timestampOnly';

export function hmacHex(secret: string, ...parts: Array<string | Buffer>): string {
	const h = createHmac('sha256', secret);
	for (const p of parts) h.update(p);
	return h.digest('hex');
}

/** Constant-time comparison of two hex strings; unequal lengths still cost one comparison. */
export function safeEqualHex(a: string, b: string): boolean {
	const ab = Buffer.from(a, 'utf8');
	const bb = Buffer.from(b, 'utf8');
	if (ab.length !== bb.length) {
		timingSafeEqual(bb, bb);
		return false;
	}
	return timingSafeEqual(ab, bb);
}

export interface AuthConfig {
	clientId: string;
	clientSecret: string;
	domain: string;
	multipartSigning: MultipartSigning;
	now: () => number;
}

export interface AuthInput {
	headers: Record<string, string | string[] | undefined>;
	rawQuery: string;
	body: Buffer;
	isMultipart: boolean;
}

export type AuthResult = { ok: true } | { ok: false; message: string };

function header(headers: AuthInput['headers'], name: string): string | undefined {
	const v = headers[name.toLowerCase()];
	return Array.isArray(v) ? v[0] : v;
}

/**
 * The payload that follows the timestamp in the signed text: the raw body bytes when there is a body,
 * otherwise the raw query string; multipart bodies follow the configured mode.
 */
export function signedPayload(input: AuthInput, mode: MultipartSigning): string | Buffer {
	if (input.isMultipart) {
		if (mode === 'rawBody') return input.body;
		if (mode === 'queryString') return input.rawQuery;
		return '';
	}
	return input.body.length > 0 ? input.body : input.rawQuery;
}

/** Messages name what is wrong and how signing works, but never the secret or the expected signature. */
export function checkRequestAuth(input: AuthInput, cfg: AuthConfig): AuthResult {
	for (const name of ['X-Client-ID', 'X-Domain', 'X-Timestamp', 'X-Service-Signature-256']) {
		if (!header(input.headers, name)) return { ok: false, message: `Missing ${name} header.` };
	}
	if (header(input.headers, 'X-Client-ID') !== cfg.clientId) return { ok: false, message: 'Unknown client ID.' };
	if (header(input.headers, 'X-Domain') !== cfg.domain) return { ok: false, message: 'Unknown domain.' };
	const ts = header(input.headers, 'X-Timestamp')!;
	if (!/^\d+$/.test(ts)) return { ok: false, message: 'X-Timestamp must be an integer number of Unix seconds.' };
	const skew = Math.abs(Math.floor(cfg.now() / 1000) - Number(ts));
	if (skew > REQUEST_TIMESTAMP_TOLERANCE_S) {
		return {
			ok: false,
			message: `X-Timestamp is more than ${REQUEST_TIMESTAMP_TOLERANCE_S} seconds away from the server time (it must be Unix seconds).`,
		};
	}
	const sent = header(input.headers, 'X-Service-Signature-256')!;
	const m = /^sha256=([0-9a-f]{64})$/.exec(sent);
	const expected = hmacHex(cfg.clientSecret, ts, signedPayload(input, cfg.multipartSigning));
	if (!m || !safeEqualHex(m[1], expected)) {
		return {
			ok: false,
			message:
				'Invalid signature. Expected sha256=<lowercase hex HMAC-SHA256 of the X-Timestamp value followed by the raw body, or by the raw query string when there is no body>.',
		};
	}
	return { ok: true };
}

export interface WebhookSignature {
	timestamp: string;
	signature: string;
}

/** Webhook signing: HMAC-SHA256 of "<unix seconds>.<raw body>", lowercase hex. */
export function signWebhook(secret: string, unixSeconds: number, body: Buffer | string): WebhookSignature {
	const timestamp = String(unixSeconds);
	return { timestamp, signature: hmacHex(secret, timestamp, '.', body) };
}
