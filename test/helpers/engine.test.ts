import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { engineUserFolder, runNode } from './engine';

// A test-only credential whose authenticate function adds a header, as the package's credential does.
class EchoApi implements ICredentialType {
	name = 'echoApi';
	displayName = 'Echo API';
	properties = [
		{ displayName: 'Token', name: 'token', type: 'string' as const, typeOptions: { password: true }, default: '' },
	];
	authenticate = async (credentials: ICredentialDataDecryptedObject, options: IHttpRequestOptions) => ({
		...options,
		headers: { ...options.headers, 'X-Echo-Token': `tok-${credentials.token as string}` },
	});
}

// A test-only node: per item, optionally throws, logs, reads binary, and POSTs to `url` through the credential.
class EchoNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Echo',
		name: 'echo',
		group: ['transform'],
		version: [1, 2],
		description: 'Test node',
		defaults: { name: 'Echo' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'echoApi', required: true }],
		properties: [
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Fail', name: 'fail', type: 'boolean', default: false },
			{ displayName: 'Binary Property', name: 'binaryProperty', type: 'string', default: '' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			try {
				if (this.getNodeParameter('fail', i)) {
					throw new NodeOperationError(this.getNode(), 'boom on purpose', { itemIndex: i });
				}
				this.logger.info('echo node ran', { item: i });
				const json: IDataObject = { version: this.getNode().typeVersion };
				const prop = this.getNodeParameter('binaryProperty', i) as string;
				if (prop) {
					const meta = this.helpers.assertBinaryData(i, prop);
					const bytes = await this.helpers.getBinaryDataBuffer(i, prop);
					json.binary = { id: meta.id ?? null, data: meta.data, hex: bytes.toString('hex'), mimeType: meta.mimeType };
				}
				const url = this.getNodeParameter('url', i) as string;
				if (url) {
					json.response = await this.helpers.httpRequestWithAuthentication.call(this, 'echoApi', {
						method: 'POST',
						url,
						body: { item: i },
						json: true,
					});
				}
				out.push(...this.helpers.constructExecutionMetaData([{ json }], { itemData: { item: i } }));
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				throw error;
			}
		}
		return [out];
	}
}

const nodeTypes = { 'test.echo': new EchoNode() };
const credentialTypes = { echoApi: new EchoApi() };
const credentials = { echoApi: { token: 'SENTINEL-token-123' } };

let server: Server;
let baseUrl: string;
const seen: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			seen.push({ method: req.method, url: req.url, headers: req.headers, body });
			res.setHeader('Content-Type', 'application/json');
			res.end(JSON.stringify({ ok: true, got: JSON.parse(body || 'null') }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
	seen.length = 0;
});

describe('runNode', () => {
	it('runs the node through the engine and signs real HTTP requests with the credential', async () => {
		const result = await runNode({
			nodeTypes,
			credentialTypes,
			credentials,
			node: { type: 'test.echo', parameters: { url: `${baseUrl}/echo` } },
			input: [{ json: { a: 1 } }, { json: { a: 2 } }],
		});

		expect(result.error).toBeUndefined();
		expect(seen).toHaveLength(2);
		expect(seen[0].method).toBe('POST');
		expect(seen[0].url).toBe('/echo');
		expect(seen[0].headers['x-echo-token']).toBe('tok-SENTINEL-token-123');
		expect(seen.map((r) => JSON.parse(r.body))).toEqual([{ item: 0 }, { item: 1 }]);

		expect(result.items).toEqual([
			{ json: { version: 2, response: { ok: true, got: { item: 0 } } }, pairedItem: { item: 0 } },
			{ json: { version: 2, response: { ok: true, got: { item: 1 } } }, pairedItem: { item: 1 } },
		]);
		expect(result.outputs).toHaveLength(1);
	});

	it('uses the requested type version', async () => {
		const result = await runNode({
			nodeTypes,
			credentialTypes,
			credentials,
			node: { type: 'test.echo', typeVersion: 1, parameters: {} },
		});
		expect(result.items).toEqual([{ json: { version: 1 }, pairedItem: { item: 0 } }]);
	});

	it('hands binary input to the node as n8n 2.x stores it: on disk, read back through the helpers', async () => {
		const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
		const result = await runNode({
			nodeTypes,
			credentialTypes,
			credentials,
			node: { type: 'test.echo', parameters: { binaryProperty: 'file' } },
			input: [{ json: {}, binary: { file: { data: bytes, fileName: 'all.bin', mimeType: 'application/octet-stream' } } }],
		});

		expect(result.error).toBeUndefined();
		const binary = result.items[0].json.binary as IDataObject;
		expect(binary.hex).toBe(bytes.toString('hex'));
		expect(binary.mimeType).toBe('application/octet-stream');
		// Stored in filesystem mode: an id, and `data` is not the payload.
		expect(binary.id).toMatch(/^filesystem-v2:/);
		expect(binary.data).not.toBe(bytes.toString('base64'));
		expect(engineUserFolder()).toBeTruthy();
	});

	it('with continueOnFail, a throwing node yields an error item', async () => {
		const result = await runNode({
			nodeTypes,
			credentialTypes,
			credentials,
			node: { type: 'test.echo', parameters: { fail: true }, continueOnFail: true },
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toEqual([{ json: { error: 'boom on purpose' }, pairedItem: { item: 0 } }]);
	});

	it('without continueOnFail, a throwing node fails the run with its error', async () => {
		const result = await runNode({
			nodeTypes,
			credentialTypes,
			credentials,
			node: { type: 'test.echo', parameters: { fail: true } },
		});
		// n8n records a plain copy of the error's fields, not the instance: compare by name.
		expect(result.error).toMatchObject({ name: 'NodeOperationError', message: 'boom on purpose' });
		expect(result.error?.context).toEqual(expect.objectContaining({ itemIndex: 0 }));
		expect(result.items).toEqual([]);
	});

	it('a refused connection fails the run', async () => {
		const result = await runNode({
			nodeTypes,
			credentialTypes,
			credentials,
			node: { type: 'test.echo', parameters: { url: `${baseUrl.replace(/:\d+$/, ':1')}/nothing` } },
		});
		expect(result.error?.message).toMatch(/refused/i);
	});

	it('captures what n8n and the node log, per run', async () => {
		const result = await runNode({
			nodeTypes,
			credentialTypes,
			credentials,
			node: { type: 'test.echo', parameters: {} },
		});
		expect(result.logs.some((line) => line.startsWith('info echo node ran {"item":0}'))).toBe(true);
		// n8n-core's own debug lines come through too (the engine logs each node it runs).
		expect(result.logs.some((line) => line.startsWith('debug ') && line.includes('Node Under Test'))).toBe(true);
		// The credential's secret never reached a log line in a normal run.
		expect(result.logs.join('\n')).not.toContain('SENTINEL');
	});

	it('keeps the logs of runs in parallel apart', async () => {
		const run = (fail: boolean) =>
			runNode({ nodeTypes, credentialTypes, credentials, node: { type: 'test.echo', parameters: { fail } } });
		const [ok, failed] = await Promise.all([run(false), run(true)]);
		expect(ok.logs.join('\n')).toContain('echo node ran');
		expect(ok.logs.join('\n')).not.toContain('boom on purpose');
		expect(failed.logs.join('\n')).toContain('boom on purpose');
		expect(failed.logs.join('\n')).not.toContain('echo node ran');
	});
});
