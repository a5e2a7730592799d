/**
 * The credential through n8n's real request paths (engine harness, real HTTP to a local server):
 * what the server receives must be exactly what was signed. The server side checks with its own
 * HMAC over the raw bytes it got, as the service would.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { BusinessMessagingApi } from '../../credentials/BusinessMessagingApi.credentials';
import { runNode } from '../helpers/engine';

const SECRET = 'SENTINEL-client-secret-7f3a9c';

interface Received {
	method: string;
	rawQuery: string;
	body: Buffer;
	headers: Record<string, string | string[] | undefined>;
}

/** Sends `request` (JSON) through the credential: the modern helper, or the legacy one n8n's HTTP Request node uses. */
class SignedRequestNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Signed Request',
		name: 'signedRequest',
		group: ['transform'],
		version: 1,
		description: 'Test node',
		defaults: { name: 'Signed Request' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'businessMessagingApi', required: true }],
		properties: [
			{ displayName: 'Request', name: 'request', type: 'json', default: '{}' },
			{ displayName: 'Legacy', name: 'legacy', type: 'boolean', default: false },
			{ displayName: 'Body Base64', name: 'bodyBase64', type: 'string', default: '' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const request = JSON.parse(this.getNodeParameter('request', 0) as string) as IDataObject;
		const bodyBase64 = this.getNodeParameter('bodyBase64', 0) as string;
		if (bodyBase64) request.body = Buffer.from(bodyBase64, 'base64') as unknown as IDataObject;
		const response = this.getNodeParameter('legacy', 0)
			? await this.helpers.requestWithAuthentication.call(this, 'businessMessagingApi', request as never)
			: await this.helpers.httpRequestWithAuthentication.call(this, 'businessMessagingApi', request as never);
		return [[{ json: { response: response as IDataObject }, pairedItem: { item: 0 } }]];
	}
}

let server: Server;
let base: string;
let received: Received[] = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const url = req.url ?? '';
			received.push({
				method: req.method ?? '',
				rawQuery: url.includes('?') ? url.slice(url.indexOf('?') + 1) : '',
				body: Buffer.concat(chunks),
				headers: req.headers,
			});
			res.setHeader('Content-Type', 'application/json');
			res.end('{"ok":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
	await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
	received = [];
});

async function send(request: IDataObject, opts: { legacy?: boolean; body?: Buffer; multipartSigning?: string } = {}) {
	const result = await runNode({
		nodeTypes: { 'test.signedRequest': new SignedRequestNode() },
		credentialTypes: { businessMessagingApi: new BusinessMessagingApi() },
		credentials: {
			businessMessagingApi: {
				baseUrl: base,
				clientId: 'client-42',
				clientSecret: SECRET,
				domain: 'acme.example',
				...(opts.multipartSigning ? { multipartSigning: opts.multipartSigning } : {}),
			},
		},
		node: {
			type: 'test.signedRequest',
			parameters: {
				request: JSON.stringify(request),
				legacy: opts.legacy ?? false,
				bodyBase64: opts.body?.toString('base64') ?? '',
			},
		},
	});
	expect(result.error).toBeUndefined();
	expect(received).toHaveLength(1);
	// The secret goes into no log line and no header.
	expect(result.logs.join('\n')).not.toContain('SENTINEL');
	expect(JSON.stringify(received[0].headers)).not.toContain('SENTINEL');
	return received[0];
}

/** What the service would check: HMAC over timestamp + body (or the raw query string when there is no body). */
function expectValidSignature(got: Received, signedPayload?: Buffer | string) {
	const timestamp = got.headers['x-timestamp'] as string;
	expect(timestamp).toMatch(/^\d+$/);
	expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(5);
	const payload = signedPayload ?? (got.body.length > 0 ? got.body : Buffer.from(got.rawQuery));
	const expected = createHmac('sha256', SECRET).update(timestamp).update(payload).digest('hex');
	expect(got.headers['x-service-signature-256']).toBe(`sha256=${expected}`);
	expect(got.headers['x-client-id']).toBe('client-42');
	expect(got.headers['x-domain']).toBe('acme.example');
	expect(got.headers.accept).toBe('application/json');
}

const QUERY = { search: 'a b&c=d/e?', page: 2, tag: 'x+y', name: 'José', status: ['sent', 'read'] };
const RAW_QUERY = 'search=a%20b%26c%3Dd%2Fe%3F&page=2&tag=x%2By&name=Jos%C3%A9&status=sent&status=read';
const BODY = { to: '+15551234567', text: { body: 'Olá 👋 مرحبا — ✓' } };

describe('signed requests as the server receives them', () => {
	it('httpRequest: GET with qs', async () => {
		const got = await send({ method: 'GET', url: `${base}/templates`, qs: QUERY });
		expect(got.rawQuery).toBe(RAW_QUERY);
		expect(got.body.length).toBe(0);
		expectValidSignature(got);
	});

	it('httpRequest: relative url with baseURL, as in the credential test', async () => {
		const got = await send({ method: 'GET', baseURL: base, url: '/templates', qs: { page: 1, limit: 1 } });
		expect(got.rawQuery).toBe('page=1&limit=1');
		expectValidSignature(got);
	});

	it('httpRequest: POST with an object body', async () => {
		const got = await send({ method: 'POST', url: `${base}/messages`, body: BODY, json: true });
		expect(got.body.toString('utf8')).toBe(JSON.stringify(BODY));
		expect(got.headers['content-type']).toBe('application/json');
		expectValidSignature(got);
	});

	it('legacy request (HTTP Request node): GET with uri + qs + json', async () => {
		const got = await send({ method: 'GET', uri: `${base}/templates`, qs: QUERY, json: true }, { legacy: true });
		expect(got.rawQuery).toBe(RAW_QUERY);
		expectValidSignature(got);
	});

	it('legacy request (HTTP Request node): POST with uri + body + json', async () => {
		const got = await send({ method: 'POST', uri: `${base}/messages`, qs: {}, body: BODY, json: true }, { legacy: true });
		expect(got.body.toString('utf8')).toBe(JSON.stringify(BODY));
		expectValidSignature(got);
	});

	it('httpRequest: multipart Buffer body under rawBody arrives byte for byte as signed', async () => {
		const boundary = '----n8nTestBoundary7f3a9c';
		const body = Buffer.concat([
			Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.bin"\r\n\r\n`),
			Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
			Buffer.from(`\r\n--${boundary}--\r\n`),
		]);
		const got = await send(
			{ method: 'POST', url: `${base}/media`, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } },
			{ body },
		);
		expect(got.body.equals(body)).toBe(true);
		expectValidSignature(got, body);
	});

	// Known bugs (see the report). `it.failing` passes while the bug is there and fails once fixed.

	it('a query value with an apostrophe arrives as signed', async () => {
		const got = await send({ method: 'GET', url: `${base}/contacts`, qs: { name: "O'Brien" } });
		// Signed: name=O'Brien. Sent: name=O%27Brien (the URL class escapes ' in http(s) queries).
		expectValidSignature(got);
	});

	it('a string body that is not JSON arrives as signed', async () => {
		// signRequest labels every string body application/json; axios then JSON-encodes a
		// non-JSON string, so "hello world" goes out as "\"hello world\"".
		const got = await send({ method: 'POST', url: `${base}/notes`, body: 'hello world' });
		expect(got.body.toString('utf8')).toBe('hello world');
		expectValidSignature(got);
	});

	it('a JSON string body with surrounding whitespace arrives as signed', async () => {
		// axios trims JSON strings before sending; the signature covered the untrimmed text.
		const got = await send({ method: 'POST', url: `${base}/messages`, body: '{"a":1}\n' });
		expectValidSignature(got);
	});

	it('legacy request: an empty object body arrives as signed', async () => {
		// An empty object counts as "no body" and the (empty) query string is signed, but the legacy
		// path still sends "{}" as the body. (httpRequest drops an empty body, so it is fine there.)
		const got = await send({ method: 'POST', uri: `${base}/messages`, body: {}, json: true }, { legacy: true });
		expectValidSignature(got);
	});
});
