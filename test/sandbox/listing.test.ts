import { startSandbox, type Sandbox, type Template } from '../../tools/sandbox/index';
import { call } from './test-helpers';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox();
});
afterAll(() => sb.stop());

const get = (s: Sandbox, path: string, query = '') => call(s.url, { path, query });

/** What a Return All does: fetch page after page with the default size until last_page. */
async function returnAll(s: Sandbox, path: string, extra = ''): Promise<{ items: Array<{ id: number }>; requests: number }> {
	const items: Array<{ id: number }> = [];
	let page = 1;
	let requests = 0;
	for (;;) {
		const r = await get(s, path, `page=${page}${extra}`);
		requests++;
		expect(r.status).toBe(200);
		items.push(...r.json.data);
		if (page >= r.json.meta.last_page) break;
		page++;
	}
	return { items, requests };
}

describe('template list', () => {
	test('defaults to page 1 and 100 per page', async () => {
		const r = await get(sb, '/templates');
		expect(r.status).toBe(200);
		expect(r.json.status).toBe(true);
		expect(r.json.meta).toEqual({ current_page: 1, per_page: 100, total: 250, last_page: 3 });
		expect(r.json.data).toHaveLength(100);
		expect(r.json.data[0]).toEqual({ id: 1, name: 'order_update_0001', language: expect.any(String), status: 'APPROVED', category: 'UTILITY', components: expect.any(Array) });
		expect(Object.keys(r.json.data[0]).sort()).toEqual(['category', 'components', 'id', 'language', 'name', 'status']);
	});

	test('the last page is partial and a page past it is empty', async () => {
		const p3 = await get(sb, '/templates', 'page=3');
		expect(p3.json.data).toHaveLength(50);
		expect(p3.json.data[49].id).toBe(250);
		const p4 = await get(sb, '/templates', 'page=4');
		expect(p4.status).toBe(200);
		expect(p4.json.data).toEqual([]);
		expect(p4.json.meta).toEqual({ current_page: 4, per_page: 100, total: 250, last_page: 3 });
	});

	test.each(['limit=0', 'limit=101', 'limit=-1', 'limit=abc', 'limit=1.5', 'limit=', 'page=0', 'page=-2', 'page=x', 'page=2.0'])('%s -> 400', async (q) => {
		const r = await get(sb, '/templates', q);
		expect(r.status).toBe(400);
		expect(r.json.status).toBe(false);
		expect(Object.keys(r.json.errors)).toEqual([q.split('=')[0]]);
	});

	test('limit 1 and limit 100 are allowed', async () => {
		const one = await get(sb, '/templates', 'limit=1&page=250');
		expect(one.json.data.map((t: Template) => t.id)).toEqual([250]);
		expect(one.json.meta.last_page).toBe(250);
		expect((await get(sb, '/templates', 'limit=100')).status).toBe(200);
	});

	test('searchTerm is a case-insensitive substring of the name', async () => {
		const r = await get(sb, '/templates', 'searchTerm=OTP_Code');
		expect(r.status).toBe(200);
		// Six kinds cycle, so ids 6, 12, ..., 246 are otp_code: 41 templates.
		expect(r.json.meta.total).toBe(41);
		expect(r.json.data.every((t: Template) => t.name.startsWith('otp_code_'))).toBe(true);
		const exact = await get(sb, '/templates', 'searchTerm=welcome_0004');
		expect(exact.json.data.map((t: Template) => t.name)).toEqual(['welcome_0004']);
	});

	test('a search with no match is empty with last_page 1', async () => {
		const r = await get(sb, '/templates', 'searchTerm=zzz');
		expect(r.json).toEqual({ status: true, data: [], meta: { current_page: 1, per_page: 100, total: 0, last_page: 1 } });
	});

	test('an empty searchTerm and an extra phone_number_id do not filter', async () => {
		const r = await get(sb, '/templates', 'searchTerm=&phone_number_id=100200300');
		expect(r.json.meta.total).toBe(250);
	});

	test('Return All over every page with the default size gets each template once', async () => {
		const { items, requests } = await returnAll(sb, '/templates');
		expect(requests).toBe(3);
		expect(items.map((t) => t.id)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
	});

	test('Return All with a search pages the filtered list', async () => {
		const { items } = await returnAll(sb, '/templates', '&limit=10&searchTerm=promo');
		expect(items).toHaveLength(41);
		expect(new Set(items.map((t) => t.id)).size).toBe(41);
	});
});

describe('one template', () => {
	test('returns the full template with timestamps', async () => {
		const r = await get(sb, '/templates/12');
		expect(r.status).toBe(200);
		expect(r.json.data).toMatchObject({ id: 12, name: 'otp_code_0012', category: 'AUTHENTICATION' });
		expect(r.json.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		expect(r.json.data.updated_at).toMatch(/Z$/);
	});

	test('unknown -> 404, non-integer -> 400', async () => {
		expect((await get(sb, '/templates/251')).status).toBe(404);
		expect((await get(sb, '/templates/0')).status).toBe(404);
		const bad = await get(sb, '/templates/abc');
		expect(bad.status).toBe(400);
		expect(bad.json.status).toBe(false);
	});
});

describe('seeded templates', () => {
	let all: Template[];
	beforeAll(async () => {
		all = [];
		for (let id = 1; id <= 250; id++) all.push((await get(sb, `/templates/${id}`)).json.data);
	});

	test('cover all statuses, categories, name kinds and several languages', () => {
		const count = (f: (t: Template) => string) => all.reduce<Record<string, number>>((m, t) => ({ ...m, [f(t)]: (m[f(t)] ?? 0) + 1 }), {});
		const statuses = count((t) => t.status);
		expect(Object.keys(statuses).sort()).toEqual(['APPROVED', 'PENDING', 'REJECTED']);
		expect(statuses.APPROVED).toBeGreaterThan(statuses.PENDING + statuses.REJECTED);
		expect(Object.keys(count((t) => t.category)).sort()).toEqual(['AUTHENTICATION', 'MARKETING', 'UTILITY']);
		expect(Object.keys(count((t) => t.name.replace(/_\d+$/, ''))).sort()).toEqual(['order_confirmation', 'order_update', 'otp_code', 'payment_reminder', 'promo_offer', 'shipping_notice', 'welcome']);
		expect(Object.keys(count((t) => t.language)).length).toBeGreaterThanOrEqual(4);
		// Variety within each kind, not only across kinds.
		for (const kind of ['order_update', 'otp_code', 'promo_offer']) {
			const ts = all.filter((t) => t.name.startsWith(kind));
			expect(new Set(ts.map((t) => t.status)).size).toBe(3);
			expect(new Set(ts.map((t) => t.components[0].format)).size).toBe(2);
			expect(new Set(ts.map((t) => t.components.length)).size).toBe(2);
		}
	});

	test('components: a TEXT or IMAGE header, a body whose examples match its placeholders, some QUICK_REPLY buttons', () => {
		const counts = new Set<number>();
		const formats = new Set<string>();
		let withButtons = 0;
		for (const t of all) {
			const header = t.components.find((c) => c.type === 'HEADER')!;
			formats.add(header.format!);
			const body = t.components.find((c) => c.type === 'BODY')!;
			const placeholders = [...body.text!.matchAll(/\{\{(\d+)\}\}/g)].map((m) => Number(m[1]));
			expect(placeholders).toEqual(placeholders.map((_, i) => i + 1));
			counts.add(placeholders.length);
			if (placeholders.length) expect(body.example!.body_text).toEqual([expect.arrayContaining([])]);
			expect(body.example?.body_text[0].length ?? 0).toBe(placeholders.length);
			const buttons = t.components.find((c) => c.type === 'BUTTONS');
			if (buttons) {
				withButtons++;
				expect(buttons.buttons!.length).toBeGreaterThan(0);
				for (const b of buttons.buttons!) expect(b).toEqual({ type: 'QUICK_REPLY', text: expect.any(String) });
			}
		}
		expect([...counts].sort()).toEqual([0, 1, 2, 3]);
		expect([...formats].sort()).toEqual(['IMAGE', 'TEXT']);
		expect(withButtons).toBeGreaterThan(0);
		expect(withButtons).toBeLessThan(all.length);
	});

	test('are deterministic across sandboxes', async () => {
		const other = await startSandbox();
		try {
			expect((await get(other, '/templates', 'page=2')).json).toEqual((await get(sb, '/templates', 'page=2')).json);
			expect((await get(other, '/contacts', 'page=1')).json).toEqual((await get(sb, '/contacts', 'page=1')).json);
		} finally {
			await other.stop();
		}
	});
});

describe('large template set', () => {
	test('10,000 templates page and Return All correctly', async () => {
		const big = await startSandbox({ templateCount: 10_000 });
		try {
			const first = await get(big, '/templates');
			expect(first.json.meta).toEqual({ current_page: 1, per_page: 100, total: 10_000, last_page: 100 });
			const { items, requests } = await returnAll(big, '/templates');
			expect(requests).toBe(100);
			expect(new Set(items.map((t) => t.id)).size).toBe(10_000);
			expect((await get(big, '/templates/10000')).json.data.name).toBe('welcome_10000');
		} finally {
			await big.stop();
		}
	});
});

describe('contacts', () => {
	test('page with the same rules and meta', async () => {
		const r = await get(sb, '/contacts', 'page=3&limit=50');
		expect(r.status).toBe(200);
		expect(r.json.meta).toEqual({ current_page: 3, per_page: 50, total: 120, last_page: 3 });
		expect(r.json.data).toHaveLength(20);
		expect(r.json.data[0]).toEqual({ id: 101, name: expect.any(String), phone_number: expect.stringMatching(/^\+[1-9]\d{6,14}$/), email: expect.stringContaining('@'), created_at: expect.stringMatching(/Z$/) });
		expect((await get(sb, '/contacts')).json.meta).toEqual({ current_page: 1, per_page: 100, total: 120, last_page: 2 });
		const { items } = await returnAll(sb, '/contacts');
		expect(items.map((c) => c.id)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
	});

	test.each(['limit=0', 'limit=101', 'page=0', 'page=a'])('%s -> 400', async (q) => {
		expect((await get(sb, '/contacts', q)).status).toBe(400);
	});

	test('contactCount sizes the list', async () => {
		const small = await startSandbox({ contactCount: 3, orderCount: 2, templateCount: 0 });
		try {
			expect((await get(small, '/contacts')).json.meta).toEqual({ current_page: 1, per_page: 100, total: 3, last_page: 1 });
			expect((await get(small, '/templates')).json.meta).toEqual({ current_page: 1, per_page: 100, total: 0, last_page: 1 });
			expect((await get(small, '/orders')).json.meta.total).toBe(2);
		} finally {
			await small.stop();
		}
	});
});
