/**
 * Deliveries as the service sends them, straight to chosen webhook processes: signed with the webhook
 * secret over `<timestamp>.<raw body>`, a retry carrying the same body with a fresh signature. Shared by
 * the queue suite and the queue benchmark.
 */
import { SANDBOX_SENDER_PHONE } from '../../tools/sandbox/webhooks';
import { SIGNATURE_HEADER, signedRequest } from '../trigger/requests';

export interface Delivery {
	url: string;
	body: string;
	timestamp: number;
	/** Overrides the signature (a forgery). */
	signature?: string;
}

export interface Answer {
	status: number;
	body: string;
	/** Set when no HTTP answer came (connection refused or reset). */
	error?: string;
}

/** A message.received event, unique per `tag`. */
export function messageEvent(tag: string, from = '+15550001000'): string {
	return JSON.stringify({
		event: 'message.received',
		timestamp: new Date().toISOString(),
		data: {
			message_id: `wamid.queue.${tag}`,
			conversation_id: 7000,
			from,
			to: SANDBOX_SENDER_PHONE,
			type: 'text',
			body: `Queue mode ${tag}`,
			timestamp: new Date().toISOString(),
		},
	});
}

export function nowSeconds(): number {
	return Math.floor(Date.now() / 1000);
}

export async function deliver(secret: string, d: Delivery, timeoutMs = 120_000): Promise<Answer> {
	try {
		const res = await fetch(d.url, {
			method: 'POST',
			headers: { ...signedRequest(secret, d.body, d.timestamp).headers, ...(d.signature === undefined ? {} : { [SIGNATURE_HEADER]: d.signature }) },
			body: d.body,
			signal: AbortSignal.timeout(timeoutMs),
		});
		return { status: res.status, body: await res.text() };
	} catch (error) {
		const cause = (error as { cause?: { code?: string } }).cause?.code;
		return { status: 0, body: '', error: cause ?? String(error) };
	}
}

/**
 * Copies of one event: `identical` with the same timestamp (so the same signature), `fresh` each signed
 * at an earlier second, as retries are; spread over `urls` in turn.
 */
export function copiesOf(body: string, urls: string[], identical: number, fresh: number, timestamp = nowSeconds()): Delivery[] {
	const out: Delivery[] = [];
	for (let i = 0; i < identical + fresh; i++) {
		out.push({ url: urls[i % urls.length], body, timestamp: i < identical ? timestamp : timestamp - (i - identical + 1) });
	}
	return out;
}

/** Sends every delivery at the same moment (one event loop turn) and returns the answers in order. */
export async function deliverTogether(secret: string, deliveries: Delivery[]): Promise<Answer[]> {
	return await Promise.all(deliveries.map((d) => deliver(secret, d)));
}
