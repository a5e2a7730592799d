/** Small helpers shared by the API and control routes. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Hard cap on a request body; well above the 50 MB media the sandbox must accept. */
export const MAX_BODY_BYTES = 120 * 1024 * 1024;

export class BodyTooLarge extends Error {}

export function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (c: Buffer) => {
			size += c.length;
			if (size > MAX_BODY_BYTES) {
				reject(new BodyTooLarge());
				req.destroy();
				return;
			}
			chunks.push(c);
		});
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

export interface Answer {
	status: number;
	body: unknown;
	headers?: Record<string, string>;
}

export const ok = (body: Record<string, unknown>, status = 200): Answer => ({ status, body: { status: true, ...body } });

export function fail(status: number, message: string, errors?: Record<string, string[]>): Answer {
	return { status, body: errors ? { status: false, message, errors } : { status: false, message } };
}

export function send(res: ServerResponse, status: number, body: string | Buffer, contentType: string, headers: Record<string, string> = {}): void {
	if (res.destroyed || res.headersSent) return;
	res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers });
	res.end(body);
}

export function sendJson(res: ServerResponse, a: Answer): void {
	send(res, a.status, JSON.stringify(a.body), 'application/json; charset=utf-8', a.headers);
}

export type Paging = { ok: true; page: number; limit: number } | { ok: false; answer: Answer };

/** page >= 1 and 1 <= limit <= 100, both whole numbers; defaults 1 and 100 (the spec's template defaults). */
export function parsePaging(q: URLSearchParams): Paging {
	const errors: Record<string, string[]> = {};
	const read = (name: string, def: number, min: number, max: number) => {
		const raw = q.get(name);
		if (raw === null) return def;
		if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
			errors[name] = [max === Infinity ? `The ${name} must be an integer of at least ${min}.` : `The ${name} must be an integer between ${min} and ${max}.`];
			return def;
		}
		return Number(raw);
	};
	const page = read('page', 1, 1, Infinity);
	const limit = read('limit', 100, 1, 100);
	if (Object.keys(errors).length) return { ok: false, answer: fail(400, 'Invalid paging parameters.', errors) };
	return { ok: true, page, limit };
}

export function pageOf<T>(items: T[], page: number, limit: number) {
	const total = items.length;
	return {
		data: items.slice((page - 1) * limit, page * limit),
		meta: { current_page: page, per_page: limit, total, last_page: Math.max(1, Math.ceil(total / limit)) },
	};
}
