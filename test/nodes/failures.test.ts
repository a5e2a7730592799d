/**
 * The action node against the sandbox's fault injection: for every kind of failure the user sees the
 * service's message and the HTTP code, the item fails alone under Continue On Fail, and requests are
 * repeated only where that is safe (README, "Retries").
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runAction, type RunActionOptions } from '../helpers/actionNode';
import { startSandbox, type Sandbox } from '../../tools/sandbox';
import { useSandbox } from '../helpers/useSandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

const run = (parameters: INodeParameters, options: RunActionOptions & { baseUrl?: string } = {}) =>
	runAction(sandbox, parameters, { ...options, credentials: options.baseUrl ? { baseUrl: options.baseUrl } : undefined });

const statuses = () => sandbox.requests.map((request) => request.status);
const sendText = (text: string, options: INodeParameters = {}) =>
	run({ resource: 'message', operation: 'sendText', phone: '+4915112345678', text, options });

// Orders 11, 12 and 13: the fault targets /orders/12 only, so the middle item fails alone.
const threeUpdates = () =>
	run(
		{ resource: 'order', operation: 'update', orderId: '={{ $json.id }}', updateFields: { adminNotes: 'checked' } },
		{ continueOnFail: true, input: [{ json: { id: 11 } }, { json: { id: 12 } }, { json: { id: 13 } }] },
	);

describe.each([
	[400, 'Injected fault with status 400.'],
	[401, 'Injected fault with status 401.'],
	[403, 'Injected fault with status 403.'],
	[404, 'Injected fault with status 404.'],
	[422, 'Injected fault with status 422.'],
	[500, 'Internal server error.'],
	[502, 'Bad gateway.'],
	[503, 'Service temporarily unavailable.'],
])('HTTP %i', (status, serviceMessage) => {
	test('the item fails alone with the service’s message and code', async () => {
		sandbox.injectFault({ status, count: 10, path: '/orders/12' });
		const result = await threeUpdates();
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items[0].json).toMatchObject({ id: 11, admin_notes: 'checked' });
		expect(result.items[2].json).toMatchObject({ id: 13, admin_notes: 'checked' });
		expect(result.items[1].json.httpCode).toBe(String(status));
		expect(result.items[1].json.error).toBe(`The service answered ${status}: ${serviceMessage}`);
	});

	test('a message send is tried exactly once', async () => {
		sandbox.injectFault({ status, count: 10, path: '/w/message/text' });
		const result = await sendText('hello');
		expect(result.error?.message).toBe(`The service answered ${status}: ${serviceMessage}`);
		// n8n-core itself sends once more after a 401, to refresh credentials; a 401 means nothing was sent.
		expect(statuses()).toEqual(status === 401 ? [401, 401] : [status]);
		expect(sandbox.messages).toHaveLength(0);
	});
});

describe('retries', () => {
	test('5xx on a safe request (order update) is retried until it succeeds', async () => {
		sandbox.injectFault({ status: 502, count: 2, path: '/orders/12' });
		const result = await threeUpdates();
		expect(result.items[1].json).toMatchObject({ id: 12, admin_notes: 'checked' });
		expect(statuses()).toEqual([200, 502, 502, 200, 200]);
	});

	test('a safe request gives up after four attempts', async () => {
		sandbox.injectFault({ status: 500, count: 10, path: '/contacts' });
		const result = await run({ resource: 'contact', operation: 'getAll', returnAll: false, limit: 1 });
		expect(result.error?.message).toContain('500');
		expect(statuses()).toEqual([500, 500, 500, 500]);
	});

	test('429 without Retry-After is retried after a short backoff', async () => {
		sandbox.injectFault({ status: 429, count: 1, path: '/w/message/text' });
		const result = await sendText('rate limited once');
		expect(result.error).toBeUndefined();
		expect(statuses()).toEqual([429, 200]);
		expect(sandbox.messages).toHaveLength(1);
	});

	test('429 with Retry-After waits that long before the one retry', async () => {
		sandbox.injectFault({ status: 429, retryAfter: 1, count: 1, path: '/w/message/text' });
		const result = await sendText('rate limited once');
		expect(result.error).toBeUndefined();
		const [first, second] = sandbox.requests;
		expect(Date.parse(second.receivedAt) - Date.parse(first.receivedAt)).toBeGreaterThanOrEqual(950);
		expect(sandbox.messages).toHaveLength(1);
	});

	test('503 with Retry-After is retried even for a send: the service did not take it', async () => {
		sandbox.injectFault({ status: 503, retryAfter: 0, count: 1, path: '/w/message/text' });
		const result = await sendText('after maintenance');
		expect(result.error).toBeUndefined();
		expect(statuses()).toEqual([503, 200]);
		expect(sandbox.messages).toHaveLength(1);
	});

	test('a timeout on a send is not repeated: the customer could get it twice', async () => {
		sandbox.injectFault({ delayMs: 1500, count: 1, path: '/w/message/text' });
		const result = await sendText('slow', { timeout: 0.3 });
		expect(result.error?.message).toBe('The service did not answer within 0.3 seconds');
		// The sandbox went on to handle the request after the delay: it may well have been sent.
		await new Promise((resolve) => setTimeout(resolve, 1400));
		expect(sandbox.requests.filter((request) => request.path === '/w/message/text')).toHaveLength(1);
	});

	test('a timeout on a read is retried', async () => {
		sandbox.injectFault({ delayMs: 1500, count: 1, path: '/contacts' });
		const result = await run({ resource: 'contact', operation: 'getAll', returnAll: false, limit: 2, options: { timeout: 0.3 } });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2);
	});

	test('a dropped connection on a send is not repeated, on a read it is', async () => {
		sandbox.injectFault({ destroy: true, count: 1, path: '/w/message/text' });
		const send = await sendText('hang up');
		expect(send.error?.message).toBe('The connection to the service closed before it answered');
		expect(send.error?.description).toContain('Base URL');
		expect(sandbox.messages).toHaveLength(0);

		sandbox.reset();
		sandbox.injectFault({ destroy: true, count: 1, path: '/templates' });
		const read = await run({ resource: 'template', operation: 'getAll', returnAll: false, limit: 1 });
		expect(read.error).toBeUndefined();
		expect(read.items).toHaveLength(1);
	});

	test('a refused connection is retried (nothing was sent), then explained', async () => {
		const closed = await startSandbox();
		const { url, port } = closed;
		await closed.stop();
		const parameters = { resource: 'message', operation: 'sendText', phone: '+4915112345678', text: 'x' };
		// The first attempt is refused; the service is back on the same port 0.2 s later, before the
		// first retry (0.5 s): the send gets through only because it was retried.
		const sending = run(parameters, { baseUrl: url });
		await new Promise((resolve) => setTimeout(resolve, 200));
		const back = await startSandbox({ port });
		try {
			const result = await sending;
			expect(result.error).toBeUndefined();
			expect(back.messages).toHaveLength(1);
		} finally {
			await back.stop();
		}
		const refused = await run(parameters, { baseUrl: url });
		expect(refused.error?.message).toBe('The service refused the connection');
		expect(refused.error?.description).toContain('Base URL');
	});

	test('a 200 whose body is not JSON is an error showing what came back', async () => {
		sandbox.injectFault({ status: 200, body: 'OK but not json', contentType: 'text/plain', count: 1, path: '/w/message/text' });
		const result = await sendText('hello');
		expect(result.error?.message).toBe('The service answered with something that is not JSON');
		expect(result.error?.description).toBe('OK but not json');
	});
});
