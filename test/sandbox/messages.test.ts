import { createHash } from 'node:crypto';
import { startSandbox, type Sandbox } from '../../tools/sandbox/index';
import { call, multipart } from './test-helpers';

const Q = 'phone_number_id=100200300';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** Deterministic bytes covering every byte value, including CR, LF and '-' that could confuse a parser. */
function bytesOf(n: number): Buffer {
	const b = Buffer.alloc(n);
	for (let i = 0; i < n; i++) b[i] = (i * 31 + 7) % 256;
	return b;
}

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox();
});
afterAll(() => sb.stop());
beforeEach(() => sb.reset());

describe('text messages', () => {
	const send = (json: unknown, query = Q) => call(sb.url, { method: 'POST', path: '/w/message/text', query, json });

	test('are accepted, answered and recorded', async () => {
		const r = await send({ phone: '+15551234567', body: 'Hello, Ana' });
		expect(r.status).toBe(200);
		expect(r.json).toEqual({ status: true, message: 'Message sent', data: { message_id: 'wamid.1', phone: '+15551234567', type: 'text', status: 'sent' } });
		expect((await send({ phone: '4915112345678', body: 'second' })).json.data.message_id).toBe('wamid.2');
		expect(sb.messages).toEqual([
			expect.objectContaining({ message_id: 'wamid.1', kind: 'text', phone: '+15551234567', body: 'Hello, Ana', phone_number_id: '100200300' }),
			expect.objectContaining({ message_id: 'wamid.2', body: 'second' }),
		]);
	});

	test.each([
		['missing phone_number_id', { phone: '+15551234567', body: 'x' }, '', 'phone_number_id'],
		['a phone with letters', { phone: '+1555abc4567', body: 'x' }, Q, 'phone'],
		['a phone starting with 0', { phone: '015551234567', body: 'x' }, Q, 'phone'],
		['a phone that is too short', { phone: '+123456', body: 'x' }, Q, 'phone'],
		['a phone that is too long', { phone: '+1234567890123456', body: 'x' }, Q, 'phone'],
		['an empty body', { phone: '+15551234567', body: '' }, Q, 'body'],
		['a blank body', { phone: '+15551234567', body: '   ' }, Q, 'body'],
		['no body field', { phone: '+15551234567' }, Q, 'body'],
	])('%s -> 422', async (_name, json, query, field) => {
		const r = await send(json, query);
		expect(r.status).toBe(422);
		expect(r.json.status).toBe(false);
		expect(r.json.errors).toHaveProperty(field);
		expect(sb.messages).toHaveLength(0);
	});

	test('malformed JSON -> 400', async () => {
		const r = await call(sb.url, { method: 'POST', path: '/w/message/text', query: Q, body: '{"phone":' });
		expect(r.status).toBe(400);
	});
});

describe('media messages', () => {
	const sendForm = (s: Sandbox, form: { body: Buffer; contentType: string }, opts: { query?: string; signPayload?: string | Buffer } = {}) =>
		call(s.url, { method: 'POST', path: '/w/message/media', query: opts.query ?? Q, body: form.body, contentType: form.contentType, signPayload: opts.signPayload });

	test('records file name, content type and the exact bytes', async () => {
		const file = bytesOf(70_001);
		const form = multipart([
			{ name: 'phone', value: '+15551234567' },
			{ name: 'type', value: 'document' },
			{ name: 'caption', value: 'Your invoice' },
			{ name: 'media', value: file, filename: 'invoice 2026.pdf', contentType: 'application/pdf' },
		]);
		const r = await sendForm(sb, form);
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			status: true,
			message: 'Media message sent',
			data: { message_id: 'wamid.1', phone: '+15551234567', type: 'document', status: 'sent', file_name: 'invoice 2026.pdf', mime_type: 'application/pdf', size: 70_001 },
		});
		const m = sb.messages[0];
		expect(m).toMatchObject({ kind: 'media', type: 'document', caption: 'Your invoice', phone: '+15551234567' });
		expect(m.file!.bytes.equals(file)).toBe(true);
		expect(m.file!.sha256).toBe(sha(file));
		const rec = sb.requests[0];
		expect(rec.body.equals(form.body)).toBe(true);
		expect(rec.multipart!.fields).toEqual({ phone: '+15551234567', type: 'document', caption: 'Your invoice' });
		expect(rec.multipart!.files).toEqual([expect.objectContaining({ field: 'media', filename: 'invoice 2026.pdf', contentType: 'application/pdf', size: 70_001, sha256: sha(file) })]);
	});

	test.each(['image', 'video', 'audio', 'document'])('type %s is accepted', async (type) => {
		const form = multipart([{ name: 'phone', value: '+15551234567' }, { name: 'type', value: type }, { name: 'media', value: bytesOf(10), filename: `f.${type}`, contentType: 'application/octet-stream' }]);
		expect((await sendForm(sb, form)).status).toBe(200);
	});

	test.each([
		['an unknown type', [{ name: 'phone', value: '+15551234567' }, { name: 'type', value: 'sticker' }, { name: 'media', value: 'x', filename: 'a.webp' }], 'type'],
		['no media part', [{ name: 'phone', value: '+15551234567' }, { name: 'type', value: 'image' }], 'media'],
		['media as a plain field without a file name', [{ name: 'phone', value: '+15551234567' }, { name: 'type', value: 'image' }, { name: 'media', value: 'not a file' }], 'media'],
		['a bad phone', [{ name: 'phone', value: 'abc' }, { name: 'type', value: 'image' }, { name: 'media', value: 'x', filename: 'a.png' }], 'phone'],
	])('%s -> 422', async (_name, parts, field) => {
		const r = await sendForm(sb, multipart(parts));
		expect(r.status).toBe(422);
		expect(r.json.errors).toHaveProperty(field);
		expect(sb.messages).toHaveLength(0);
	});

	test('missing phone_number_id -> 422; a JSON body -> 400', async () => {
		const form = multipart([{ name: 'phone', value: '+15551234567' }, { name: 'type', value: 'image' }, { name: 'media', value: 'x', filename: 'a.png' }]);
		expect((await sendForm(sb, form, { query: '' })).status).toBe(422);
		expect((await call(sb.url, { method: 'POST', path: '/w/message/media', query: Q, json: { phone: '+15551234567' } })).status).toBe(400);
	});

	test('copes with a 50 MB file', async () => {
		const file = bytesOf(50 * 1024 * 1024);
		const form = multipart([{ name: 'phone', value: '+15551234567' }, { name: 'type', value: 'video' }, { name: 'media', value: file, filename: 'big.mp4', contentType: 'video/mp4' }]);
		const r = await sendForm(sb, form);
		expect(r.status).toBe(200);
		expect(r.json.data.size).toBe(file.length);
		expect(sb.messages[0].file!.sha256).toBe(sha(file));
	});

	describe.each(['rawBody', 'queryString', 'timestampOnly'] as const)('multipartSigning %s', (mode) => {
		let s: Sandbox;
		beforeAll(async () => {
			s = await startSandbox({ multipartSigning: mode });
		});
		afterAll(() => s.stop());

		const form = multipart([{ name: 'phone', value: '+15551234567' }, { name: 'type', value: 'image' }, { name: 'media', value: bytesOf(1234), filename: 'p.png', contentType: 'image/png' }]);
		const all = { rawBody: form.body, queryString: Q, timestampOnly: '' };

		test('accepts only a signature over its payload', async () => {
			for (const [other, payload] of Object.entries(all)) {
				const r = await sendForm(s, form, { signPayload: payload });
				expect([other, r.status]).toEqual([other, other === mode ? 200 : 401]);
			}
			expect(s.messages).toHaveLength(1);
			expect(s.messages[0].file!.bytes.equals(bytesOf(1234))).toBe(true);
			// The mode applies to multipart only: JSON bodies still sign the raw body.
			const json = JSON.stringify({ phone: '+15551234567', body: 'hi' });
			expect((await call(s.url, { method: 'POST', path: '/w/message/text', query: Q, body: json })).status).toBe(200);
		});
	});
});
