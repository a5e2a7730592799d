import { createHash } from 'node:crypto';
import { request } from 'undici';
import { SANDBOX_CREDENTIALS, startSandbox, type Sandbox } from '../../tools/sandbox/index';
import { call, multipart, startReceiver, startSandboxCli, waitFor, webhookSignatureValid, type Receiver } from './test-helpers';

async function control(base: string, method: string, path: string, body?: unknown) {
	const res = await request(`${base}/_sandbox${path}`, {
		method: method as 'GET',
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: res.statusCode, json: (await res.body.json()) as any };
}

describe('control API', () => {
	let sb: Sandbox;
	let rx: Receiver;
	beforeAll(async () => {
		sb = await startSandbox();
		rx = await startReceiver([(w) => ({ status: 200, body: JSON.stringify({ challenge: JSON.parse(w.body.toString()).challenge }) })]);
	});
	afterAll(async () => {
		await rx.close();
		await sb.stop();
	});
	beforeEach(() => sb.reset());

	test('requests: every API request with its body as base64 and sha256; since and bytes=0', async () => {
		const file = Buffer.from([0, 1, 2, 254, 255, 13, 10]);
		const form = multipart([{ name: 'phone', value: '+15551234567' }, { name: 'type', value: 'image' }, { name: 'media', value: file, filename: 'p.png', contentType: 'image/png' }]);
		await call(sb.url, { path: '/templates', query: 'limit=2' });
		await call(sb.url, { method: 'POST', path: '/w/message/media', query: 'phone_number_id=100200300', body: form.body, contentType: form.contentType });
		const r = await control(sb.url, 'GET', '/requests');
		expect(r.status).toBe(200);
		expect(r.json.data).toHaveLength(2);
		const [get, media] = r.json.data;
		expect(get).toMatchObject({ seq: expect.any(Number), method: 'GET', path: '/templates', rawQuery: 'limit=2', query: { limit: '2' }, status: 200, authOk: true, body: '', bodySize: 0 });
		expect(Buffer.from(media.body, 'base64').equals(form.body)).toBe(true);
		expect(media.bodySha256).toBe(createHash('sha256').update(form.body).digest('hex'));
		expect(media.multipart.files[0]).toMatchObject({ filename: 'p.png', contentType: 'image/png', size: 7, sha256: createHash('sha256').update(file).digest('hex') });
		expect(Buffer.from(media.multipart.files[0].bytes, 'base64').equals(file)).toBe(true);
		const later = await control(sb.url, 'GET', `/requests?since=${get.seq}&bytes=0`);
		expect(later.json.data).toHaveLength(1);
		expect(later.json.data[0].body).toBeUndefined();
		expect(later.json.data[0].multipart.files[0].bytes).toBeUndefined();
		// Control calls are not recorded as API requests.
		expect(sb.requests).toHaveLength(2);
	});

	test('messages and orders', async () => {
		await call(sb.url, { method: 'POST', path: '/w/message/text', query: 'phone_number_id=100200300', json: { phone: '+15551234567', body: 'hi' } });
		await call(sb.url, { method: 'PUT', path: '/orders/1', query: 'phone_number_id=100200300', json: { status: 'accepted', admin_notes: 'ok' } });
		expect((await control(sb.url, 'GET', '/messages')).json.data).toEqual([expect.objectContaining({ message_id: 'wamid.1', body: 'hi', kind: 'text' })]);
		expect((await control(sb.url, 'GET', '/orders/1')).json.data).toMatchObject({ id: 1, status: 'accepted', admin_notes: 'ok' });
		expect((await control(sb.url, 'GET', '/orders/999')).status).toBe(404);
	});

	test('faults: inject and clear', async () => {
		expect((await control(sb.url, 'POST', '/faults', { status: 429, retryAfter: 3, count: 2, path: '/templates' })).status).toBe(200);
		const r = await call(sb.url, { path: '/templates' });
		expect([r.status, r.headers['retry-after']]).toEqual([429, '3']);
		expect((await control(sb.url, 'DELETE', '/faults')).status).toBe(200);
		expect((await call(sb.url, { path: '/templates' })).status).toBe(200);
		expect((await control(sb.url, 'POST', '/faults', { status: 'x' })).status).toBe(400);
	});

	test('reset reseeds', async () => {
		await call(sb.url, { method: 'PUT', path: '/orders/1', query: 'phone_number_id=1', json: { status: 'accepted' } });
		expect((await control(sb.url, 'POST', '/reset')).status).toBe(200);
		expect(sb.getOrder(1)!.status).toBe('pending');
		expect(sb.requests).toHaveLength(0);
	});

	test('webhook URL, verify, deliver and deliveries', async () => {
		expect((await control(sb.url, 'POST', '/deliver', { event: 'order.created', url: undefined })).status).toBe(422);
		expect((await control(sb.url, 'POST', '/webhook-url', { url: rx.url })).json.data).toEqual({ url: rx.url });
		const v = await control(sb.url, 'POST', '/verify', {});
		expect(v.json.data).toMatchObject({ ok: true, status: 200 });
		const d = await control(sb.url, 'POST', '/deliver', { event: 'order.status.updated', data: { order_id: 3, old_status: 'accepted', new_status: 'shipped' } });
		expect(d.status).toBe(200);
		const id = d.json.id;
		expect(id).toEqual(expect.any(String));
		await waitFor(() => sb.deliveries.find((x) => x.id === id)?.state === 'delivered');
		const one = await control(sb.url, 'GET', `/deliveries/${id}`);
		expect(one.json.data).toMatchObject({ id, event: 'order.status.updated', url: rx.url, state: 'delivered', attempts: [expect.objectContaining({ attempt: 1, status: 200 })] });
		expect(JSON.parse(one.json.data.body).data).toEqual({ order_id: 3, old_status: 'accepted', new_status: 'shipped' });
		expect((await control(sb.url, 'GET', '/deliveries')).json.data.map((x: { id: string }) => x.id)).toContain(id);
		expect((await control(sb.url, 'GET', '/deliveries/nope')).status).toBe(404);
		expect(rx.received.every((w) => webhookSignatureValid(w))).toBe(true);
		expect((await control(sb.url, 'POST', '/webhook-url', { url: null })).json.data).toEqual({ url: null });
	});

	test('unknown control routes are JSON 404s; bad JSON is 400', async () => {
		expect((await control(sb.url, 'GET', '/nope')).status).toBe(404);
		const res = await request(`${sb.url}/_sandbox/faults`, { method: 'POST', body: '{' });
		expect(res.statusCode).toBe(400);
		await res.body.dump();
	});
});

describe('CLI', () => {
	test('prints the listening line first, serves, and stops cleanly on SIGTERM', async () => {
		const { child, out, exited } = startSandboxCli(['--port', '0', '--templates', '7', '--time-scale', '1000']);
		try {
			await waitFor(() => out.text.includes('Control API'), 20_000);
			const first = out.text.split('\n')[0];
			expect(first).toMatch(/^sandbox listening on http:\/\/127\.0\.0\.1:\d+$/);
			const base = first.slice('sandbox listening on '.length);
			expect(out.text).toContain(`Client ID:       ${SANDBOX_CREDENTIALS.clientId}`);
			const r = await call(base, { path: '/templates', query: 'searchTerm=0007' });
			expect(r.json.meta.total).toBe(1);
			await waitFor(() => out.text.includes('GET /templates?searchTerm=0007 -> 200'));
			// Request log lines never carry a secret.
			const logLines = out.text.split('\n').filter((l) => l.startsWith('[sandbox]')).join('\n');
			expect(logLines).not.toContain(SANDBOX_CREDENTIALS.clientSecret);
			expect(logLines).not.toContain(SANDBOX_CREDENTIALS.webhookSecret);
		} finally {
			child.kill('SIGTERM');
		}
		expect(await exited).toBe(0);
		expect(out.err).not.toContain('SENTINEL');
	});

	test('rejects an unknown option', async () => {
		const { out, exited } = startSandboxCli(['--bogus', '1']);
		expect(await exited).toBe(1);
		expect(out.err).toMatch(/Unknown option --bogus/);
	});
});

