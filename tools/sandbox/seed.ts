/**
 * Deterministic seed data: no randomness and a fixed base date, so every run and every machine sees
 * the same templates, contacts and orders.
 */

export const SEED_BASE_MS = Date.UTC(2025, 0, 1, 0, 0, 0);
const HOUR = 3_600_000;

export const ORDER_STATES = ['pending', 'accepted', 'shipped', 'delivered', 'completed'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

export interface TemplateComponent {
	type: 'HEADER' | 'BODY' | 'BUTTONS';
	format?: 'TEXT' | 'IMAGE';
	text?: string;
	example?: { body_text: string[][] };
	buttons?: Array<{ type: string; text: string }>;
}

export interface Template {
	id: number;
	name: string;
	language: string;
	status: 'APPROVED' | 'PENDING' | 'REJECTED';
	category: 'UTILITY' | 'MARKETING' | 'AUTHENTICATION';
	components: TemplateComponent[];
	created_at: string;
	updated_at: string;
}

export interface Contact {
	id: number;
	name: string;
	phone_number: string;
	email: string;
	created_at: string;
}

export interface Order {
	id: number;
	order_number: string;
	status: OrderState;
	payment_status: 'paid' | 'unpaid';
	shipping_date: string | null;
	delivery_date: string | null;
	admin_notes: string | null;
	branch_id: string | null;
	created_at: string;
	updated_at: string;
}

const pad = (n: number, width = 4) => String(n).padStart(width, '0');
const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);

interface Kind {
	prefix: string;
	category: Template['category'];
	header: string;
	/** Body sentence pieces; piece k is used with placeholder k+1 when the template has that many. */
	lead: string;
	pieces: Array<{ text: string; sample: string }>;
	buttons: string[];
}

const KINDS: Kind[] = [
	{
		prefix: 'order_update',
		category: 'UTILITY',
		header: 'Order update',
		lead: 'Your order has been updated.',
		pieces: [
			{ text: 'Order {{n}} is on its way.', sample: 'ORD-0042' },
			{ text: 'Expected delivery: {{n}}.', sample: '2025-02-14' },
			{ text: 'Questions? Reply to {{n}}.', sample: 'Ana' },
		],
		buttons: ['Track order', 'Contact support'],
	},
	{
		prefix: 'shipping_notice',
		category: 'UTILITY',
		header: 'Shipping notice',
		lead: 'Your parcel has shipped.',
		pieces: [
			{ text: 'Hi {{n}},', sample: 'Maria' },
			{ text: 'carrier {{n}}', sample: 'DHL' },
			{ text: 'tracking number {{n}}.', sample: 'JD014600003SE' },
		],
		buttons: ['Thanks', 'Change address'],
	},
	{
		prefix: 'payment_reminder',
		category: 'UTILITY',
		header: 'Payment reminder',
		lead: 'A payment is due.',
		pieces: [
			{ text: 'Invoice {{n}}', sample: 'INV-2025-007' },
			{ text: 'for {{n}}', sample: '$49.90' },
			{ text: 'is due on {{n}}.', sample: '2025-03-01' },
		],
		buttons: ['Pay now', 'Remind me later'],
	},
	{
		prefix: 'welcome',
		category: 'MARKETING',
		header: 'Welcome',
		lead: 'Welcome to our shop!',
		pieces: [
			{ text: 'Hello {{n}}!', sample: 'Sam' },
			{ text: 'Use code {{n}}', sample: 'HELLO10' },
			{ text: 'before {{n}}.', sample: '2025-01-31' },
		],
		buttons: ['Shop now', 'Stop messages'],
	},
	{
		prefix: 'promo_offer',
		category: 'MARKETING',
		header: 'Special offer',
		lead: 'A special offer just for you.',
		pieces: [
			{ text: 'Save {{n}}', sample: '20%' },
			{ text: 'on {{n}}', sample: 'all shoes' },
			{ text: 'until {{n}}.', sample: 'Sunday' },
		],
		buttons: ['Show me', 'Not interested'],
	},
	{
		prefix: 'otp_code',
		category: 'AUTHENTICATION',
		header: 'Verification code',
		lead: 'Do not share this code.',
		pieces: [
			{ text: 'Your code is {{n}}.', sample: '482913' },
			{ text: 'It expires in {{n}} minutes.', sample: '10' },
			{ text: 'Requested from {{n}}.', sample: 'Chrome on Windows' },
		],
		buttons: ['I did not request this'],
	},
];

const LANGUAGES = ['en_US', 'es', 'pt_BR', 'de', 'fr', 'en_GB', 'ar'];

/**
 * The conversation example's template (examples/order-confirmation.json): an order confirmation whose
 * quick-reply buttons are YES and NO. It takes the place of the generated template with this id.
 */
export const ORDER_CONFIRMATION_TEMPLATE_ID = 250;

function orderConfirmation(id: number): Template {
	const created = SEED_BASE_MS + id * HOUR;
	return {
		id,
		name: 'order_confirmation',
		language: 'en_US',
		status: 'APPROVED',
		category: 'UTILITY',
		components: [
			{ type: 'HEADER', format: 'TEXT', text: 'Order confirmation' },
			{ type: 'BODY', text: 'Your order {{1}} is ready: reply YES to confirm or NO to cancel.', example: { body_text: [['ORD-0042']] } },
			{ type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'YES' }, { type: 'QUICK_REPLY', text: 'NO' }] },
		],
		created_at: iso(created),
		updated_at: iso(created),
	};
}

export function makeTemplate(id: number): Template {
	if (id === ORDER_CONFIRMATION_TEMPLATE_ID) return orderConfirmation(id);
	const kind = KINDS[(id - 1) % KINDS.length];
	// Index within the kind, so every kind gets every status and placeholder count.
	const k = Math.floor((id - 1) / KINDS.length);
	// Mostly approved; one in ten of each kind pending and one rejected.
	const status: Template['status'] = k % 10 === 3 ? 'PENDING' : k % 10 === 7 ? 'REJECTED' : 'APPROVED';
	const placeholders = k % 4;
	const used = kind.pieces.slice(0, placeholders);
	const bodyText = [kind.lead, ...used.map((p, n) => p.text.replace('{{n}}', `{{${n + 1}}}`))].join(' ');
	const body: TemplateComponent = { type: 'BODY', text: bodyText };
	if (placeholders > 0) body.example = { body_text: [used.map((p) => p.sample)] };
	// Periods 7 and 5 are coprime with the six kinds, so headers and buttons vary within each kind.
	const header: TemplateComponent = id % 7 === 0 || id % 7 === 3 ? { type: 'HEADER', format: 'IMAGE' } : { type: 'HEADER', format: 'TEXT', text: kind.header };
	const components: TemplateComponent[] = [header, body];
	if (id % 5 === 1 || id % 5 === 3) components.push({ type: 'BUTTONS', buttons: kind.buttons.map((text) => ({ type: 'QUICK_REPLY', text })) });
	const created = SEED_BASE_MS + id * HOUR;
	return {
		id,
		name: `${kind.prefix}_${pad(id)}`,
		language: LANGUAGES[(id - 1) % LANGUAGES.length],
		status,
		category: kind.category,
		components,
		created_at: iso(created),
		updated_at: iso(created + (id % 5) * 60_000),
	};
}

const FIRST = ['Ana', 'Ben', 'Chen', 'Dara', 'Emil', 'Fatima', 'Gus', 'Hana', 'Ivo', 'Jun', 'Kemal', 'Lena', 'Marco', 'Nia'];
const LAST = ['Silva', 'Okafor', 'Novak', 'Haddad', 'Kim', 'Larsen', 'Moreau', 'Rossi', 'Tanaka', 'Weber', 'Zhou'];

export function makeContact(id: number): Contact {
	const first = FIRST[(id - 1) % FIRST.length];
	const last = LAST[(id - 1) % LAST.length];
	return {
		id,
		name: `${first} ${last}`,
		phone_number: `+1555${pad(id, 7)}`,
		email: `${first.toLowerCase()}.${last.toLowerCase()}.${id}@example.com`,
		created_at: iso(SEED_BASE_MS + id * 2 * HOUR),
	};
}

export function makeOrder(id: number): Order {
	const state = ORDER_STATES[(id - 1) % ORDER_STATES.length];
	const stage = ORDER_STATES.indexOf(state);
	const created = SEED_BASE_MS + id * 3 * HOUR;
	return {
		id,
		order_number: `ORD-${pad(id)}`,
		status: state,
		payment_status: 'unpaid',
		shipping_date: stage >= 2 ? day(created + 24 * HOUR) : null,
		delivery_date: stage >= 3 ? day(created + 72 * HOUR) : null,
		admin_notes: null,
		branch_id: null,
		created_at: iso(created),
		updated_at: iso(created),
	};
}

export interface SeedSizes {
	templateCount: number;
	contactCount: number;
	orderCount: number;
}

export interface SeedData {
	templates: Template[];
	contacts: Contact[];
	orders: Map<number, Order>;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

export function seed(sizes: SeedSizes): SeedData {
	return {
		templates: range(sizes.templateCount).map(makeTemplate),
		contacts: range(sizes.contactCount).map(makeContact),
		orders: new Map(range(sizes.orderCount).map((id) => [id, makeOrder(id)])),
	};
}
