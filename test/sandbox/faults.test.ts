import { startSandbox, type Sandbox } from '../../tools/sandbox/index';
import { call, startReceiver, waitFor, webhookSignatureValid } from './test-helpers';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox();
});
afterAll(() => sb.stop());
beforeEach(() => sb.reset());

const templates = () => call(sb.url, { path: '/templates', query: 'limit=1' });

describe('fault injection', () => {
	test('429 with Retry-After, then normal service', async () => {
		sb.injectFault({ status: 429, retryAfter: 2 });
		const r = await templates();
		expect(r.status).toBe(429);
		expect(r.headers['retry-after']).toBe('2');
		expect(r.json).toEqual({ status: false, message: expect.any(String) });
		expect((await templates()).status).toBe(200);
		expect(sb.requests.map((x) => x.status)).toEqual([429, 200]);
	});

	test.each([500, 503])('%i without Retry-After', async (status) => {
		sb.injectFault({ status });
		const r = await templates();
		expect(r.status).toBe(status);
		expect(r.headers['retry-after']).toBeUndefined();
		expect(r.json.status).toBe(false);
	});

	test('count applies the fault to that many requests', async () => {
		sb.injectFault({ status: 503, count: 3 });
		const statuses = [];
		for (let i = 0; i < 4; i++) statuses.push((await templates()).status);
		expect(statuses).toEqual([503, 503, 503, 200]);
	});

	test('method and path prefix narrow the fault', async () => {
		sb.injectFault({ status: 500, method: 'put', path: '/orders' });
		expect((await templates()).status).toBe(200);
		expect((await call(sb.url, { path: '/orders' })).status).toBe(200);
		const put = await call(sb.url, { method: 'PUT', path: '/orders/1', query: 'phone_number_id=1', json: { status: 'accepted' } });
		expect(put.status).toBe(500);
		expect(sb.getOrder(1)!.status).toBe('pending');
	});

	test('phone narrows the fault to one recipient’s sends', async () => {
		sb.injectFault({ status: 503, path: '/w/message/text', phone: '+15550000002' });
		const send = (phone: string) => call(sb.url, { method: 'POST', path: '/w/message/text', query: 'phone_number_id=1', json: { phone, body: 'Hi' } });
		expect((await send('+15550000001')).status).toBe(200);
		expect((await send('+15550000002')).status).toBe(503);
		expect((await send('+15550000002')).status).toBe(200);
		expect(sb.messages.map((m) => m.phone)).toEqual(['+15550000001', '+15550000002']);
	});

	test('a delay then normal handling', async () => {
		sb.injectFault({ delayMs: 600 });
		sb.injectFault({ status: 503 });
		const t0 = Date.now();
		const r = await templates();
		expect(Date.now() - t0).toBeGreaterThanOrEqual(590);
		expect(r.status).toBe(200);
		// Used up: the next request meets the fault added after it (faults apply in the order they were added).
		expect((await templates()).status).toBe(503);
	});

	test('a delay before a fault status', async () => {
		sb.injectFault({ delayMs: 200, status: 504 });
		const t0 = Date.now();
		expect((await templates()).status).toBe(504);
		expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
	});

	test('destroy hangs up without an answer', async () => {
		sb.injectFault({ destroy: true });
		await expect(templates()).rejects.toThrow();
		expect(sb.requests[0].status).toBeNull();
		expect((await templates()).status).toBe(200);
	});

	test('a 200 whose body is not JSON', async () => {
		sb.injectFault({ status: 200, body: '<html>maintenance</html>', contentType: 'text/html' });
		const r = await templates();
		expect(r.status).toBe(200);
		expect(r.text).toBe('<html>maintenance</html>');
		expect(r.headers['content-type']).toBe('text/html');
		expect(r.json).toBeUndefined();
	});

	test('a body that claims to be JSON but is not', async () => {
		sb.injectFault({ status: 200, body: '{"status":tru', contentType: 'application/json' });
		const r = await templates();
		expect(r.text).toBe('{"status":tru');
		expect(r.headers['content-type']).toBe('application/json');
	});

	test('faults apply in order and clearFaults removes them', async () => {
		sb.injectFault({ status: 500 });
		sb.injectFault({ status: 429, retryAfter: 1 });
		expect((await templates()).status).toBe(500);
		expect((await templates()).status).toBe(429);
		sb.injectFault({ status: 500, count: 5 });
		sb.clearFaults();
		expect((await templates()).status).toBe(200);
	});

	test('reset clears faults too', async () => {
		sb.injectFault({ status: 500 });
		sb.reset();
		expect((await templates()).status).toBe(200);
	});

	test('a faulted request is still recorded with its auth result', async () => {
		sb.injectFault({ status: 503 });
		await call(sb.url, { path: '/templates', secret: 'wrong' });
		expect(sb.requests[0]).toMatchObject({ status: 503, authOk: false });
	});

	test('invalid fault specs are refused', () => {
		expect(() => sb.injectFault({ status: 42 })).toThrow();
		expect(() => sb.injectFault({ status: 500, count: 0 })).toThrow();
	});
});

describe('POST /webhooks/test', () => {
	test('without a webhook URL -> 422', async () => {
		sb.setWebhookUrl(undefined);
		const r = await call(sb.url, { method: 'POST', path: '/webhooks/test' });
		expect(r.status).toBe(422);
		expect(r.json).toEqual({ status: false, message: 'No webhook URL is configured.' });
	});

	test('answers at once and delivers a signed message.received event', async () => {
		// The receiver is slow: the API answer must not wait for it.
		const rx = await startReceiver([{ status: 200, delayMs: 400 }]);
		try {
			sb.setWebhookUrl(rx.url);
			const r = await call(sb.url, { method: 'POST', path: '/webhooks/test', json: {} });
			expect(r.status).toBe(200);
			expect(r.json).toEqual({ status: true, message: 'Test webhook event sent', data: { delivery_id: expect.any(String), event: 'message.received', url: rx.url } });
			const d = sb.deliveries.find((x) => x.id === r.json.data.delivery_id)!;
			expect(d.state).not.toBe('delivered'); // answered while the receiver still held the delivery
			await d.done;
			expect(d.state).toBe('delivered');
			expect(rx.received).toHaveLength(1);
			expect(webhookSignatureValid(rx.received[0])).toBe(true);
			const body = JSON.parse(rx.received[0].body.toString());
			expect(body).toEqual({ event: 'message.received', timestamp: expect.stringMatching(/Z$/), data: expect.objectContaining({ message_id: expect.any(String), from: expect.any(String), body: expect.any(String) }) });
		} finally {
			await rx.close();
		}
	});

	test('an empty body is signed over the (empty) query string', async () => {
		const rx = await startReceiver([200]);
		try {
			sb.setWebhookUrl(rx.url);
			const r = await call(sb.url, { method: 'POST', path: '/webhooks/test' });
			expect(r.status).toBe(200);
			await waitFor(() => rx.received.length === 1);
		} finally {
			await rx.close();
		}
	});
});
