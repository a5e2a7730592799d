import { SANDBOX_CREDENTIALS, startSandbox, type Sandbox } from '../../tools/sandbox/index';
import { call, sign } from './test-helpers';

const SECRET = SANDBOX_CREDENTIALS.clientSecret;
// A fixed wall clock, so timestamp windows are exact.
const NOW_MS = Date.UTC(2026, 2, 10, 12, 0, 0);
const NOW_S = Math.floor(NOW_MS / 1000);

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ now: () => NOW_MS });
});
afterAll(() => sb.stop());
beforeEach(() => sb.reset());

function expect401(r: { status: number; json: any; text: string }, messagePart: RegExp) {
	expect(r.status).toBe(401);
	expect(r.json).toEqual({ status: false, message: expect.stringMatching(messagePart) });
	expect(r.text).not.toContain(SECRET);
}

describe('request signatures', () => {
	test('a good signature over the raw query string is accepted', async () => {
		const r = await call(sb.url, { path: '/templates', query: 'page=2&limit=5&searchTerm=order%20update', timestamp: NOW_S });
		expect(r.status).toBe(200);
		expect(r.json.status).toBe(true);
		expect(sb.requests[0]).toMatchObject({ method: 'GET', path: '/templates', rawQuery: 'page=2&limit=5&searchTerm=order%20update', authOk: true, status: 200 });
	});

	test('a GET without a query signs the timestamp alone', async () => {
		const r = await call(sb.url, { path: '/contacts', timestamp: NOW_S, signPayload: '' });
		expect(r.status).toBe(200);
	});

	test('a good signature over the raw JSON body is accepted', async () => {
		const body = '{"admin_notes":"  spaced  ",  "status":"pending"}';
		const r = await call(sb.url, { method: 'PUT', path: '/orders/1', query: 'phone_number_id=100200300', body, timestamp: NOW_S });
		expect(r.status).toBe(200);
	});

	test('a signature over a re-serialized body instead of the bytes sent is rejected', async () => {
		const body = '{"admin_notes":"x",  "status":"pending"}';
		const r = await call(sb.url, {
			method: 'PUT', path: '/orders/1', query: 'phone_number_id=100200300', body, timestamp: NOW_S,
			signPayload: JSON.stringify(JSON.parse(body)),
		});
		expect401(r, /Invalid signature/);
	});

	test('a GET signed over a differently encoded query is rejected', async () => {
		const r = await call(sb.url, { path: '/templates', query: 'searchTerm=order%20update', signPayload: 'searchTerm=order+update', timestamp: NOW_S });
		expect401(r, /Invalid signature/);
	});

	test('wrong secret is rejected without echoing the secret or the expected signature', async () => {
		const r = await call(sb.url, { path: '/templates', query: 'page=1', secret: 'not-the-secret', timestamp: NOW_S });
		expect401(r, /Invalid signature/);
		const expected = sign(SECRET, String(NOW_S), 'page=1');
		expect(r.text).not.toContain(expected.slice(7));
		expect(sb.requests[0]).toMatchObject({ authOk: false, status: 401 });
	});

	test('one changed body byte is rejected', async () => {
		const signed = '{"status":"accepted"}';
		const sent = '{"status":"acceptee"}';
		const r = await call(sb.url, { method: 'PUT', path: '/orders/1', query: 'phone_number_id=1', body: sent, signPayload: signed, timestamp: NOW_S });
		expect401(r, /Invalid signature/);
		expect(sb.getOrder(1)!.status).toBe('pending');
	});

	test('uppercase hex and a missing sha256= prefix are rejected', async () => {
		const good = sign(SECRET, String(NOW_S), '');
		expect401(await call(sb.url, { path: '/contacts', timestamp: NOW_S, signature: 'sha256=' + good.slice(7).toUpperCase() }), /Invalid signature/);
		expect401(await call(sb.url, { path: '/contacts', timestamp: NOW_S, signature: good.slice(7) }), /Invalid signature/);
		expect((await call(sb.url, { path: '/contacts', timestamp: NOW_S, signature: good })).status).toBe(200);
	});

	test.each([
		['stale by 301 s', NOW_S - 301, 401],
		['future by 301 s', NOW_S + 301, 401],
		['stale by exactly 300 s', NOW_S - 300, 200],
		['future by exactly 300 s', NOW_S + 300, 200],
	])('timestamp %s -> %i', async (_name, ts, status) => {
		const r = await call(sb.url, { path: '/contacts', timestamp: ts });
		expect(r.status).toBe(status);
		if (status === 401) expect401(r, /300 seconds/);
	});

	test('a timestamp in milliseconds is rejected as out of the window', async () => {
		expect401(await call(sb.url, { path: '/contacts', timestamp: NOW_MS }), /300 seconds/);
	});

	test.each(['12.5', 'abc', '-5', '1e9'])('non-integer timestamp %j is rejected', async (ts) => {
		expect401(await call(sb.url, { path: '/contacts', timestamp: ts }), /integer/);
	});

	test.each(['X-Service-Signature-256', 'X-Timestamp', 'X-Domain', 'X-Client-ID'])('missing %s is rejected', async (h) => {
		const r = await call(sb.url, { path: '/contacts', timestamp: NOW_S, omit: [h] });
		expect401(r, new RegExp(`Missing ${h}`));
	});

	test('unknown client ID and unknown domain are rejected', async () => {
		expect401(await call(sb.url, { path: '/contacts', timestamp: NOW_S, clientId: 'someone-else' }), /Unknown client ID/);
		expect401(await call(sb.url, { path: '/contacts', timestamp: NOW_S, domain: 'other.local' }), /Unknown domain/);
	});

	test('auth is checked before routing, and an unknown route signed correctly is a JSON 404', async () => {
		expect401(await call(sb.url, { path: '/nope', timestamp: NOW_S, secret: 'x' }), /Invalid signature/);
		const r = await call(sb.url, { path: '/nope', timestamp: NOW_S });
		expect(r.status).toBe(404);
		expect(r.json).toEqual({ status: false, message: expect.any(String) });
	});
});

describe('custom credentials', () => {
	test('options override client ID, secret and domain; the defaults then fail', async () => {
		const other = await startSandbox({ clientId: 'c2', clientSecret: 's2', domain: 'd2.local' });
		try {
			expect(other.credentials).toMatchObject({ baseUrl: other.url, clientId: 'c2', clientSecret: 's2', domain: 'd2.local' });
			expect((await call(other.url, { path: '/contacts', clientId: 'c2', secret: 's2', domain: 'd2.local' })).status).toBe(200);
			expect((await call(other.url, { path: '/contacts' })).status).toBe(401);
		} finally {
			await other.stop();
		}
	});

	test('only loopback may be bound', async () => {
		await expect(startSandbox({ host: '0.0.0.0' })).rejects.toThrow(/loopback/);
	});
});
