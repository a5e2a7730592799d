import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { verifySignature } from '../../credentials/webhookSignature';
import { ManualClock, SANDBOX_CREDENTIALS, startSandbox, type Sandbox } from '../../tools/sandbox/index';
import { SandboxProcess } from '../../tools/n8n/sandbox';
import { call, multipart, startReceiver, startSandboxCli, useManualSandboxes, waitFor, type ReceivedWebhook, type Receiver } from './test-helpers';

const Q = 'phone_number_id=100200300';
const CUSTOMER = '+15551234567';

const { receivers, sandboxes, setup } = useManualSandboxes();

const sendText = (sb: Sandbox, phone = CUSTOMER, body = 'Your order is on its way') =>
	call(sb.url, { method: 'POST', path: '/w/message/text', query: Q, json: { phone, body } });

async function control(sb: Sandbox, method: string, path: string, body?: unknown) {
	const res = await request(`${sb.url}/_sandbox${path}`, {
		method: method as 'GET',
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: res.statusCode, json: (await res.body.json()) as any };
}

/** What a receiver got: each event as parsed, after checking its signature with the package's own checker. */
function events(rx: Receiver) {
	return rx.received.map((w: ReceivedWebhook) => {
		const check = verifySignature(SANDBOX_CREDENTIALS.webhookSecret, w.headers['x-service-webhook-signature'], w.headers['x-service-webhook-timestamp'], w.body, Math.floor(Date.now() / 1000));
		expect(check.valid).toBe(true);
		return JSON.parse(w.body.toString('utf8')) as { event: string; timestamp: string; data: { message_id: string; status: string; timestamp: string } };
	});
}

const statusesOf = (rx: Receiver) => events(rx).map((e) => [e.event, e.data.message_id, e.data.status]);

/** Lets whatever the clock just woke run to its next wait (reporting a status is synchronous once woken). */
const settle = () => new Promise((r) => setImmediate(r));

describe('message statuses on a schedule', () => {
	test('a text message gets sent, delivered and read at the set delays, signed, in order', async () => {
		const { rx, sb, clock } = await setup([200], { statuses: { sentMs: 0, deliveredMs: 2_000, readMs: 10_000 } });
		const r = await sendText(sb);
		expect(r.json.data.message_id).toBe('wamid.1');
		await waitFor(() => rx.received.length === 1);
		expect(statusesOf(rx)).toEqual([['message.status.updated', 'wamid.1', 'sent']]);

		expect(await clock.nextSleep()).toBe(2_000);
		clock.advance(1_999);
		await settle();
		expect(sb.deliveries).toHaveLength(1);
		clock.advance(1);
		await waitFor(() => rx.received.length === 2);
		expect(events(rx)[1].data.status).toBe('delivered');

		expect(await clock.nextSleep()).toBe(8_000);
		clock.advance(8_000);
		await waitFor(() => rx.received.length === 3);
		expect(statusesOf(rx)).toEqual([
			['message.status.updated', 'wamid.1', 'sent'],
			['message.status.updated', 'wamid.1', 'delivered'],
			['message.status.updated', 'wamid.1', 'read'],
		]);
		// Nothing more is planned.
		await settle();
		expect(clock.pending).toBe(0);

		// The envelope and data carry the spec's fields, and the message records what was reported.
		const read = events(rx)[2];
		expect(read).toEqual({ event: 'message.status.updated', timestamp: read.data.timestamp, data: { message_id: 'wamid.1', status: 'read', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) } });
		const m = sb.messages[0];
		expect(m.status).toBe('read');
		expect(m.statuses).toEqual(events(rx).map((e, i) => ({ status: e.data.status, at: e.data.timestamp, delivery_id: sb.deliveries[i].id })));
	});

	test('"never read": sent and delivered, then nothing', async () => {
		const { rx, sb, clock } = await setup([200], { statuses: { sentMs: 500, deliveredMs: 500, readMs: null } });
		await sendText(sb);
		expect(sb.deliveries).toHaveLength(0);
		clock.advance(await clock.nextSleep());
		await waitFor(() => rx.received.length === 2);
		await settle();
		expect(clock.pending).toBe(0);
		expect(statusesOf(rx).map((s) => s[2])).toEqual(['sent', 'delivered']);
		expect(sb.messages[0].status).toBe('delivered');
	});

	test('off (the default of startSandbox) sends nothing and records nothing', async () => {
		const { rx, sb, clock } = await setup([200]);
		await sendText(sb);
		const form = multipart([{ name: 'phone', value: CUSTOMER }, { name: 'type', value: 'image' }, { name: 'media', value: Buffer.from([1, 2, 3]), filename: 'a.png', contentType: 'image/png' }]);
		expect((await call(sb.url, { method: 'POST', path: '/w/message/media', query: Q, body: form.body, contentType: form.contentType })).status).toBe(200);
		await settle();
		expect(clock.pending).toBe(0);
		expect(sb.deliveries).toHaveLength(0);
		expect(rx.received).toHaveLength(0);
		expect(sb.messages.map((m) => [m.status, m.statuses])).toEqual([[undefined, []], [undefined, []]]);
	});

	test('a media message gets its statuses too', async () => {
		const { rx, sb, clock } = await setup([200], { statuses: { sentMs: 0, deliveredMs: 1_000, readMs: 3_000 } });
		const form = multipart([{ name: 'phone', value: CUSTOMER }, { name: 'type', value: 'image' }, { name: 'media', value: Buffer.from([1, 2, 3]), filename: 'a.png', contentType: 'image/png' }]);
		const r = await call(sb.url, { method: 'POST', path: '/w/message/media', query: Q, body: form.body, contentType: form.contentType });
		expect(r.json.data.message_id).toBe('wamid.1');
		for (let n = 1; n <= 3; n++) {
			await waitFor(() => rx.received.length === n);
			if (n < 3) clock.advance(await clock.nextSleep());
		}
		expect(statusesOf(rx)).toEqual(['sent', 'delivered', 'read'].map((s) => ['message.status.updated', 'wamid.1', s]));
	});

	test('with no webhook URL the statuses are recorded, nothing is delivered', async () => {
		const clock = new ManualClock();
		const sb = await startSandbox({ clock, statuses: { sentMs: 0, deliveredMs: 10, readMs: 20 } });
		sandboxes.push(sb);
		await sendText(sb);
		clock.advance(await clock.nextSleep());
		clock.advance(await clock.nextSleep());
		await settle();
		expect(sb.messages[0].statuses.map((s) => [s.status, s.delivery_id])).toEqual([['sent', undefined], ['delivered', undefined], ['read', undefined]]);
		expect(sb.deliveries).toHaveLength(0);
	});

	test('a bad schedule is refused, naming the field', async () => {
		await expect(startSandbox({ statuses: { sentMs: -1, deliveredMs: 0, readMs: 0 } })).rejects.toThrow(/sentMs/);
		await expect(startSandbox({ statuses: { sentMs: 0, deliveredMs: 5, readMs: 1 } })).rejects.toThrow(/readMs/);
		await expect(startSandbox({ statuses: { sentMs: 0, deliveredMs: null, readMs: 1 } })).rejects.toThrow(/readMs/);
	});

	test('a status the receiver fails is retried like any event', async () => {
		const { rx, sb, clock } = await setup([500, 200], { statuses: { sentMs: 0, deliveredMs: null, readMs: null } });
		await sendText(sb);
		const d = sb.deliveries[0];
		expect(await clock.nextSleep()).toBe(60_000);
		clock.advance(60_000);
		await d.done;
		expect(d.attempts.map((a) => a.status)).toEqual([500, 200]);
		expect(statusesOf(rx)).toEqual([0, 1].map(() => ['message.status.updated', 'wamid.1', 'sent']));
	});

	test('reset goes back to the starting schedule and drops statuses still waiting', async () => {
		const { rx, sb, clock } = await setup([200], { statuses: { sentMs: 0, deliveredMs: 1_000, readMs: null } });
		await sendText(sb);
		await waitFor(() => rx.received.length === 1);
		sb.setStatuses(false);
		sb.setStatuses(false, CUSTOMER);
		sb.reset();
		await settle();
		expect(clock.pending).toBe(0);
		expect(sb.statusPlans).toEqual({ schedule: { sentMs: 0, deliveredMs: 1_000, readMs: null }, phones: {} });
	});
});

describe('control API for statuses', () => {
	test('a schedule for one phone: this customer never reads, the other one does', async () => {
		const { rx, sb, clock } = await setup([200], { statuses: { sentMs: 0, deliveredMs: 1_000, readMs: 2_000 } });
		const NEVER_READS = '+15557654321';
		const set = await control(sb, 'POST', '/statuses', { phone: NEVER_READS, schedule: { sentMs: 0, deliveredMs: 1_000, readMs: null } });
		expect(set.status).toBe(200);
		expect((await control(sb, 'GET', '/statuses')).json.data).toEqual({
			schedule: { sentMs: 0, deliveredMs: 1_000, readMs: 2_000 },
			phones: { [NEVER_READS]: { sentMs: 0, deliveredMs: 1_000, readMs: null } },
		});
		await sendText(sb, NEVER_READS);
		await sendText(sb, CUSTOMER);
		await waitFor(() => rx.received.length === 2);
		clock.advance(1_000);
		await waitFor(() => rx.received.length === 4);
		clock.advance(1_000);
		await waitFor(() => rx.received.length === 5);
		await settle();
		expect(clock.pending).toBe(0);
		const byMessage = (id: string) => statusesOf(rx).filter((s) => s[1] === id).map((s) => s[2]);
		expect(byMessage('wamid.1')).toEqual(['sent', 'delivered']);
		expect(byMessage('wamid.2')).toEqual(['sent', 'delivered', 'read']);

		// Removing the phone's schedule gives it the general one again; `false` turns statuses off for all.
		await control(sb, 'POST', '/statuses', { phone: NEVER_READS, schedule: null });
		expect((await control(sb, 'POST', '/statuses', { schedule: false })).json.data).toEqual({ schedule: false, phones: {} });
		await sendText(sb, NEVER_READS);
		await settle();
		expect(sb.deliveries).toHaveLength(5);
	});

	test('a bad schedule is answered 400 with the field named', async () => {
		const { sb } = await setup([200]);
		const r = await control(sb, 'POST', '/statuses', { schedule: { sentMs: 0, deliveredMs: 'soon', readMs: null } });
		expect(r.status).toBe(400);
		expect(r.json.message).toMatch(/deliveredMs/);
		expect((await control(sb, 'POST', '/statuses', { schedule: null })).status).toBe(400);
		expect(sb.statusPlans.schedule).toBe(false);
	});

	test('a status now: out of order, twice, before anybody waits', async () => {
		const { rx, sb } = await setup([200]);
		await sendText(sb);
		for (const [n, status] of (['read', 'sent', 'read'] as const).entries()) {
			const r = await control(sb, 'POST', '/messages/wamid.1/status', { status });
			expect(r.status).toBe(200);
			expect(r.json.data).toEqual({ message_id: 'wamid.1', status, delivery_id: sb.deliveries[n].id });
			await waitFor(() => rx.received.length === n + 1);
		}
		expect(statusesOf(rx).map((s) => s[2])).toEqual(['read', 'sent', 'read']);
		expect(sb.messages[0].statuses.map((s) => s.status)).toEqual(['read', 'sent', 'read']);
		expect(sb.messages[0].status).toBe('read');
	});

	test('a status now for an unknown message or an unknown status is refused', async () => {
		const { rx, sb } = await setup([200]);
		await sendText(sb);
		expect((await control(sb, 'POST', '/messages/wamid.9/status', { status: 'read' })).status).toBe(404);
		const bad = await control(sb, 'POST', '/messages/wamid.1/status', { status: 'seen' });
		expect(bad.status).toBe(400);
		expect(bad.json.message).toMatch(/sent, delivered, read/);
		expect(sb.deliveries).toHaveLength(0);
		expect(rx.received).toHaveLength(0);
	});
});

describe('CLI', () => {
	const startCli = (args: string[]) => startSandboxCli(['--port', '0', ...args]);

	test('reports statuses by default: sent at once, delivered after 2 s, read after 10 s', async () => {
		const rx = await startReceiver([200]);
		receivers.push(rx);
		// Time scaled 1000 times: the 10 s read comes after 10 ms.
		const { child, out, exited } = startCli(['--webhook-url', rx.url, '--time-scale', '1000']);
		try {
			await waitFor(() => out.text.includes('Control API'), 20_000);
			expect(out.text).toContain('Message statuses (message.status.updated): sent after 0 s, delivered after 2 s, read after 10 s');
			const base = out.text.split('\n')[0].slice('sandbox listening on '.length);
			const sent = await call(base, { method: 'POST', path: '/w/message/text', query: Q, json: { phone: CUSTOMER, body: 'hi' } });
			expect(sent.status).toBe(200);
			await waitFor(() => rx.received.length === 3);
			expect(statusesOf(rx)).toEqual(['sent', 'delivered', 'read'].map((s) => ['message.status.updated', 'wamid.1', s]));
		} finally {
			child.kill('SIGTERM');
		}
		expect(await exited).toBe(0);
	});

	test('SandboxProcess (the suites\' and the demo\'s sandbox) starts it with statuses off', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'bm-statuses-'));
		const service = new SandboxProcess(join(dir, 'sandbox.log'));
		try {
			await service.start();
			const sent = await call(service.url, { method: 'POST', path: '/w/message/text', query: Q, json: { phone: CUSTOMER, body: 'hi' } });
			expect(sent.status).toBe(200);
			// With statuses on, `sent` (due at 0 ms) would already be recorded, webhook URL or not.
			expect((await service.messages()).map((m) => m.statuses)).toEqual([[]]);
		} finally {
			await service.stop();
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test('--statuses off and a bad --statuses', async () => {
		const off = startCli(['--statuses', 'off']);
		try {
			await waitFor(() => off.out.text.includes('Control API'), 20_000);
			expect(off.out.text).toContain('Message statuses (message.status.updated): off');
		} finally {
			off.child.kill('SIGTERM');
		}
		expect(await off.exited).toBe(0);
		const bad = startCli(['--statuses', '0,soon,never']);
		expect(await bad.exited).toBe(1);
		expect(bad.out.err).toMatch(/Invalid statuses: 0,soon,never .*deliveredMs/);
	});
});
