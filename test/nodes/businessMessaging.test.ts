/**
 * Every operation of the action node, run as a real workflow through n8n-core's engine against the
 * sandbox. Each test asserts what the sandbox received and what the user gets out of the node.
 */
import { createHash, createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runAction, searchTemplates, type RunActionOptions } from '../helpers/actionNode';
import type { RunResult } from '../helpers/engine';
import { startSandbox, type Sandbox } from '../../tools/sandbox';
import { useSandbox } from '../helpers/useSandbox';

let sandbox: Sandbox;
const everythingUserSaw: string[] = [];
useSandbox((started) => (sandbox = started));

async function run(
	parameters: INodeParameters,
	options: RunActionOptions & { target?: Sandbox } = {},
): Promise<RunResult> {
	const result = await runAction(options.target ?? sandbox, parameters, options);
	everythingUserSaw.push(JSON.stringify(result.items), JSON.stringify(result.error ?? null), ...result.logs);
	return result;
}

const apiRequests = () => sandbox.requests.filter((request) => !request.path.startsWith('/_sandbox'));
const onlyRequest = () => {
	expect(apiRequests()).toHaveLength(1);
	return apiRequests()[0];
};

function orderIn(status: string): number {
	for (let id = 1; id <= 60; id++) if (sandbox.getOrder(id)?.status === status) return id;
	throw new Error(`no ${status} order in the sandbox`);
}

describe('order', () => {
	test('update moves an order to the next state and sends only the fields set', async () => {
		const id = orderIn('pending');
		const result = await run({
			resource: 'order',
			operation: 'update',
			orderId: id,
			updateFields: { status: 'accepted', adminNotes: 'Packed by Ana' },
		});
		expect(result.error).toBeUndefined();
		const request = onlyRequest();
		expect(request.method).toBe('PUT');
		expect(request.path).toBe(`/orders/${id}`);
		expect(request.rawQuery).toBe('phone_number_id=100200300');
		expect(request.authOk).toBe(true);
		expect(request.body.toString()).toBe('{"status":"accepted","admin_notes":"Packed by Ana"}');
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ id, status: 'accepted', admin_notes: 'Packed by Ana' });
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		expect(sandbox.getOrder(id)?.status).toBe('accepted');
	});

	test('shipping with a date, payment status only when set', async () => {
		const id = orderIn('accepted');
		const result = await run({
			resource: 'order',
			operation: 'update',
			orderId: id,
			phoneNumberId: '555000111',
			updateFields: { status: 'shipped', shippingDate: '2024-02-29', paymentStatus: 'paid' },
		});
		expect(result.error).toBeUndefined();
		const request = onlyRequest();
		expect(request.rawQuery).toBe('phone_number_id=555000111');
		expect(JSON.parse(request.body.toString())).toEqual({
			status: 'shipped',
			payment_status: 'paid',
			shipping_date: '2024-02-29',
		});
		expect(result.items[0].json).toMatchObject({ status: 'shipped', shipping_date: '2024-02-29', payment_status: 'paid' });
	});

	test('a move the service refuses shows its own message and the 422', async () => {
		const id = orderIn('pending');
		const result = await run({ resource: 'order', operation: 'update', orderId: id, updateFields: { status: 'shipped' } });
		expect(result.error?.message).toContain('422');
		expect(result.error?.message).toContain(`cannot move from pending to shipped`);
		expect((result.error as unknown as IDataObject).httpCode).toBe('422');
	});

	test('an unknown order is the service’s 404', async () => {
		const result = await run({ resource: 'order', operation: 'update', orderId: 999999, updateFields: { status: 'accepted' } });
		expect(result.error?.message).toContain('404');
		expect(result.error?.message).toContain('Order not found');
		expect((result.error as unknown as IDataObject).httpCode).toBe('404');
	});

	test.each([
		['shippingDate', '2025-02-30', 'Shipping Date'],
		['deliveryDate', '31.03.2025', 'Delivery Date'],
		['status', 'sent', 'Status'],
		['paymentStatus', 'free', 'Payment Status'],
	])('bad %s "%s" is refused before any request, naming the field', async (field, value, label) => {
		const result = await run({ resource: 'order', operation: 'update', orderId: 1, updateFields: { [field]: value } });
		expect(result.error?.message).toContain(label);
		expect(result.error?.message).toContain(value);
		expect(apiRequests()).toHaveLength(0);
	});

	test('no sender anywhere is a clear error before any request', async () => {
		const result = await run(
			{ resource: 'order', operation: 'update', orderId: 1, updateFields: { status: 'accepted' } },
			{ credentials: { phoneNumberId: '' } },
		);
		expect(result.error?.message).toContain('Sender (Phone Number ID)');
		expect(result.error?.description).toContain('Default Sender');
		expect(apiRequests()).toHaveLength(0);
	});

	test('an update with no fields is refused before any request', async () => {
		const result = await run({ resource: 'order', operation: 'update', orderId: 1, updateFields: {} });
		expect(result.error?.message).toContain('Update Fields');
		expect(apiRequests()).toHaveLength(0);
	});

	test('get many by status returns every matching order across pages', async () => {
		const all = await run({ resource: 'order', operation: 'getAll', returnAll: true, filters: { status: 'shipped' } });
		expect(all.error).toBeUndefined();
		const expected = Array.from({ length: 60 }, (_, i) => sandbox.getOrder(i + 1)).filter((o) => o?.status === 'shipped');
		expect(all.items.map((item) => item.json.id)).toEqual(expected.map((order) => order!.id));
		expect(apiRequests()[0].query).toMatchObject({ status: 'shipped', phone_number_id: '100200300' });

		sandbox.reset();
		const some = await run({ resource: 'order', operation: 'getAll', returnAll: false, limit: 3 });
		expect(some.items).toHaveLength(3);
		expect(onlyRequest().query).toMatchObject({ page: '1', limit: '3' });
	});
});

describe('template', () => {
	test('get many with Return All follows the pages to the end, 100 at a time', async () => {
		const result = await run({ resource: 'template', operation: 'getAll', returnAll: true });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(250);
		expect(new Set(result.items.map((item) => item.json.id)).size).toBe(250);
		expect(apiRequests().map((request) => request.rawQuery)).toEqual([
			'phone_number_id=100200300&page=1&limit=100',
			'phone_number_id=100200300&page=2&limit=100',
			'phone_number_id=100200300&page=3&limit=100',
		]);
		expect(apiRequests().every((request) => request.authOk)).toBe(true);
	});

	test('get many with a limit asks for no more than it needs; search term is passed on', async () => {
		const result = await run({
			resource: 'template',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filters: { searchTerm: 'order update' },
		});
		expect(result.error).toBeUndefined();
		expect(onlyRequest().rawQuery).toBe('searchTerm=order%20update&phone_number_id=100200300&page=1&limit=5');

		sandbox.reset();
		const found = await run({ resource: 'template', operation: 'getAll', returnAll: true, filters: { searchTerm: 'OTP_code' } });
		expect(found.items.length).toBeGreaterThan(0);
		expect(found.items.every((item) => String(item.json.name).toLowerCase().includes('otp_code'))).toBe(true);
	});

	test('get one template shows how many placeholder values it needs', async () => {
		const list = await run({ resource: 'template', operation: 'getAll', returnAll: true });
		const withValues = list.items.find((item) => {
			const body = (item.json.components as IDataObject[]).find((c) => c.type === 'BODY');
			return ((body?.example as IDataObject)?.body_text as string[][])?.[0]?.length >= 2;
		})!;
		const id = withValues.json.id as number;
		sandbox.reset();
		const result = await run({
			resource: 'template',
			operation: 'get',
			templateId: { __rl: true, mode: 'id', value: String(id) },
		});
		expect(result.error).toBeUndefined();
		expect(onlyRequest().path).toBe(`/templates/${id}`);
		const template = result.items[0].json;
		const body = (template.components as IDataObject[]).find((c) => c.type === 'BODY')!;
		const sampleValues = ((body.example as IDataObject).body_text as string[][])[0];
		expect(template.placeholdersByComponent).toMatchObject({ BODY: sampleValues.length });
		expect(template.placeholderCount).toBeGreaterThanOrEqual(sampleValues.length);
		expect(template).toHaveProperty('created_at');
	});

	test('the Template picker lists templates page by page and searches by name', async () => {
		const first = await searchTemplates(sandbox);
		expect(first.results).toHaveLength(100);
		expect(first.results[0]).toEqual({ name: expect.stringMatching(/^\w+ \(\w+(, (no|\d+) values?)?\)$/), value: expect.any(String) });
		expect(first.paginationToken).toBe('2');
		const last = await searchTemplates(sandbox, undefined, '3');
		expect(last.results).toHaveLength(50);
		expect(last.paginationToken).toBeUndefined();
		const found = await searchTemplates(sandbox, 'welcome');
		expect(found.results.length).toBeGreaterThan(0);
		expect(found.results.every((result) => result.name.startsWith('welcome'))).toBe(true);
		expect(apiRequests().map((request) => request.rawQuery)).toEqual([
			'page=1&limit=100',
			'page=3&limit=100',
			'searchTerm=welcome&page=1&limit=100',
		]);
		expect(apiRequests().every((request) => request.authOk)).toBe(true);
	});

	test('an unknown template is the service’s 404', async () => {
		const result = await run({ resource: 'template', operation: 'get', templateId: { __rl: true, mode: 'id', value: '99999' } });
		expect(result.error?.message).toContain('404');
		expect((result.error as unknown as IDataObject).httpCode).toBe('404');
	});
});

describe('message', () => {
	test('send text posts exactly the signed JSON, multibyte text intact', async () => {
		const result = await run({
			resource: 'message',
			operation: 'sendText',
			phone: '+49 151 1234-5678',
			text: 'Olá 👋 your order shipped — مرحبا',
		});
		expect(result.error).toBeUndefined();
		const request = onlyRequest();
		expect(request.path).toBe('/w/message/text');
		expect(request.rawQuery).toBe('phone_number_id=100200300');
		expect(request.headers['content-type']).toBe('application/json');
		expect(request.body.toString('utf8')).toBe('{"phone":"+4915112345678","body":"Olá 👋 your order shipped — مرحبا"}');
		expect(request.authOk).toBe(true);
		expect(sandbox.messages).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ phone: '+4915112345678', type: 'text', status: 'sent' });
		expect(result.items[0].json.message_id).toEqual(expect.any(String));
	});

	test('a bad phone number is refused before any request, naming the field', async () => {
		const result = await run({ resource: 'message', operation: 'sendText', phone: '12ab', text: 'hi' });
		expect(result.error?.message).toContain('Recipient Phone');
		expect(apiRequests()).toHaveLength(0);
	});

	test('send media uploads the binary file with its name and type as multipart', async () => {
		const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
		const result = await run(
			{
				resource: 'message',
				operation: 'sendMedia',
				phone: '+4915112345678',
				mediaType: 'image',
				binaryPropertyName: 'photo',
				caption: 'Your parcel 📦',
			},
			{ input: [{ json: {}, binary: { photo: { data: bytes, fileName: 'parcel.png', mimeType: 'image/png' } } }] },
		);
		expect(result.error).toBeUndefined();
		const request = onlyRequest();
		expect(request.path).toBe('/w/message/media');
		expect(request.authOk).toBe(true);
		expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
		expect(request.multipart?.fields).toEqual({ phone: '+4915112345678', type: 'image', caption: 'Your parcel 📦' });
		const file = request.multipart!.files[0];
		expect(file).toMatchObject({ field: 'media', filename: 'parcel.png', contentType: 'image/png', size: bytes.length });
		expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
		expect(result.items[0].json).toMatchObject({ type: 'image', file_name: 'parcel.png' });
	});

	test.each(['queryString', 'timestampOnly'] as const)(
		'send media is accepted when the service signs multipart as %s',
		async (multipartSigning) => {
			const other = await startSandbox({ multipartSigning });
			try {
				const result = await run(
					{ resource: 'message', operation: 'sendMedia', phone: '+4915112345678', mediaType: 'document', binaryPropertyName: 'data' },
					{
						target: other,
						credentials: { multipartSigning },
						input: [{ json: {}, binary: { data: { data: Buffer.from('%PDF-1.4'), fileName: 'a.pdf', mimeType: 'application/pdf' } } }],
					},
				);
				expect(result.error).toBeUndefined();
				expect(other.requests.at(-1)?.authOk).toBe(true);
			} finally {
				await other.stop();
			}
		},
	);

	test('send media without the binary field says which field is missing', async () => {
		const result = await run(
			{ resource: 'message', operation: 'sendMedia', phone: '+4915112345678', mediaType: 'image', binaryPropertyName: 'photo' },
			{ input: [{ json: { name: 'no file here' } }] },
		);
		expect(result.error?.message).toContain('Input Binary Field');
		expect(result.error?.message).toContain('photo');
		expect(apiRequests()).toHaveLength(0);
	});
});

describe('contact', () => {
	test('get many with Return All reads every contact, a limit reads only what it needs', async () => {
		const all = await run({ resource: 'contact', operation: 'getAll', returnAll: true });
		expect(all.error).toBeUndefined();
		expect(all.items).toHaveLength(120);
		expect(apiRequests().map((request) => request.rawQuery)).toEqual(['page=1&limit=100', 'page=2&limit=100']);

		sandbox.reset();
		const some = await run({ resource: 'contact', operation: 'getAll', returnAll: false, limit: 7 });
		expect(some.items).toHaveLength(7);
		expect(onlyRequest().rawQuery).toBe('page=1&limit=7');
	});
});

describe('webhook', () => {
	let receiver: Server;
	const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
	beforeAll(async () => {
		receiver = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
				res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
			});
		});
		receiver.listen(0, '127.0.0.1');
		await once(receiver, 'listening');
	});
	afterAll(() => receiver.close());

	test('send test event makes the service deliver a signed event', async () => {
		sandbox.setWebhookUrl(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
		const result = await run({ resource: 'webhook', operation: 'sendTest' });
		expect(result.error).toBeUndefined();
		expect(onlyRequest()).toMatchObject({ method: 'POST', path: '/webhooks/test', authOk: true });
		await sandbox.deliveries[0].done;
		expect(received).toHaveLength(1);
		const { headers, body } = received[0];
		const expected = createHmac('sha256', sandbox.credentials.webhookSecret)
			.update(`${headers['x-service-webhook-timestamp']}.${body}`)
			.digest('hex');
		expect(headers['x-service-webhook-signature']).toBe(expected);
		expect(JSON.parse(body)).toMatchObject({ event: expect.any(String), data: expect.any(Object) });
	});

	test('without a webhook URL the service’s message reaches the user', async () => {
		sandbox.setWebhookUrl(undefined);
		const result = await run({ resource: 'webhook', operation: 'sendTest' });
		expect(result.error?.message).toContain('No webhook URL is configured');
	});
});

describe('failures', () => {
	test('continue on fail: the failing item becomes an error item, the others go on', async () => {
		const pending = orderIn('pending');
		const result = await run(
			{ resource: 'order', operation: 'update', orderId: '={{ $json.id }}', updateFields: { status: 'accepted' } },
			{ continueOnFail: true, input: [{ json: { id: pending } }, { json: { id: 999999 } }, { json: { id: 'abc' } }] },
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items[0].json).toMatchObject({ id: pending, status: 'accepted' });
		expect(result.items[1].json).toMatchObject({ httpCode: '404' });
		expect(String(result.items[1].json.error)).toContain('Order not found');
		expect(String(result.items[2].json.error)).toContain('Order ID');
		expect(apiRequests()).toHaveLength(2);
	});

	test('a wrong client secret is the service’s 401 with its reason', async () => {
		const result = await run({ resource: 'contact', operation: 'getAll', returnAll: false, limit: 1 }, { credentials: { clientSecret: 'not-the-secret' } });
		expect(result.error?.message).toContain('401');
		expect((result.error as unknown as IDataObject).httpCode).toBe('401');
	});

	test('429 with Retry-After is waited out and retried: the message goes out once', async () => {
		sandbox.injectFault({ status: 429, retryAfter: 1, count: 1, path: '/w/message/text' });
		const result = await run({ resource: 'message', operation: 'sendText', phone: '+4915112345678', text: 'once' });
		expect(result.error).toBeUndefined();
		expect(apiRequests().map((request) => request.status)).toEqual([429, 200]);
		expect(sandbox.messages).toHaveLength(1);
	});

	test('a 500 after a send went out is not repeated; the same on an order update is retried', async () => {
		sandbox.injectFault({ status: 500, count: 1, path: '/w/message/text' });
		const send = await run({ resource: 'message', operation: 'sendText', phone: '+4915112345678', text: 'maybe sent' });
		expect(send.error?.message).toContain('500');
		expect(apiRequests()).toHaveLength(1);

		sandbox.reset();
		const id = orderIn('pending');
		sandbox.injectFault({ status: 500, count: 1, path: '/orders' });
		const update = await run({ resource: 'order', operation: 'update', orderId: id, updateFields: { status: 'accepted' } });
		expect(update.error).toBeUndefined();
		expect(apiRequests().map((request) => request.status)).toEqual([500, 200]);
	});

	test('a 200 whose body is not JSON is an error, not empty success', async () => {
		sandbox.injectFault({ status: 200, body: '<html>maintenance</html>', contentType: 'text/html', count: 1 });
		const result = await run({ resource: 'contact', operation: 'getAll', returnAll: false, limit: 1 });
		expect(result.error?.message).toContain('not JSON');
	});
});

test('the client secret and the webhook secret never reach output, errors or logs', () => {
	expect(everythingUserSaw.length).toBeGreaterThan(20);
	const seen = everythingUserSaw.join('\n');
	expect(seen).not.toContain(sandbox.credentials.clientSecret);
	expect(seen).not.toContain(sandbox.credentials.webhookSecret);
});
