/**
 * Test helpers: a signed client that computes signatures with node:crypto directly (never with the
 * sandbox's or the package's code), a multipart builder with known bytes, and a scripted webhook receiver.
 */
import { spawn } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { ManualClock, SANDBOX_CREDENTIALS, startSandbox, type Sandbox, type SandboxOptions } from '../../tools/sandbox/index';

export interface CallOptions {
	method?: string;
	path: string;
	/** Raw query string without '?', sent and signed exactly as given. */
	query?: string;
	json?: unknown;
	/** Raw body bytes; used instead of json. */
	body?: string | Buffer;
	contentType?: string;
	/** Override what is signed after the timestamp. */
	signPayload?: string | Buffer;
	secret?: string;
	timestamp?: string | number;
	clientId?: string;
	domain?: string;
	/** Header names to leave out. */
	omit?: string[];
	/** Replace the signature header value outright. */
	signature?: string;
}

export interface CallResult {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
	json: any;
}

export function sign(secret: string, timestamp: string, payload: string | Buffer): string {
	return 'sha256=' + createHmac('sha256', secret).update(timestamp).update(payload).digest('hex');
}

export async function call(baseUrl: string, o: CallOptions): Promise<CallResult> {
	const method = o.method ?? 'GET';
	const body = o.body ?? (o.json !== undefined ? JSON.stringify(o.json) : undefined);
	const ts = String(o.timestamp ?? Math.floor(Date.now() / 1000));
	const payload = o.signPayload ?? (body !== undefined && body.length > 0 ? body : o.query ?? '');
	const headers: Record<string, string> = {
		accept: 'application/json',
		'x-service-signature-256': o.signature ?? sign(o.secret ?? SANDBOX_CREDENTIALS.clientSecret, ts, payload),
		'x-timestamp': ts,
		'x-domain': o.domain ?? SANDBOX_CREDENTIALS.domain,
		'x-client-id': o.clientId ?? SANDBOX_CREDENTIALS.clientId,
	};
	if (body !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
	for (const h of o.omit ?? []) delete headers[h.toLowerCase()];
	const url = `${baseUrl}${o.path}${o.query ? '?' + o.query : ''}`;
	const res = await request(url, { method: method as 'GET', headers, body });
	const text = await res.body.text();
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: res.statusCode, headers: res.headers, text, json };
}

/** A multipart body built by hand, so the test knows every byte that is sent. */
export function multipart(parts: Array<{ name: string; value: string | Buffer; filename?: string; contentType?: string }>) {
	const boundary = '----sandboxtest7MA4YWxkTrZu0gW';
	const chunks: Buffer[] = [];
	for (const p of parts) {
		let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
		if (p.filename !== undefined) head += `; filename="${p.filename}"`;
		head += '\r\n';
		if (p.contentType) head += `Content-Type: ${p.contentType}\r\n`;
		chunks.push(Buffer.from(head + '\r\n'), Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value), Buffer.from('\r\n'));
	}
	chunks.push(Buffer.from(`--${boundary}--\r\n`));
	return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export type Reply = number | 'destroy' | { status: number; body?: string; delayMs?: number } | ((req: ReceivedWebhook) => { status: number; body?: string });

export interface ReceivedWebhook {
	headers: IncomingHttpHeaders;
	body: Buffer;
	at: number;
}

export interface Receiver {
	url: string;
	port: number;
	received: ReceivedWebhook[];
	/** Replies in order; the last one repeats. */
	replies: Reply[];
	close(): Promise<void>;
}

export async function startReceiver(replies: Reply[] = [200], port = 0): Promise<Receiver> {
	const received: ReceivedWebhook[] = [];
	const r = { replies } as Receiver;
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', async () => {
			const rec = { headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
			received.push(rec);
			const list = r.replies;
			let reply = list[Math.min(received.length - 1, list.length - 1)];
			if (reply === 'destroy') {
				req.socket.destroy();
				return;
			}
			if (typeof reply === 'function') reply = reply(rec);
			const { status, body, delayMs } = typeof reply === 'number' ? { status: reply, body: undefined, delayMs: 0 } : { delayMs: 0, ...reply };
			if (delayMs) await new Promise((x) => setTimeout(x, delayMs));
			if (res.destroyed) return;
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(body ?? JSON.stringify({ ok: status === 200 }));
		});
	});
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
	const p = (server.address() as AddressInfo).port;
	return Object.assign(r, {
		url: `http://127.0.0.1:${p}/hook`,
		port: p,
		received,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	});
}

/**
 * Sandboxes on a ManualClock that post to a scripted receiver. Whatever a test starts (or pushes onto
 * `receivers` / `sandboxes`) is stopped after it.
 */
export function useManualSandboxes() {
	const receivers: Receiver[] = [];
	const sandboxes: Sandbox[] = [];
	afterEach(async () => {
		await Promise.all([...receivers.splice(0).map((r) => r.close()), ...sandboxes.splice(0).map((s) => s.stop())]);
	});
	async function setup(replies: Reply[], opts: SandboxOptions = {}) {
		const rx = await startReceiver(replies);
		receivers.push(rx);
		const clock = new ManualClock();
		const sb = await startSandbox({ clock, webhookUrl: rx.url, ...opts });
		sandboxes.push(sb);
		return { rx, sb, clock };
	}
	return { receivers, sandboxes, setup };
}

/** A receiver's check of the webhook signature, computed here with node:crypto. */
export function webhookSignatureValid(w: ReceivedWebhook, secret = SANDBOX_CREDENTIALS.webhookSecret): boolean {
	const ts = w.headers['x-service-webhook-timestamp'] as string;
	const sig = w.headers['x-service-webhook-signature'] as string;
	if (!ts || !sig) return false;
	const expected = createHmac('sha256', secret).update(`${ts}.`).update(w.body).digest('hex');
	return sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
}

export async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
	const end = Date.now() + timeoutMs;
	while (!cond()) {
		if (Date.now() > end) throw new Error('waitFor: timed out');
		await new Promise((r) => setTimeout(r, 5));
	}
}

/**
 * The sandbox's CLI as `npm run sandbox` starts it (`node --import tsx`): one process, so a SIGTERM reaches its
 * own handler. (Through tsx's CLI, a parent relays the signal and gives the child 30 ms to confirm it, then kills
 * it: on a busy machine the sandbox exited 143.)
 */
export function startSandboxCli(args: string[]) {
	const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../../tools/sandbox/cli.ts'), ...args], { cwd: join(__dirname, '../..'), stdio: ['ignore', 'pipe', 'pipe'] });
	const out = { text: '', err: '' };
	child.stdout.on('data', (c: Buffer) => (out.text += c.toString()));
	child.stderr.on('data', (c: Buffer) => (out.err += c.toString()));
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	return { child, out, exited };
}
