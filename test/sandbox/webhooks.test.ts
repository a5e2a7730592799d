import { createServer } from 'node:net';
import {
	DEFAULT_RETRY_DELAYS_MS,
	EVENT_TYPES,
	ManualClock,
	SANDBOX_CREDENTIALS,
	WEBHOOK_MAX_ATTEMPTS,
	startSandbox,
	type Delivery,
	type Sandbox,
} from '../../tools/sandbox/index';
import { startReceiver, useManualSandboxes, waitFor, webhookSignatureValid, type Receiver, type Reply } from './test-helpers';
import { deliveryJson } from '../../tools/sandbox/webhooks';
import { awaitsLongRetry, type Delivery as SandboxProcessDelivery } from '../../tools/n8n/sandbox';

const MIN = 60_000;
const OFFSETS = [0, 1 * MIN, 6 * MIN, 21 * MIN, 81 * MIN, 441 * MIN];

const { receivers, sandboxes, setup } = useManualSandboxes();

/** Drive a manual clock until the delivery settles: wait for each attempt, then jump to the next planned one. */
async function settle(d: Delivery, clock: ManualClock): Promise<number[]> {
	const jumps: number[] = [];
	let settled = false;
	d.done.then(() => (settled = true));
	while (!settled) {
		const next = await Promise.race([clock.nextSleep(), d.done.then(() => null)]);
		if (next === null) break;
		clock.advance(next);
		jumps.push(next);
	}
	return jumps;
}

function expectSameSignedBytes(rx: Receiver, d: Delivery) {
	for (const w of rx.received) {
		expect(w.body.toString('utf8')).toBe(d.body);
		expect(w.headers['content-type']).toBe('application/json');
		expect(webhookSignatureValid(w)).toBe(true);
	}
}

describe('webhook delivery schedule', () => {
	test('delivered on the first attempt', async () => {
		const { rx, sb } = await setup([200]);
		const d = sb.deliver({ event: 'order.created', data: { order_id: 7, total: 12.5 } });
		expect(d.state).toBe('pending');
		await d.done;
		expect(d.state).toBe('delivered');
		expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, scheduledAtMs: 0, status: 200 })]);
		expect(rx.received).toHaveLength(1);
		const body = JSON.parse(rx.received[0].body.toString());
		expect(body).toEqual({ event: 'order.created', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/), data: { order_id: 7, total: 12.5 } });
		expectSameSignedBytes(rx, d);
		expect(sb.deliveries).toEqual([d]);
	});

	test('fails four times, then 200 on the fifth attempt', async () => {
		const { rx, sb, clock } = await setup([500, 503, 502, 429, 200]);
		const d = sb.deliver({ event: 'message.received' });
		const jumps = await settle(d, clock);
		expect(d.state).toBe('delivered');
		expect(d.attempts.map((a) => a.status)).toEqual([500, 503, 502, 429, 200]);
		expect(d.attempts.map((a) => a.scheduledAtMs)).toEqual(OFFSETS.slice(0, 5));
		expect(jumps).toEqual(DEFAULT_RETRY_DELAYS_MS.slice(0, 4));
		expect(rx.received).toHaveLength(5);
		expectSameSignedBytes(rx, d);
	});

	test('always 500: failed after exactly six attempts at 0, 1, 6, 21, 81 and 441 minutes', async () => {
		const { rx, sb, clock } = await setup([500]);
		const d = sb.deliver({ event: 'order.status.updated' });
		await settle(d, clock);
		expect(WEBHOOK_MAX_ATTEMPTS).toBe(6);
		expect(d.state).toBe('failed');
		expect(d.attempts).toHaveLength(6);
		expect(d.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
		expect(d.attempts.map((a) => a.scheduledAtMs)).toEqual(OFFSETS);
		expect(clock.now()).toBe(441 * MIN);
		expect(rx.received).toHaveLength(6);
		expect(clock.pending).toBe(0);
		expectSameSignedBytes(rx, d);
	});

	test('no retry happens before its time on the scheduling clock', async () => {
		const { rx, sb, clock } = await setup([500, 200]);
		const d = sb.deliver({ event: 'contact.created' });
		expect(await clock.nextSleep()).toBe(MIN);
		clock.advance(MIN - 1);
		await new Promise((r) => setTimeout(r, 100));
		expect(rx.received).toHaveLength(1);
		clock.advance(1);
		await d.done;
		expect(rx.received).toHaveLength(2);
		expect(d.state).toBe('delivered');
	});

	test('while it waits to retry, a delivery says the schedule’s delay before its next attempt; the suites send one again at once from an hour on', async () => {
		const { sb, clock } = await setup([500, 500, 500, 500, 200]);
		const d = sb.deliver({ event: 'message.received' });
		const waits: Array<[number | undefined, boolean]> = [];
		for (let i = 0; i < 4; i++) {
			const next = await clock.nextSleep();
			// As the control API lists it (GET /deliveries/:id).
			const listed = JSON.parse(JSON.stringify(deliveryJson(d))) as SandboxProcessDelivery;
			waits.push([listed.nextAttemptDelayMs, awaitsLongRetry(listed)]);
			clock.advance(next);
		}
		await d.done;
		expect(waits).toEqual([
			[MIN, false],
			[5 * MIN, false],
			[15 * MIN, false],
			[60 * MIN, true],
		]);
		expect([d.state, d.nextAttemptDelayMs, awaitsLongRetry(d as SandboxProcessDelivery)]).toEqual(['delivered', undefined, false]);
	});

	test.each([400, 401])('%i stops retries (rejected)', async (status) => {
		const { rx, sb, clock } = await setup([status, 200]);
		const d = sb.deliver({ event: 'conversation.created' });
		await d.done;
		expect(d.state).toBe('rejected');
		expect(d.attempts).toHaveLength(1);
		expect(d.attempts[0].status).toBe(status);
		await new Promise((r) => setTimeout(r, 50));
		expect(clock.pending).toBe(0);
		expect(rx.received).toHaveLength(1);
	});

	test.each([404, 408, 422, 503])('other answer %i is retried', async (status) => {
		const { rx, sb, clock } = await setup([status, 200]);
		const d = sb.deliver({ event: 'conversation.updated' });
		await settle(d, clock);
		expect(d.state).toBe('delivered');
		expect(d.attempts.map((a) => a.status)).toEqual([status, 200]);
		expect(rx.received).toHaveLength(2);
	});

	test('a network error (connection dropped) is retried', async () => {
		const { rx, sb, clock } = await setup(['destroy', 200]);
		const d = sb.deliver({ event: 'message.status.updated' });
		await settle(d, clock);
		expect(d.state).toBe('delivered');
		expect(d.attempts[0]).toMatchObject({ status: null, error: expect.any(String) });
		expect(d.attempts[1].status).toBe(200);
		expectSameSignedBytes(rx, d);
	});

	test('a refused connection is retried until a receiver appears', async () => {
		const port = await freePort();
		const clock = new ManualClock();
		const sb = await startSandbox({ clock });
		sandboxes.push(sb);
		const d = sb.deliver({ event: 'order.created', url: `http://127.0.0.1:${port}/hook` });
		await clock.nextSleep();
		expect(d.attempts[0]).toMatchObject({ status: null, error: expect.stringMatching(/ECONNREFUSED/) });
		receivers.push(await startReceiver([200], port));
		await settle(d, clock);
		expect(d.state).toBe('delivered');
		expect(d.attempts).toHaveLength(2);
	});

	test('a receiver slower than deliveryTimeoutMs counts as a failure and is retried', async () => {
		const { sb, clock } = await setup([{ status: 200, delayMs: 1000 }, 200], { deliveryTimeoutMs: 150 });
		const d = sb.deliver({ event: 'order.created' });
		await settle(d, clock);
		expect(d.attempts[0]).toMatchObject({ status: null, error: expect.stringMatching(/timeout/i) });
		expect(d.state).toBe('delivered');
	});

	test('every attempt is re-signed with the wall time of that attempt', async () => {
		let wall = Date.UTC(2026, 2, 10, 12, 0, 0);
		const { rx, sb, clock } = await setup([500, 500, 200], { now: () => wall });
		const d = sb.deliver({ event: 'order.created' });
		while (d.state === 'pending') {
			const next = await Promise.race([clock.nextSleep(), d.done.then(() => null)]);
			if (next === null) break;
			wall += next;
			clock.advance(next);
		}
		await d.done;
		const stamps = rx.received.map((w) => Number(w.headers['x-service-webhook-timestamp']));
		const t0 = Date.UTC(2026, 2, 10, 12, 0, 0) / 1000;
		expect(stamps).toEqual([t0, t0 + 60, t0 + 360]);
		expect(d.attempts.map((a) => a.timestamp)).toEqual(stamps.map(String));
		expect(new Set(rx.received.map((w) => w.headers['x-service-webhook-signature'])).size).toBe(3);
		expectSameSignedBytes(rx, d);
	});

	test('a scaled clock squeezes the whole plan into well under a second', async () => {
		const rx = await startReceiver([500]);
		receivers.push(rx);
		// 441 virtual minutes / 100 000 = 265 ms of real waiting.
		const sb = await startSandbox({ timeScale: 100_000, webhookUrl: rx.url });
		sandboxes.push(sb);
		const t0 = Date.now();
		const d = await sb.deliver({ event: 'order.created' }).done;
		const took = Date.now() - t0;
		expect(d.state).toBe('failed');
		expect(d.attempts.map((a) => a.scheduledAtMs)).toEqual(OFFSETS);
		expect(took).toBeGreaterThanOrEqual(200);
		expect(took).toBeLessThan(5000);
		// Signatures stay valid against a real receiver's 300 s window: they carry real Unix time.
		for (const w of rx.received) expect(Math.abs(Number(w.headers['x-service-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
	});

	test('a delivery asked for with realTimeRetries keeps the real plan on a scaled sandbox (its retry a minute later)', async () => {
		const rx = await startReceiver([500, 200]);
		receivers.push(rx);
		const sb = await startSandbox({ timeScale: 100_000, webhookUrl: rx.url });
		sandboxes.push(sb);
		const res = await fetch(`${sb.url}/_sandbox/deliver`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'order.created', realTimeRetries: true }) });
		const { id } = (await res.json()) as { id: string };
		const d = sb.deliveries.find((x) => x.id === id)!;
		await waitFor(() => d.attempts[0]?.status === 500);
		await new Promise((resolve) => setTimeout(resolve, 1000));
		// On the scaled clock alone the whole plan would have ended by now (the test above).
		expect([d.state, d.attempts.length]).toEqual(['pending', 1]);
		sb.reset();
	});

	test('custom retryDelaysMs set both the delays and the number of retries', async () => {
		const { sb, clock } = await setup([500], { retryDelaysMs: [10, 20] });
		const d = sb.deliver({ event: 'order.created' });
		await settle(d, clock);
		expect(d.state).toBe('failed');
		expect(d.attempts.map((a) => a.scheduledAtMs)).toEqual([0, 10, 30]);
	});

	test('reset forgets deliveries and stops pending retries', async () => {
		const { rx, sb, clock } = await setup([500]);
		const d = sb.deliver({ event: 'order.created' });
		await clock.nextSleep();
		sb.reset();
		await d.done;
		expect(sb.deliveries).toHaveLength(0);
		expect(clock.pending).toBe(0);
		expect(rx.received).toHaveLength(1);
	});
});

describe('event bodies and signing options', () => {
	test('default data for each of the eight event types carries the spec fields', async () => {
		const { rx, sb } = await setup([200]);
		const fields: Record<string, string[]> = {
			'message.received': ['message_id', 'conversation_id', 'from', 'to', 'type', 'body', 'timestamp'],
			'message.status.updated': ['message_id', 'status', 'timestamp'],
			'conversation.created': ['conversation_id', 'contact_id', 'phone_number', 'created_at'],
			'conversation.updated': ['conversation_id', 'status', 'updated_at'],
			'order.created': ['order_id', 'conversation_id', 'status', 'total', 'currency', 'created_at'],
			'order.status.updated': ['order_id', 'old_status', 'new_status', 'updated_at'],
			'contact.created': ['contact_id', 'name', 'phone_number', 'created_at'],
			'contact.updated': ['contact_id', 'name', 'phone_number', 'updated_at'],
		};
		expect([...EVENT_TYPES].sort()).toEqual(Object.keys(fields).sort());
		for (const event of EVENT_TYPES) await sb.deliver({ event }).done;
		expect(rx.received).toHaveLength(8);
		rx.received.forEach((w, i) => {
			const body = JSON.parse(w.body.toString());
			expect(body.event).toBe(EVENT_TYPES[i]);
			for (const f of fields[body.event]) expect(body.data).toHaveProperty(f);
		});
	});

	test('signWith signs with another secret: a checking receiver sees a bad signature', async () => {
		const { rx, sb } = await setup([(w) => ({ status: webhookSignatureValid(w) ? 200 : 401 })]);
		const d = await sb.deliver({ event: 'order.created', signWith: 'wrong-secret' }).done;
		expect(d.state).toBe('rejected');
		expect(webhookSignatureValid(rx.received[0])).toBe(false);
		expect(webhookSignatureValid(rx.received[0], 'wrong-secret')).toBe(true);
	});

	test('timestamp overrides the signed Unix time (for stale-signature tests)', async () => {
		const { rx, sb } = await setup([200]);
		const stale = Math.floor(Date.now() / 1000) - 301;
		await sb.deliver({ event: 'order.created', timestamp: stale }).done;
		expect(rx.received[0].headers['x-service-webhook-timestamp']).toBe(String(stale));
		expect(webhookSignatureValid(rx.received[0])).toBe(true);
	});

	test('body sends raw text as is', async () => {
		const { rx, sb } = await setup([400]);
		const d = await sb.deliver({ event: 'x', body: '{"event":' }).done;
		expect(rx.received[0].body.toString()).toBe('{"event":');
		expect(webhookSignatureValid(rx.received[0])).toBe(true);
		expect(d.state).toBe('rejected');
	});

	test('the webhook secret option is used for signing and never appears in a delivery record', async () => {
		const { rx, sb } = await setup([200], { webhookSecret: 'other-webhook-secret' });
		const d = await sb.deliver({ event: 'order.created' }).done;
		expect(webhookSignatureValid(rx.received[0], 'other-webhook-secret')).toBe(true);
		expect(JSON.stringify({ ...d, done: undefined })).not.toContain('other-webhook-secret');
		expect(JSON.stringify(sb.deliveries.map((x) => ({ ...x, done: undefined })))).not.toContain(SANDBOX_CREDENTIALS.webhookSecret);
	});

	test('deliver without any URL throws', async () => {
		const sb = await startSandbox();
		sandboxes.push(sb);
		expect(() => sb.deliver({ event: 'order.created' })).toThrow(/No webhook URL/);
	});
});

describe('verification handshake', () => {
	const echo: Reply = (w) => ({ status: 200, body: JSON.stringify({ challenge: JSON.parse(w.body.toString()).challenge }) });

	test('ok when the receiver echoes the challenge', async () => {
		const { rx, sb } = await setup([echo]);
		const v = await sb.verifyWebhook();
		expect(v.ok).toBe(true);
		expect(v.status).toBe(200);
		const sent = JSON.parse(rx.received[0].body.toString());
		expect(sent).toEqual({ type: 'verification', challenge: v.challenge });
		expect(v.challenge).toMatch(/^[0-9a-f]{32}$/);
		expect(webhookSignatureValid(rx.received[0])).toBe(true);
		// A fresh challenge each time.
		expect((await sb.verifyWebhook()).challenge).not.toBe(v.challenge);
	});

	test.each([
		['a wrong echo', { status: 200, body: '{"challenge":"nope"}' }],
		['no challenge', { status: 200, body: '{}' }],
		['a non-JSON body', { status: 200, body: 'ok' }],
		['a non-200 answer with the right echo', (w: { body: Buffer }) => ({ status: 201, body: JSON.stringify({ challenge: JSON.parse(w.body.toString()).challenge }) })],
	] as Array<[string, Reply]>)('not ok with %s', async (_name, reply) => {
		const { sb } = await setup([reply]);
		const v = await sb.verifyWebhook();
		expect(v.ok).toBe(false);
	});

	test('an explicit URL overrides the configured one; no URL at all is not ok', async () => {
		const { rx } = await setup([echo]);
		const sb = await startSandbox();
		sandboxes.push(sb);
		expect(await sb.verifyWebhook()).toMatchObject({ ok: false, status: null, error: expect.stringMatching(/No webhook URL/) });
		expect((await sb.verifyWebhook(rx.url)).ok).toBe(true);
		sb.setWebhookUrl(rx.url);
		expect(sb.webhookUrl).toBe(rx.url);
		expect((await sb.verifyWebhook()).ok).toBe(true);
	});
});

function freePort(): Promise<number> {
	return new Promise((resolve) => {
		const s = createServer();
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address() as { port: number };
			s.close(() => resolve(port));
		});
	});
}

test('waitFor helper times out', async () => {
	await expect(waitFor(() => false, 20)).rejects.toThrow(/timed out/);
});
