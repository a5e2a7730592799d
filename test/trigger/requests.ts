/**
 * Webhook requests as the service sends them (spec, Events): body bytes, and the headers
 * X-Service-Webhook-Timestamp (Unix seconds) and X-Service-Webhook-Signature (lowercase hex
 * HMAC-SHA256 of `timestamp + "." + body`, keyed with the webhook secret).
 * Independent of the node's code, so tests check the node against the spec, not against itself.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Webhook-Signature';
export const TIMESTAMP_HEADER = 'X-Service-Webhook-Timestamp';

/** A fixed moment (2026-11-22T03:00:00Z) so timestamp windows are tested to the second. */
export const FIXED_NOW_SECONDS = 1795316400;

export function sign(secret: string, timestamp: string, body: Buffer | string): string {
	return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

export interface SignedRequest {
	headers: Record<string, string>;
	body: Buffer;
}

/** A request signed the way the service signs it. */
export function signedRequest(
	secret: string,
	body: Buffer | string,
	timestampSeconds: number = FIXED_NOW_SECONDS,
	contentType = 'application/json',
): SignedRequest {
	const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
	const timestamp = String(timestampSeconds);
	return {
		headers: {
			'Content-Type': contentType,
			[TIMESTAMP_HEADER]: timestamp,
			[SIGNATURE_HEADER]: sign(secret, timestamp, bytes),
		},
		body: bytes,
	};
}

/** An event body exactly as text, so tests control every byte. */
export function eventBody(event: string, data: Record<string, unknown>, timestamp = '2026-11-22T02:59:58Z'): string {
	return JSON.stringify({ event, timestamp, data });
}

export function messageReceived(messageId: string, text = 'Hello'): string {
	return eventBody('message.received', {
		message_id: messageId,
		conversation_id: 42,
		from: '+15550001111',
		to: '+15550002222',
		type: 'text',
		body: text,
		timestamp: '2026-11-22T02:59:57Z',
	});
}

export function messageStatusUpdated(messageId: string, status: string): string {
	return eventBody('message.status.updated', {
		message_id: messageId,
		status,
		timestamp: '2026-11-22T02:59:57Z',
	});
}
