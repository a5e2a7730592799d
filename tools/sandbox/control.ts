/**
 * The unsigned control API under /_sandbox/, for suites and demos that drive a sandbox started by the
 * CLI in another process. Binary content travels as base64 with its sha256.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SentMessage, UploadedFile } from './api';
import type { FaultSpec } from './faults';
import { fail, readBody, sendJson, type Answer } from './http-util';
import { MESSAGE_STATUSES, type MessageStatus, type StatusPlan } from './statuses';
import type { RecordedRequest, Sandbox } from './types';
import { deliveryJson } from './webhooks';

function fileJson(f: UploadedFile, withBytes: boolean) {
	const { bytes, ...rest } = f;
	return withBytes ? { ...rest, bytes: bytes.toString('base64') } : rest;
}

export function requestJson(r: RecordedRequest, withBytes = true) {
	const { body, multipart, ...rest } = r;
	return {
		...rest,
		...(withBytes ? { body: body.toString('base64') } : {}),
		bodySize: body.length,
		bodySha256: createHash('sha256').update(body).digest('hex'),
		...(multipart ? { multipart: { fields: multipart.fields, files: multipart.files.map((f) => fileJson(f, withBytes)) } } : {}),
	};
}

export function messageJson(m: SentMessage, withBytes = true) {
	return m.file ? { ...m, file: fileJson(m.file, withBytes) } : m;
}

const done = (extra: Record<string, unknown> = {}): Answer => ({ status: 200, body: { status: true, ...extra } });

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
	const raw = await readBody(req);
	if (raw.length === 0) return {};
	const v = JSON.parse(raw.toString('utf8')) as unknown;
	if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('Expected a JSON object.');
	return v as Record<string, unknown>;
}

async function answerFor(sb: Sandbox, req: IncomingMessage, path: string, rawQuery: string): Promise<Answer> {
	const method = req.method ?? 'GET';
	const q = new URLSearchParams(rawQuery);
	const withBytes = q.get('bytes') !== '0';
	let m: RegExpExecArray | null;

	if (method === 'GET' && (path === '' || path === '/')) {
		return done({ data: { url: sb.url, webhookUrl: sb.webhookUrl ?? null } });
	}
	if (method === 'GET' && path === '/requests') {
		// ?since=<seq> returns only later records; ?bytes=0 leaves out bodies and file bytes.
		const since = Number(q.get('since') ?? 0);
		return done({ data: sb.requests.filter((r) => r.seq > since).map((r) => requestJson(r, withBytes)) });
	}
	if (method === 'GET' && path === '/messages') return done({ data: sb.messages.map((x) => messageJson(x, withBytes)) });
	if (method === 'GET' && path === '/statuses') return done({ data: sb.statusPlans });
	if (method === 'POST' && path === '/statuses') {
		// { schedule: { sentMs, deliveredMs, readMs } | false, phone? }; with a phone, schedule null removes its plan.
		const b = await jsonBody(req);
		if (b.phone !== undefined && typeof b.phone !== 'string') return fail(400, 'phone must be a string.');
		if (b.schedule === undefined) return fail(400, 'schedule is required.');
		sb.setStatuses(b.schedule as StatusPlan | null, b.phone);
		return done({ data: sb.statusPlans });
	}
	if (method === 'POST' && (m = /^\/messages\/([^/]+)\/status$/.exec(path))) {
		// A status now, whatever the schedule and whatever came before: out of order and twice are allowed.
		const id = decodeURIComponent(m[1]);
		const { status } = await jsonBody(req);
		if (!(MESSAGE_STATUSES as readonly unknown[]).includes(status)) return fail(400, `status must be one of: ${MESSAGE_STATUSES.join(', ')}.`);
		if (!sb.messages.some((x) => x.message_id === id)) return fail(404, `No message ${id}.`);
		const d = sb.reportStatus(id, status as MessageStatus);
		return done({ data: { message_id: id, status, delivery_id: d?.id ?? null } });
	}
	if (method === 'GET' && (m = /^\/orders\/(\d+)$/.exec(path))) {
		const o = sb.getOrder(Number(m[1]));
		return o ? done({ data: o }) : fail(404, 'Order not found.');
	}
	if (method === 'POST' && path === '/faults') {
		const spec = (await jsonBody(req)) as FaultSpec;
		sb.injectFault(spec);
		return done({ message: 'Fault injected' });
	}
	if (method === 'DELETE' && path === '/faults') {
		sb.clearFaults();
		return done({ message: 'Faults cleared' });
	}
	if (method === 'POST' && path === '/reset') {
		sb.reset();
		return done({ message: 'Sandbox reset' });
	}
	if (method === 'POST' && path === '/webhook-url') {
		const { url } = await jsonBody(req);
		if (url !== null && url !== undefined && typeof url !== 'string') return fail(400, 'url must be a string or null.');
		sb.setWebhookUrl(url ?? undefined);
		return done({ data: { url: sb.webhookUrl ?? null } });
	}
	if (method === 'POST' && path === '/verify') {
		const { url } = await jsonBody(req);
		return done({ data: await sb.verifyWebhook(typeof url === 'string' ? url : undefined) });
	}
	if (method === 'POST' && path === '/deliver') {
		const b = await jsonBody(req);
		if (typeof b.event !== 'string' || !b.event) return fail(400, 'event is required.');
		if (!b.url && !sb.webhookUrl) return fail(422, 'No webhook URL is configured.');
		const d = sb.deliver({
			event: b.event,
			data: b.data,
			url: typeof b.url === 'string' ? b.url : undefined,
			body: typeof b.body === 'string' ? b.body : undefined,
			signWith: typeof b.signWith === 'string' ? b.signWith : undefined,
			timestamp: typeof b.timestamp === 'number' ? b.timestamp : undefined,
			realTimeRetries: b.realTimeRetries === true,
		});
		return done({ id: d.id, data: { id: d.id } });
	}
	if (method === 'POST' && path === '/customer-message') {
		// The sandbox plays the customer: a signed message.received from `from` to the sender number.
		const b = await jsonBody(req);
		if (typeof b.from !== 'string' || !/^\+?\d{7,15}$/.test(b.from)) return fail(400, 'from must be a phone number.');
		if (typeof b.body !== 'string') return fail(400, 'body is required.');
		if (b.to !== undefined && typeof b.to !== 'string') return fail(400, 'to must be a phone number.');
		if (!b.url && !sb.webhookUrl) return fail(422, 'No webhook URL is configured.');
		const d = sb.customerMessage({
			from: b.from,
			body: b.body,
			to: b.to as string | undefined,
			type: typeof b.type === 'string' ? b.type : undefined,
			url: typeof b.url === 'string' ? b.url : undefined,
		});
		return done({ id: d.id, data: { id: d.id, body: d.body } });
	}
	if (method === 'GET' && path === '/deliveries') return done({ data: sb.deliveries.map(deliveryJson) });
	if (method === 'GET' && (m = /^\/deliveries\/([^/]+)$/.exec(path))) {
		const d = sb.deliveries.find((x) => x.id === m![1]);
		return d ? done({ data: deliveryJson(d) }) : fail(404, 'Delivery not found.');
	}
	return fail(404, `No control route for ${method} /_sandbox${path}.`);
}

export async function handleControl(sb: Sandbox, req: IncomingMessage, res: ServerResponse, path: string, rawQuery: string): Promise<void> {
	let a: Answer;
	try {
		a = await answerFor(sb, req, path, rawQuery);
	} catch (err) {
		a = fail(400, (err as Error).message);
	}
	sendJson(res, a);
}
