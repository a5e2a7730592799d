/**
 * The service's webhook signature, in one place: the trigger checks every delivery with it, and the
 * asking operation (Ask and Wait for Chat Reply) checks the reply the trigger hands on, and signs what it
 * tells the trigger, with the same credential's Webhook Secret. It sits beside the credential so both
 * nodes import it without one node's folder reaching into the other's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The service's webhook headers (spec, Events), as n8n hands them over: lowercased. */
export const SIGNATURE_HEADER = 'x-service-webhook-signature';
export const TIMESTAMP_HEADER = 'x-service-webhook-timestamp';

/** Why a signature check fails: each is one of the trigger's refusal reasons (its refusals.ts). */
export type SignatureRefusal =
	| 'missing signature'
	| 'missing timestamp'
	| 'invalid timestamp'
	| 'timestamp outside tolerance'
	| 'invalid signature';

/** The spec's tolerance: reject when the header timestamp is more than this far from now, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureCheck = { valid: true; timestamp: string } | { valid: false; reason: SignatureRefusal };

/**
 * Header forms accepted, decided here and nowhere else:
 * - signature: exactly 64 hex digits, any case, optionally prefixed `sha256=`. The service documents
 *   bare lowercase hex; the prefix (used by its own API signing) and uppercase cost no security, since
 *   the digest itself must still match.
 * - timestamp: integer Unix seconds written as digits only. Milliseconds fail the 300 s window;
 *   signs, fractions, spaces and anything else are rejected outright.
 * A header sent twice (an array) is rejected: which copy would be the signed one is unknowable.
 */
const SIGNATURE_FORM = /^(?:sha256=)?([0-9a-f]{64})$/i;
const TIMESTAMP_FORM = /^[0-9]+$/;

/** Verifies `X-Service-Webhook-Signature` over `timestamp + "." + raw body`, as the spec's Events part says. */
export function verifySignature(
	secret: string,
	signatureHeader: unknown,
	timestampHeader: unknown,
	rawBody: Buffer,
	nowSeconds: number,
): SignatureCheck {
	if (typeof signatureHeader !== 'string' || signatureHeader === '') {
		return { valid: false, reason: 'missing signature' };
	}
	if (typeof timestampHeader !== 'string' || timestampHeader === '') {
		return { valid: false, reason: 'missing timestamp' };
	}
	if (!TIMESTAMP_FORM.test(timestampHeader)) {
		return { valid: false, reason: 'invalid timestamp' };
	}
	if (Math.abs(nowSeconds - Number(timestampHeader)) > SIGNATURE_TOLERANCE_SECONDS) {
		return { valid: false, reason: 'timestamp outside tolerance' };
	}
	const match = SIGNATURE_FORM.exec(signatureHeader);
	if (match === null) {
		return { valid: false, reason: 'invalid signature' };
	}
	const received = Buffer.from(match[1].toLowerCase(), 'hex');
	const expected = Buffer.from(signWebhookBody(secret, timestampHeader, rawBody), 'hex');
	// Both are 32 bytes here (the form check guarantees it), as timingSafeEqual requires.
	if (!timingSafeEqual(received, expected)) {
		return { valid: false, reason: 'invalid signature' };
	}
	return { valid: true, timestamp: timestampHeader };
}

/** The signature of `timestamp.body`, lowercase hex, as the service sends it. */
export function signWebhookBody(secret: string, timestamp: string, rawBody: string | Buffer): string {
	return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The two headers that sign `rawBody` now, as the service signs its webhooks (for the package's own requests). */
export function signatureHeaders(secret: string, rawBody: string | Buffer, nowSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
	const timestamp = String(nowSeconds);
	return { [SIGNATURE_HEADER]: signWebhookBody(secret, timestamp, rawBody), [TIMESTAMP_HEADER]: timestamp };
}
