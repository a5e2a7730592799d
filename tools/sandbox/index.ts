/**
 * A local stand-in for the business messaging service: the signed API, seed data, fault injection,
 * request records and the signed webhook sender. Binds loopback only.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { route, type ApiContext, type ParsedMultipart, type SentMessage, type UploadedFile } from './api';
import { realClock, scaledClock, type Clock } from './clock';
import { handleControl } from './control';
import { FaultQueue, faultMessage, type FaultSpec } from './faults';
import { BodyTooLarge, fail, readBody, send, sendJson } from './http-util';
import { makeOrder, seed, type Order, type SeedData } from './seed';
import { checkRequestAuth, type MultipartSigning } from './signing';
import { checkStatusPlan, StatusReporter, type StatusPlan } from './statuses';
import { customerMessageData, DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_RETRY_DELAYS_MS, sampleEventData, WebhookEngine, type CustomerMessage, type Delivery, type DeliverOptions, type VerifyResult } from './webhooks';

export type { RecordedRequest, Sandbox, SandboxCredentials } from './types';
import type { RecordedRequest, Sandbox, SandboxCredentials } from './types';
export { ManualClock, realClock, scaledClock, type Clock } from './clock';
export type { FaultSpec } from './faults';
export type { Order, Template, Contact } from './seed';
export type { SentMessage, UploadedFile, ParsedMultipart } from './api';
export { CLI_STATUS_SCHEDULE, MESSAGE_STATUSES, checkStatusPlan, type MessageStatus, type StatusPlan, type StatusRecord, type StatusSchedule } from './statuses';
export { REQUEST_TIMESTAMP_TOLERANCE_S, signWebhook, type MultipartSigning } from './signing';
export {
	DEFAULT_RETRY_DELAYS_MS,
	EVENT_TYPES,
	SANDBOX_SENDER_PHONE,
	type CustomerMessage,
	WEBHOOK_MAX_ATTEMPTS,
	WEBHOOK_RETRIES,
	sampleEventData,
	type Attempt,
	type Delivery,
	type DeliverOptions,
	type DeliveryState,
	type VerifyResult,
} from './webhooks';

/** Sentinel values: the test suite greps all output for the secrets to catch leaks. */
export const SANDBOX_CREDENTIALS = {
	clientId: 'sandbox-client',
	clientSecret: 'SENTINEL-client-secret-7f3a9c',
	domain: 'sandbox.local',
	webhookSecret: 'SENTINEL-webhook-secret-2b8e41',
	phoneNumberId: '100200300',
};

export interface SandboxOptions {
	/** 0 (the default) picks a free port. */
	port?: number;
	/** Loopback only: '127.0.0.1' (default) or '::1'. */
	host?: string;
	clientId?: string;
	clientSecret?: string;
	domain?: string;
	webhookSecret?: string;
	phoneNumberId?: string;
	/** What a multipart request's signature covers after the timestamp; default 'rawBody'. */
	multipartSigning?: MultipartSigning;
	templateCount?: number;
	contactCount?: number;
	orderCount?: number;
	webhookUrl?: string;
	retryDelaysMs?: number[];
	deliveryTimeoutMs?: number;
	/**
	 * `message.status.updated` events for every message accepted: ms after acceptance for sent, delivered
	 * and read (null: never). Default false: none, so suites that count events see only their own.
	 */
	statuses?: StatusPlan;
	/** Clock for webhook retry and status scheduling; default real time, or scaled by timeScale. */
	clock?: Clock;
	/** Retry delays are divided by this when no clock is given. */
	timeScale?: number;
	/** Wall clock (ms) for signing webhooks, checking X-Timestamp and stamping records; default Date.now. */
	now?: () => number;
	/** One line per API request, e.g. for the CLI. Lines never contain secrets. */
	log?: (line: string) => void;
}




async function parseMultipart(contentType: string, body: Buffer): Promise<ParsedMultipart> {
	// The WHATWG Request parser built into Node, so no multipart dependency is needed.
	const form = await new Request('http://sandbox.invalid/', { method: 'POST', headers: { 'content-type': contentType }, body }).formData();
	const fields: Record<string, string> = {};
	const files: UploadedFile[] = [];
	for (const [field, value] of form.entries()) {
		if (typeof value === 'string') {
			fields[field] = value;
			continue;
		}
		const bytes = Buffer.from(await value.arrayBuffer());
		files.push({ field, filename: value.name, contentType: value.type, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), bytes });
	}
	return { fields, files };
}

function firstValues(q: URLSearchParams): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of q) if (!(k in out)) out[k] = v;
	return out;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
	const host = opts.host ?? '127.0.0.1';
	if (host !== '127.0.0.1' && host !== '::1') throw new Error(`The sandbox binds loopback only (127.0.0.1 or ::1), not ${host}`);
	const now = opts.now ?? Date.now;
	const sizes = { templateCount: opts.templateCount ?? 250, contactCount: opts.contactCount ?? 120, orderCount: opts.orderCount ?? 60 };
	const cfg = {
		clientId: opts.clientId ?? SANDBOX_CREDENTIALS.clientId,
		clientSecret: opts.clientSecret ?? SANDBOX_CREDENTIALS.clientSecret,
		domain: opts.domain ?? SANDBOX_CREDENTIALS.domain,
		multipartSigning: opts.multipartSigning ?? 'rawBody',
		now,
	};
	const log = opts.log ?? (() => undefined);

	let data: SeedData = seed(sizes);
	/**
	 * An `order.created` event says the order exists: the service then has it, pending, so that a workflow the
	 * event starts can update it (the demo's orders workflow accepts it).
	 */
	const withCreatedOrder = (o: DeliverOptions): DeliverOptions => {
		if (o.event !== 'order.created' || o.body !== undefined) return o;
		const event = (o.data ?? sampleEventData(o.event, new Date(now()).toISOString())) as Record<string, unknown>;
		const id = Number(event.order_id);
		if (Number.isInteger(id) && id > 0 && !data.orders.has(id)) data.orders.set(id, { ...makeOrder(id), status: 'pending', shipping_date: null, delivery_date: null });
		return { ...o, data: event };
	};
	let webhookUrl = opts.webhookUrl;
	let messageSeq = 0;
	let inboundSeq = 0;
	let requestSeq = 0;
	const requests: RecordedRequest[] = [];
	const messages: SentMessage[] = [];
	const faults = new FaultQueue();
	const stopping = new AbortController();
	const clock = opts.clock ?? (opts.timeScale && opts.timeScale !== 1 ? scaledClock(opts.timeScale) : realClock);
	const engine = new WebhookEngine({
		webhookSecret: opts.webhookSecret ?? SANDBOX_CREDENTIALS.webhookSecret,
		retryDelaysMs: opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
		deliveryTimeoutMs: opts.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
		clock,
		now,
		getUrl: () => webhookUrl,
	});
	const statuses = new StatusReporter({ plan: checkStatusPlan(opts.statuses ?? false), clock, now, webhookUrl: () => webhookUrl, deliver: (o) => engine.deliver(o) });

	const ctx: ApiContext = {
		get data() {
			return data;
		},
		now,
		accept: (m) => {
			messages.push(m);
			statuses.accepted(m);
		},
		nextMessageId: () => `wamid.${++messageSeq}`,
		webhookUrl: () => webhookUrl,
		deliver: (o) => engine.deliver(o),
	};

	async function handleApi(req: IncomingMessage, res: ServerResponse, path: string, rawQuery: string): Promise<void> {
		const method = req.method ?? 'GET';
		const query = new URLSearchParams(rawQuery);
		const contentType = req.headers['content-type'] ?? '';
		const isMultipart = /^multipart\/form-data/i.test(contentType);
		const record: RecordedRequest = {
			seq: ++requestSeq,
			method,
			path,
			query: firstValues(query),
			rawQuery,
			headers: { ...req.headers },
			body: Buffer.alloc(0),
			status: 0,
			authOk: false,
			receivedAt: new Date(now()).toISOString(),
		};
		requests.push(record);
		const answer = (status: number, write: () => void, note = '') => {
			record.status = status;
			record.answeredAt = new Date(now()).toISOString();
			write();
			log(`${method} ${path}${rawQuery ? '?' + rawQuery : ''} -> ${status}${note ? ' ' + note : ''}`);
		};

		try {
			record.body = await readBody(req);
		} catch (err) {
			if (err instanceof BodyTooLarge) return answer(413, () => sendJson(res, fail(413, 'The request body is too large.')));
			throw err;
		}
		const body = record.body;
		if (isMultipart) {
			record.multipart = await parseMultipart(contentType, body).catch(() => undefined);
		} else if (body.length > 0) {
			try {
				record.json = JSON.parse(body.toString('utf8'));
			} catch {
				// Left undefined; the route answers 400 where a JSON body is expected.
			}
		}
		const auth = checkRequestAuth({ headers: req.headers, rawQuery, body, isMultipart }, cfg);
		record.authOk = auth.ok;

		const fault = faults.take(method, path, record.json);
		if (fault) {
			if (fault.delayMs) await delay(fault.delayMs, undefined, { signal: stopping.signal }).catch(() => undefined);
			if (fault.destroy) {
				record.status = null;
				log(`${method} ${path} -> socket destroyed (injected fault)`);
				req.socket.destroy();
				return;
			}
			if (fault.status !== undefined) {
				const headers: Record<string, string> = {};
				if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
				const status = fault.status;
				if (fault.body !== undefined) {
					return answer(status, () => send(res, status, fault.body!, fault.contentType ?? 'text/plain; charset=utf-8', headers), '(injected fault)');
				}
				const a = fail(status, faultMessage(status));
				return answer(status, () => send(res, status, JSON.stringify(a.body), fault.contentType ?? 'application/json; charset=utf-8', headers), '(injected fault)');
			}
		}

		if (!auth.ok) return answer(401, () => sendJson(res, fail(401, auth.message)), `(${auth.message.split('.')[0]})`);
		const a = route(ctx, { method, path, query, body, json: record.json, isMultipart, multipart: record.multipart });
		answer(a.status, () => sendJson(res, a));
	}

	const server: Server = createServer((req, res) => {
		const raw = req.url ?? '/';
		const qi = raw.indexOf('?');
		// The raw query string exactly as received: it is what GET signatures cover.
		const path = qi < 0 ? raw : raw.slice(0, qi);
		const rawQuery = qi < 0 ? '' : raw.slice(qi + 1);
		const work = path === '/_sandbox' || path.startsWith('/_sandbox/')
			? handleControl(sandbox, req, res, path.slice('/_sandbox'.length), rawQuery)
			: handleApi(req, res, path, rawQuery);
		work.catch((err: Error) => {
			log(`${req.method} ${path} -> 500 (${err.message})`);
			if (!res.headersSent && !res.destroyed) sendJson(res, fail(500, `Sandbox internal error: ${err.message}`));
		});
	});

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(opts.port ?? 0, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;
	const url = host === '::1' ? `http://[::1]:${port}` : `http://127.0.0.1:${port}`;

	const sandbox: Sandbox = {
		url,
		port,
		credentials: {
			baseUrl: url,
			clientId: cfg.clientId,
			clientSecret: cfg.clientSecret,
			domain: cfg.domain,
			webhookSecret: opts.webhookSecret ?? SANDBOX_CREDENTIALS.webhookSecret,
			phoneNumberId: opts.phoneNumberId ?? SANDBOX_CREDENTIALS.phoneNumberId,
		},
		requests,
		messages,
		deliveries: engine.deliveries,
		get webhookUrl() {
			return webhookUrl;
		},
		getOrder: (id) => {
			const o = data.orders.get(id);
			return o ? { ...o } : undefined;
		},
		injectFault: (f) => faults.add(f),
		clearFaults: () => faults.clear(),
		reset: () => {
			data = seed(sizes);
			requests.length = 0;
			messages.length = 0;
			messageSeq = 0;
			faults.clear();
			statuses.reset();
			engine.reset();
		},
		setWebhookUrl: (u) => {
			webhookUrl = u || undefined;
		},
		setStatuses: (plan, phone) => statuses.set(plan === null ? null : checkStatusPlan(plan), phone),
		get statusPlans() {
			return statuses.plans;
		},
		reportStatus: (messageId, status) => {
			const m = messages.find((x) => x.message_id === messageId);
			if (!m) throw new Error(`No message ${messageId}.`);
			return statuses.report(m, status);
		},
		verifyWebhook: (u) => engine.verify(u),
		deliver: (o) => engine.deliver(withCreatedOrder(o)),
		customerMessage: (m) => {
			const at = new Date(now()).toISOString();
			return engine.deliver({ event: 'message.received', url: m.url, data: customerMessageData(m, `wamid.in.${++inboundSeq}`, at), occurredAt: at });
		},
		stop: async () => {
			stopping.abort();
			statuses.close();
			await engine.close();
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
	return sandbox;
}
