/** The signed API: orders, templates, contacts, messages and the webhook test. Pure routing over state. */
import { fail, ok, pageOf, parsePaging, type Answer } from './http-util';
import { ORDER_STATES, type OrderState, type SeedData } from './seed';
import type { MessageStatus, StatusRecord } from './statuses';
import { sampleEventData, type Delivery, type DeliverOptions } from './webhooks';

export const PHONE_PATTERN = /^\+?[1-9]\d{6,14}$/;
export const MEDIA_TYPES = ['image', 'video', 'audio', 'document'] as const;

export interface UploadedFile {
	field: string;
	filename: string;
	contentType: string;
	size: number;
	sha256: string;
	bytes: Buffer;
}

export interface ParsedMultipart {
	fields: Record<string, string>;
	files: UploadedFile[];
}

export interface SentMessage {
	message_id: string;
	kind: 'text' | 'media';
	phone_number_id: string;
	phone: string;
	type: string;
	body?: string;
	caption?: string;
	file?: UploadedFile;
	created_at: string;
	/** The last status reported (statuses.ts); absent until one is. */
	status?: MessageStatus;
	/** Every status reported, in the order reported. */
	statuses: StatusRecord[];
}

export interface ApiRequest {
	method: string;
	path: string;
	query: URLSearchParams;
	body: Buffer;
	/** Set when the body parsed as JSON. */
	json?: unknown;
	isMultipart: boolean;
	/** Set when a multipart body parsed. */
	multipart?: ParsedMultipart;
}

export interface ApiContext {
	data: SeedData;
	now: () => number;
	/** Keep a message the API accepted (and plan its statuses). */
	accept: (m: SentMessage) => void;
	nextMessageId: () => string;
	webhookUrl: () => string | undefined;
	deliver: (opts: DeliverOptions) => Delivery;
}

const isInt = (s: string) => /^\d+$/.test(s);

function decode(s: string): string {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
}

/** A real calendar date in YYYY-MM-DD form (rejects 2025-02-30). */
export function isCalendarDate(v: unknown): v is string {
	if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
	const d = new Date(`${v}T00:00:00Z`);
	return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

function jsonObject(req: ApiRequest): { ok: true; value: Record<string, unknown> } | { ok: false; answer: Answer } {
	if (req.body.length === 0) return { ok: true, value: {} };
	if (req.json === undefined) return { ok: false, answer: fail(400, 'The request body is not valid JSON.') };
	if (req.json === null || typeof req.json !== 'object' || Array.isArray(req.json)) {
		return { ok: false, answer: fail(400, 'The request body must be a JSON object.') };
	}
	return { ok: true, value: req.json as Record<string, unknown> };
}

function senderId(req: ApiRequest): string | Answer {
	const id = req.query.get('phone_number_id');
	if (!id) return fail(422, 'The phone_number_id query parameter is required.', { phone_number_id: ['The phone_number_id field is required.'] });
	return id;
}

function updateOrder(ctx: ApiContext, req: ApiRequest, idText: string): Answer {
	if (!isInt(idText)) return fail(400, 'Order id must be an integer.');
	const parsed = jsonObject(req);
	if (!parsed.ok) return parsed.answer;
	const sender = senderId(req);
	if (typeof sender !== 'string') return sender;
	const order = ctx.data.orders.get(Number(idText));
	if (!order) return fail(404, 'Order not found.');

	const b = parsed.value;
	const errors: Record<string, string[]> = {};
	const has = (k: string) => Object.prototype.hasOwnProperty.call(b, k);
	if (has('status') && !(ORDER_STATES as readonly unknown[]).includes(b.status)) {
		errors.status = [`The status must be one of: ${ORDER_STATES.join(', ')}.`];
	}
	if (has('payment_status') && b.payment_status !== 'paid' && b.payment_status !== 'unpaid') {
		errors.payment_status = ['The payment_status must be paid or unpaid.'];
	}
	for (const k of ['shipping_date', 'delivery_date']) {
		if (has(k) && !isCalendarDate(b[k])) errors[k] = [`The ${k} must be a valid date in YYYY-MM-DD format.`];
	}
	if (has('admin_notes') && b.admin_notes !== null && typeof b.admin_notes !== 'string') errors.admin_notes = ['The admin_notes must be a string.'];
	if (has('branch_id') && b.branch_id !== null && typeof b.branch_id !== 'string' && !Number.isInteger(b.branch_id)) {
		errors.branch_id = ['The branch_id must be a string.'];
	}
	if (Object.keys(errors).length) return fail(422, 'The given data was invalid.', errors);

	if (has('status')) {
		const from = ORDER_STATES.indexOf(order.status);
		const to = ORDER_STATES.indexOf(b.status as OrderState);
		// Only the next state, or the current one again so that repeating an update is safe.
		if (to !== from && to !== from + 1) {
			const message = `Order ${order.id} cannot move from ${order.status} to ${b.status as string}.`;
			return fail(422, message, { status: [message] });
		}
	}
	// Only fields that were sent change; payment_status is never defaulted on update.
	if (has('status')) order.status = b.status as OrderState;
	if (has('payment_status')) order.payment_status = b.payment_status as 'paid' | 'unpaid';
	if (has('shipping_date')) order.shipping_date = b.shipping_date as string;
	if (has('delivery_date')) order.delivery_date = b.delivery_date as string;
	if (has('admin_notes')) order.admin_notes = b.admin_notes as string | null;
	if (has('branch_id')) order.branch_id = b.branch_id === null ? null : String(b.branch_id);
	order.updated_at = new Date(ctx.now()).toISOString();
	const { id, order_number, status, payment_status, shipping_date, delivery_date, admin_notes, updated_at } = order;
	return ok({ message: 'Order updated successfully', data: { id, order_number, status, payment_status, shipping_date, delivery_date, admin_notes, updated_at } });
}

function listOrders(ctx: ApiContext, req: ApiRequest): Answer {
	const paging = parsePaging(req.query);
	if (!paging.ok) return paging.answer;
	const status = req.query.get('status');
	if (status && !(ORDER_STATES as readonly string[]).includes(status)) {
		return fail(422, 'The given data was invalid.', { status: [`The status must be one of: ${ORDER_STATES.join(', ')}.`] });
	}
	const all = [...ctx.data.orders.values()].filter((o) => !status || o.status === status);
	return ok(pageOf(all, paging.page, paging.limit));
}

function listTemplates(ctx: ApiContext, req: ApiRequest): Answer {
	const paging = parsePaging(req.query);
	if (!paging.ok) return paging.answer;
	const term = (req.query.get('searchTerm') ?? '').toLowerCase();
	const matches = term ? ctx.data.templates.filter((t) => t.name.toLowerCase().includes(term)) : ctx.data.templates;
	const page = pageOf(matches, paging.page, paging.limit);
	const data = page.data.map(({ id, name, language, status, category, components }) => ({ id, name, language, status, category, components }));
	return ok({ data, meta: page.meta });
}

function getTemplate(ctx: ApiContext, idText: string): Answer {
	if (!isInt(idText)) return fail(400, 'Template id must be an integer.');
	const id = Number(idText);
	// Templates are seeded with ids 1..n in order.
	const t = ctx.data.templates[id - 1];
	if (!t || t.id !== id) return fail(404, 'Template not found.');
	return ok({ data: t });
}

function listContacts(ctx: ApiContext, req: ApiRequest): Answer {
	const paging = parsePaging(req.query);
	if (!paging.ok) return paging.answer;
	return ok(pageOf(ctx.data.contacts, paging.page, paging.limit));
}

function sendText(ctx: ApiContext, req: ApiRequest): Answer {
	const parsed = jsonObject(req);
	if (!parsed.ok) return parsed.answer;
	const sender = senderId(req);
	if (typeof sender !== 'string') return sender;
	const { phone, body } = parsed.value;
	const errors: Record<string, string[]> = {};
	if (typeof phone !== 'string' || !PHONE_PATTERN.test(phone)) errors.phone = ['The phone must be a phone number in international format, e.g. +15551234567.'];
	if (typeof body !== 'string' || body.trim() === '') errors.body = ['The body field is required.'];
	if (Object.keys(errors).length) return fail(422, 'The given data was invalid.', errors);
	const message_id = ctx.nextMessageId();
	ctx.accept({ message_id, kind: 'text', phone_number_id: sender, phone: phone as string, type: 'text', body: body as string, created_at: new Date(ctx.now()).toISOString(), statuses: [] });
	return ok({ message: 'Message sent', data: { message_id, phone, type: 'text', status: 'sent' } });
}

function sendMedia(ctx: ApiContext, req: ApiRequest): Answer {
	if (!req.isMultipart) return fail(400, 'The request body must be multipart/form-data.');
	if (!req.multipart) return fail(400, 'The multipart body could not be parsed.');
	const sender = senderId(req);
	if (typeof sender !== 'string') return sender;
	const { fields, files } = req.multipart;
	const file = files.find((f) => f.field === 'media');
	const errors: Record<string, string[]> = {};
	if (!fields.phone || !PHONE_PATTERN.test(fields.phone)) errors.phone = ['The phone must be a phone number in international format, e.g. +15551234567.'];
	if (!(MEDIA_TYPES as readonly string[]).includes(fields.type)) errors.type = [`The type must be one of: ${MEDIA_TYPES.join(', ')}.`];
	if (!file || !file.filename) errors.media = ['The media field must be a file part with a file name.'];
	if (Object.keys(errors).length) return fail(422, 'The given data was invalid.', errors);
	const message_id = ctx.nextMessageId();
	const f = file!;
	ctx.accept({
		message_id,
		kind: 'media',
		phone_number_id: sender,
		phone: fields.phone,
		type: fields.type,
		caption: fields.caption,
		file: f,
		created_at: new Date(ctx.now()).toISOString(),
		statuses: [],
	});
	return ok({
		message: 'Media message sent',
		data: { message_id, phone: fields.phone, type: fields.type, status: 'sent', file_name: f.filename, mime_type: f.contentType, size: f.size },
	});
}

function testWebhook(ctx: ApiContext): Answer {
	const url = ctx.webhookUrl();
	if (!url) return fail(422, 'No webhook URL is configured.');
	// The spec does not show the test event's payload: the sandbox marks it `data.test: true`, the mark
	// the trigger recognises (README, Assumptions).
	const isoNow = new Date(ctx.now()).toISOString();
	const d = ctx.deliver({ event: 'message.received', url, data: { ...sampleEventData('message.received', isoNow), test: true }, occurredAt: isoNow });
	// The delivery runs on; the answer does not wait for the receiver.
	d.done.catch(() => undefined);
	return ok({ message: 'Test webhook event sent', data: { delivery_id: d.id, event: d.event, url } });
}

export function route(ctx: ApiContext, req: ApiRequest): Answer {
	const { method, path } = req;
	let m: RegExpExecArray | null;
	if (method === 'PUT' && (m = /^\/orders\/([^/]+)\/?$/.exec(path))) return updateOrder(ctx, req, decode(m[1]));
	if (method === 'GET' && /^\/orders\/?$/.test(path)) return listOrders(ctx, req);
	if (method === 'GET' && /^\/templates\/?$/.test(path)) return listTemplates(ctx, req);
	if (method === 'GET' && (m = /^\/templates\/([^/]+)\/?$/.exec(path))) return getTemplate(ctx, decode(m[1]));
	if (method === 'GET' && /^\/contacts\/?$/.test(path)) return listContacts(ctx, req);
	if (method === 'POST' && path === '/w/message/text') return sendText(ctx, req);
	if (method === 'POST' && path === '/w/message/media') return sendMedia(ctx, req);
	if (method === 'POST' && path === '/webhooks/test') return testWebhook(ctx);
	return fail(404, `No route for ${method} ${path}.`);
}
