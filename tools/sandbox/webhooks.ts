/**
 * The sending side: signed webhook events with the spec's retry plan, and the verification handshake.
 * Scheduling runs on an injectable Clock; signing always uses the wall clock `now`.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { type Clock, realClock } from './clock';
import { signWebhook } from './signing';

/** Retry delays after the first failure: 1 min, 5 min, 15 min, 1 h, 6 h. */
export const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 900_000, 3_600_000, 21_600_000];

/**
 * The spec says both "five retries" and "after 5 failed attempts the event is marked failed". We read
 * it as the first attempt plus five retries: six attempts, and the event is failed when the sixth fails.
 * With custom retryDelaysMs the number of retries is that list's length.
 */
export const WEBHOOK_RETRIES = DEFAULT_RETRY_DELAYS_MS.length;
export const WEBHOOK_MAX_ATTEMPTS = 1 + WEBHOOK_RETRIES;

export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

export const EVENT_TYPES = [
	'message.received',
	'message.status.updated',
	'conversation.created',
	'conversation.updated',
	'order.created',
	'order.status.updated',
	'contact.created',
	'contact.updated',
] as const;

/** Sample `data` per event type, with the spec's fields; contact events' fields are our invention. */
export function sampleEventData(event: string, isoNow: string): Record<string, unknown> {
	switch (event) {
		case 'message.received':
			return { message_id: 'wamid.sample.1001', conversation_id: 501, from: '+15550001001', to: SANDBOX_SENDER_PHONE, type: 'text', body: 'Hello from the sandbox', timestamp: isoNow };
		case 'message.status.updated':
			return { message_id: 'wamid.sample.1001', status: 'delivered', timestamp: isoNow };
		case 'conversation.created':
			return { conversation_id: 501, contact_id: 1, phone_number: '+15550001001', created_at: isoNow };
		case 'conversation.updated':
			return { conversation_id: 501, status: 'active', updated_at: isoNow };
		case 'order.created':
			return { order_id: 61, conversation_id: 501, status: 'pending', total: 149.5, currency: 'USD', created_at: isoNow };
		case 'order.status.updated':
			return { order_id: 1, old_status: 'pending', new_status: 'accepted', updated_at: isoNow };
		case 'contact.created':
			return { contact_id: 121, name: 'Ana Silva', phone_number: '+15550000121', email: 'ana.silva.121@example.com', created_at: isoNow };
		case 'contact.updated':
			return { contact_id: 1, name: 'Ana Silva', phone_number: '+15550000001', email: 'ana.silva.1@example.com', updated_at: isoNow };
		default:
			return {};
	}
}

/** The sandbox's sender number as customers see it: the `to` of their messages (its phone_number_id is 100200300). */
export const SANDBOX_SENDER_PHONE = '+15559990000';

/** A customer writing to the business in the chat (the sandbox playing the customer). */
export interface CustomerMessage {
	/** The customer's number. */
	from: string;
	body: string;
	/** The business number written to; default SANDBOX_SENDER_PHONE. */
	to?: string;
	/** Default `text`. */
	type?: string;
	/** Where to deliver; default the configured webhook URL. */
	url?: string;
}

/** The `message.received` data of a customer's message, with the spec's fields. */
export function customerMessageData(m: CustomerMessage, messageId: string, isoNow: string): Record<string, unknown> {
	const digits = m.from.replace(/\D/g, '');
	return {
		message_id: messageId,
		conversation_id: Number(digits.slice(-6)) || 1,
		from: m.from,
		to: m.to ?? SANDBOX_SENDER_PHONE,
		type: m.type ?? 'text',
		body: m.body,
		timestamp: isoNow,
	};
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'rejected';

export interface Attempt {
	attempt: number;
	/** Planned offset on the scheduling clock from the first attempt: 0, 60 000, 360 000, ... */
	scheduledAtMs: number;
	/** Wall-clock time the attempt was sent, ISO 8601. */
	sentAt: string;
	/** The X-Service-Webhook-Timestamp sent with this attempt. */
	timestamp: string;
	status: number | null;
	error?: string;
	responseBody?: string;
}

export interface Delivery {
	id: string;
	event: string;
	url: string;
	body: string;
	state: DeliveryState;
	attempts: Attempt[];
	/** While it waits to retry: the schedule's delay before the next attempt (60 000, 300 000, ...; not scaled). */
	nextAttemptDelayMs?: number;
	done: Promise<Delivery>;
}

export interface DeliverOptions {
	event: string;
	data?: unknown;
	url?: string;
	/** Unix seconds to put in the timestamp header and signature instead of now() (for stale-signature tests). */
	timestamp?: number;
	/** ISO time of the envelope's `timestamp`; default now. Callers that stamp the data pass the same reading. */
	occurredAt?: string;
	/** Raw body to send instead of the serialized envelope (for malformed-body tests). */
	body?: string;
	/** Secret to sign with instead of the webhook secret (for wrong-signature tests). */
	signWith?: string;
	/** Retries on the service's real schedule (1 min, 6 min, ...) even when the sandbox's clock is scaled. */
	realTimeRetries?: boolean;
}

export interface VerifyResult {
	ok: boolean;
	status: number | null;
	body: string;
	challenge: string;
	error?: string;
}

export interface EngineConfig {
	webhookSecret: string;
	retryDelaysMs: number[];
	deliveryTimeoutMs: number;
	clock: Clock;
	now: () => number;
	getUrl: () => string | undefined;
}

interface PostResult {
	status: number | null;
	body: string;
	error?: string;
}

export class WebhookEngine {
	readonly deliveries: Delivery[] = [];
	private seq = 0;
	private cancel = new AbortController();
	// Own connection pool, so stop() can close every socket it opened.
	private agent = new Agent({ keepAliveTimeout: 1000 });

	constructor(private cfg: EngineConfig) {}

	private async post(url: string, body: Buffer | string, secret: string, unixSeconds: number): Promise<PostResult> {
		const { timestamp, signature } = signWebhook(secret, unixSeconds, body);
		const signal = AbortSignal.any([AbortSignal.timeout(this.cfg.deliveryTimeoutMs), this.cancel.signal]);
		try {
			const res = await request(url, {
				method: 'POST',
				dispatcher: this.agent,
				signal,
				headers: {
					'content-type': 'application/json',
					'x-service-webhook-signature': signature,
					'x-service-webhook-timestamp': timestamp,
					'user-agent': 'business-messaging-sandbox',
				},
				body,
			});
			const text = await res.body.text();
			return { status: res.statusCode, body: text };
		} catch (err) {
			const e = err as Error & { code?: string };
			const name = e.name === 'TimeoutError' || e.code === 'UND_ERR_ABORTED' ? 'timeout' : e.code ?? e.name;
			return { status: null, body: '', error: `${name}: ${e.message}` };
		}
	}

	deliver(opts: DeliverOptions): Delivery {
		const url = opts.url ?? this.cfg.getUrl();
		if (!url) throw new Error('No webhook URL is configured.');
		const isoNow = opts.occurredAt ?? new Date(this.cfg.now()).toISOString();
		const text = opts.body ?? JSON.stringify({ event: opts.event, timestamp: isoNow, data: opts.data ?? sampleEventData(opts.event, isoNow) });
		// Serialized once: every attempt sends these very bytes.
		const bytes = Buffer.from(text, 'utf8');
		const delivery = { id: `dlv_${++this.seq}`, event: opts.event, url, body: text, state: 'pending', attempts: [] } as unknown as Delivery;
		delivery.done = this.run(delivery, bytes, opts);
		this.deliveries.push(delivery);
		return delivery;
	}

	private async run(d: Delivery, bytes: Buffer, opts: DeliverOptions): Promise<Delivery> {
		const { retryDelaysMs } = this.cfg;
		const clock = opts.realTimeRetries ? realClock : this.cfg.clock;
		const signal = this.cancel.signal;
		const start = clock.now();
		let offset = 0;
		for (let i = 0; i <= retryDelaysMs.length; i++) {
			if (i > 0) {
				offset += retryDelaysMs[i - 1];
				d.nextAttemptDelayMs = retryDelaysMs[i - 1];
				try {
					// Sleep to the planned point rather than for a fixed span, so slow attempts do not drift the plan.
					await clock.sleep(Math.max(0, start + offset - clock.now()), signal);
				} catch {
					return d;
				} finally {
					delete d.nextAttemptDelayMs;
				}
			}
			if (signal.aborted) return d;
			const wall = this.cfg.now();
			const unix = opts.timestamp ?? Math.floor(wall / 1000);
			const attempt: Attempt = { attempt: i + 1, scheduledAtMs: offset, sentAt: new Date(wall).toISOString(), timestamp: String(unix), status: null };
			d.attempts.push(attempt);
			const res = await this.post(d.url, bytes, opts.signWith ?? this.cfg.webhookSecret, unix);
			attempt.status = res.status;
			attempt.responseBody = res.body;
			if (res.error) attempt.error = res.error;
			if (signal.aborted) return d;
			if (res.status === 200) {
				d.state = 'delivered';
				return d;
			}
			if (res.status === 400 || res.status === 401) {
				d.state = 'rejected';
				return d;
			}
		}
		d.state = 'failed';
		return d;
	}

	async verify(url?: string): Promise<VerifyResult> {
		const target = url ?? this.cfg.getUrl();
		const challenge = randomBytes(16).toString('hex');
		if (!target) return { ok: false, status: null, body: '', challenge, error: 'No webhook URL is configured.' };
		const body = JSON.stringify({ type: 'verification', challenge });
		const res = await this.post(target, body, this.cfg.webhookSecret, Math.floor(this.cfg.now() / 1000));
		let echoed: unknown;
		try {
			echoed = (JSON.parse(res.body) as { challenge?: unknown })?.challenge;
		} catch {
			echoed = undefined;
		}
		const result: VerifyResult = { ok: res.status === 200 && echoed === challenge, status: res.status, body: res.body, challenge };
		if (res.error) result.error = res.error;
		return result;
	}

	/** Forget every delivery and stop the ones still running. */
	reset(): void {
		this.cancel.abort();
		this.cancel = new AbortController();
		this.deliveries.length = 0;
	}

	async close(): Promise<void> {
		this.cancel.abort();
		await this.agent.destroy();
	}
}

/** A delivery without its promise, for JSON answers. */
export function deliveryJson(d: Delivery): Omit<Delivery, 'done'> {
	const { done: _done, ...rest } = d;
	return rest;
}
