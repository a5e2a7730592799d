import { startSandbox, type Sandbox } from '../../tools/sandbox/index';
import { call } from './test-helpers';

const NOW_MS = Date.UTC(2026, 2, 10, 12, 0, 0);
const NOW_S = Math.floor(NOW_MS / 1000);
const Q = 'phone_number_id=100200300';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ now: () => NOW_MS });
});
afterAll(() => sb.stop());
beforeEach(() => sb.reset());

const put = (id: string | number, body: unknown, query = Q) =>
	call(sb.url, { method: 'PUT', path: `/orders/${id}`, query, body: typeof body === 'string' ? body : JSON.stringify(body), timestamp: NOW_S });

// Seeded orders cycle through the states: 1 pending, 2 accepted, 3 shipped, 4 delivered, 5 completed.
describe('order status transitions', () => {
	test('seeded orders cover every state', () => {
		expect([1, 2, 3, 4, 5].map((id) => sb.getOrder(id)!.status)).toEqual(['pending', 'accepted', 'shipped', 'delivered', 'completed']);
		expect(sb.getOrder(6)!.status).toBe('pending');
		expect(sb.getOrder(1)).toMatchObject({ order_number: 'ORD-0001', payment_status: 'unpaid' });
	});

	test.each([
		[1, 'accepted', {}],
		[2, 'shipped', { shipping_date: '2026-03-11' }],
		[3, 'delivered', { delivery_date: '2026-03-14' }],
		[4, 'completed', {}],
	])('order %i moves to its next state %s', async (id, status, extra) => {
		const before = sb.getOrder(id)!;
		const r = await put(id, { status, ...extra });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			status: true,
			message: 'Order updated successfully',
			data: {
				id,
				order_number: `ORD-000${id}`,
				status,
				payment_status: 'unpaid',
				shipping_date: (extra as { shipping_date?: string }).shipping_date ?? before.shipping_date,
				delivery_date: (extra as { delivery_date?: string }).delivery_date ?? before.delivery_date,
				admin_notes: null,
				updated_at: new Date(NOW_MS).toISOString(),
			},
		});
		expect(sb.getOrder(id)!.status).toBe(status);
	});

	test('walks one order through the whole sequence', async () => {
		for (const s of ['accepted', 'shipped', 'delivered', 'completed']) expect((await put(6, { status: s })).status).toBe(200);
		expect(sb.getOrder(6)!.status).toBe('completed');
	});

	test.each([1, 2, 3, 4, 5])('repeating the current state of order %i is a safe no-op', async (id) => {
		const before = sb.getOrder(id)!;
		for (let i = 0; i < 2; i++) {
			const r = await put(id, { status: before.status });
			expect(r.status).toBe(200);
			expect(r.json.data.status).toBe(before.status);
		}
		expect(sb.getOrder(id)).toEqual({ ...before, updated_at: new Date(NOW_MS).toISOString() });
	});

	test.each([
		[1, 'pending', 'shipped'],
		[1, 'pending', 'completed'],
		[2, 'accepted', 'pending'],
		[3, 'shipped', 'accepted'],
		[4, 'delivered', 'shipped'],
		[5, 'completed', 'pending'],
		[5, 'completed', 'delivered'],
	])('order %i cannot move from %s to %s', async (id, from, to) => {
		const r = await put(id, { status: to, admin_notes: 'should not stick' });
		expect(r.status).toBe(422);
		expect(r.json.status).toBe(false);
		expect(r.json.message).toBe(`Order ${id} cannot move from ${from} to ${to}.`);
		expect(sb.getOrder(id)).toMatchObject({ status: from, admin_notes: null });
	});
});

describe('order update validation', () => {
	test('unknown order -> 404', async () => {
		const r = await put(999, { status: 'accepted' });
		expect(r.status).toBe(404);
		expect(r.json).toEqual({ status: false, message: 'Order not found.' });
	});

	test.each(['abc', '1.5', '-1'])('non-integer id %j -> 400', async (id) => {
		const r = await put(id, { status: 'accepted' });
		expect(r.status).toBe(400);
		expect(r.json.status).toBe(false);
	});

	test('malformed JSON -> 400', async () => {
		const r = await put(1, '{"status": "accepted"');
		expect(r.status).toBe(400);
		expect(r.json).toEqual({ status: false, message: expect.stringMatching(/JSON/) });
		expect(sb.getOrder(1)!.status).toBe('pending');
	});

	test('missing phone_number_id -> 422', async () => {
		const r = await put(1, { status: 'accepted' }, '');
		expect(r.status).toBe(422);
		expect(r.json.errors).toHaveProperty('phone_number_id');
	});

	test.each([
		['status', { status: 'cancelled' }],
		['status', { status: 'ACCEPTED' }],
		['payment_status', { payment_status: 'refunded' }],
		['shipping_date', { shipping_date: '2026-02-30' }],
		['shipping_date', { shipping_date: '2026-3-1' }],
		['delivery_date', { delivery_date: '11/03/2026' }],
		['delivery_date', { delivery_date: 20260311 }],
	])('invalid %s -> 422 naming the field', async (field, body) => {
		const r = await put(1, body);
		expect(r.status).toBe(422);
		expect(r.json.status).toBe(false);
		expect(Object.keys(r.json.errors)).toEqual([field]);
		expect(r.json.errors[field]).toEqual([expect.any(String)]);
	});

	test('only the fields sent change; payment_status is never defaulted', async () => {
		expect((await put(2, { payment_status: 'paid' })).json.data.payment_status).toBe('paid');
		const r = await put(2, { admin_notes: 'left at the door', branch_id: 'BR-7' });
		expect(r.status).toBe(200);
		expect(r.json.data).toMatchObject({ status: 'accepted', payment_status: 'paid', admin_notes: 'left at the door' });
		expect(sb.getOrder(2)).toMatchObject({ branch_id: 'BR-7', payment_status: 'paid', shipping_date: null });
	});

	test('an empty body changes nothing but updated_at', async () => {
		const before = sb.getOrder(3)!;
		const r = await put(3, '');
		expect(r.status).toBe(200);
		expect(sb.getOrder(3)).toEqual({ ...before, updated_at: new Date(NOW_MS).toISOString() });
	});
});

describe('order list', () => {
	const list = (query: string) => call(sb.url, { path: '/orders', query, timestamp: NOW_S });

	test('filters by status and pages with meta', async () => {
		const r = await list('status=shipped&phone_number_id=100200300&limit=5&page=2');
		expect(r.status).toBe(200);
		expect(r.json.meta).toEqual({ current_page: 2, per_page: 5, total: 12, last_page: 3 });
		expect(r.json.data).toHaveLength(5);
		expect(r.json.data.every((o: { status: string }) => o.status === 'shipped')).toBe(true);
	});

	test('without a filter lists all 60 with the default page size', async () => {
		const r = await list('');
		expect(r.json.meta).toEqual({ current_page: 1, per_page: 100, total: 60, last_page: 1 });
	});

	test('reflects updates and rejects an unknown status filter', async () => {
		await put(1, { status: 'accepted' });
		expect((await list('status=pending')).json.meta.total).toBe(11);
		expect((await list('status=lost')).status).toBe(422);
		expect((await list('limit=0')).status).toBe(400);
	});
});

describe('an order created event', () => {
	test('makes the order exist, pending, so that the workflow it starts can update it', async () => {
		expect(sb.getOrder(61)).toBeUndefined();
		sb.deliver({ event: 'order.created', url: 'http://127.0.0.1:9/nowhere' });
		expect(sb.getOrder(61)).toMatchObject({ id: 61, status: 'pending', order_number: 'ORD-0061' });
		expect((await put(61, { status: 'accepted' })).status).toBe(200);
		// One the service has already keeps its state.
		sb.deliver({ event: 'order.created', url: 'http://127.0.0.1:9/nowhere', data: { order_id: 2 } });
		expect(sb.getOrder(2)!.status).toBe('accepted');
	});
});
