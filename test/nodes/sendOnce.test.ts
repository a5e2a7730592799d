/**
 * Retry never sends twice: a run that fails half-way, retried as n8n's Retry button does or by the
 * node's Retry On Fail, sends only what did not go out before, and says which items it skipped.
 */
import type { IExecuteFunctions, INodeParameters } from 'n8n-workflow';

import { type JsonValue, messageKey } from '../../nodes/BusinessMessaging/helpers/messageKey';
import { defaultRepeatKey, repeatWindowKeys, SKIPPED_RETRY } from '../../nodes/BusinessMessaging/helpers/sendOnce';
import { runAction, type RunActionOptions } from '../helpers/actionNode';
import type { RunNodeInputItem } from '../helpers/engine';
import { type Sandbox } from '../../tools/sandbox';
import { useSandbox } from '../helpers/useSandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

// Six items, three recipients, two messages each.
const input: RunNodeInputItem[] = Array.from({ length: 6 }, (_, i) => ({
	json: { phone: `+491510000000${i % 3}`, text: `message ${i}` },
}));

const parameters = (options: INodeParameters = {}, text = '={{ $json.text }}'): INodeParameters => ({
	resource: 'message',
	operation: 'sendText',
	phone: '={{ $json.phone }}',
	text,
	options,
});

const send = (options: RunActionOptions & { parameters?: INodeParameters } = {}) =>
	runAction(sandbox, options.parameters ?? parameters(), { input, ...options });

/** The fourth send fails with a 500, which a message send does not repeat by itself. */
function failFourthSend() {
	sandbox.injectFault({ delayMs: 0, count: 3, path: '/w/message/text' });
	sandbox.injectFault({ status: 500, count: 1, path: '/w/message/text' });
}

const sentTexts = () => sandbox.messages.map((m) => m.body);

describe.each([
	['one at a time', { parallelRequests: 1 }],
	['in parallel', { parallelRequests: 3 }],
])('n8n’s Retry of a run that failed half-way (%s)', (_mode, options) => {
	test('sends each message exactly once, and the output names the skipped items', async () => {
		failFourthSend();
		const failed = await send({ parameters: parameters(options) });
		expect(failed.error?.message).toBe('The service answered 500: Internal server error.');
		const sentBefore = new Set(sentTexts());
		expect(sentBefore.size).toBeGreaterThan(0);
		expect(sentBefore.size).toBeLessThan(6);

		const retried = await send({ parameters: parameters(options), retryOf: failed });
		expect(retried.error).toBeUndefined();
		expect(sentTexts().sort()).toEqual(input.map((item) => item.json.text).sort());
		expect(retried.items).toHaveLength(6);
		retried.items.forEach((item, i) => {
			const text = String(input[i].json.text);
			expect(item.pairedItem).toEqual({ item: i });
			if (sentBefore.has(text)) {
				expect(item.json).toMatchObject({ skipped: true, skipReason: SKIPPED_RETRY, phone: input[i].json.phone });
				const earlier = sandbox.messages.find((m) => m.body === text)!;
				expect(item.json.message_id).toBe(String(earlier.message_id));
			} else {
				expect(item.json).toMatchObject({ status: 'sent', phone: input[i].json.phone });
				expect(item.json.skipped).toBeUndefined();
			}
		});
	});
});

test('Retry On Fail repeats the node without sending the messages of the earlier try again', async () => {
	failFourthSend();
	const result = await send({ parameters: parameters({ parallelRequests: 1 }), retryOnFail: { maxTries: 2 } });
	expect(result.error).toBeUndefined();
	expect(sentTexts()).toEqual(input.map((item) => item.json.text));
	expect(result.items.map((item) => item.json.skipped ?? false)).toEqual([true, true, true, false, false, false]);
});

describe('every attempt of a retry chain knows what the others sent', () => {
	const three: RunNodeInputItem[] = ['0', '1', '2'].map((i) => ({ json: { phone: `+4915100000${i}0`, text: `chain ${i}` } }));
	const sendThree = (options: RunActionOptions & { parameters?: INodeParameters } = {}) =>
		runAction(sandbox, options.parameters ?? parameters({ parallelRequests: 1 }), { input: three, ...options });
	const timesThirdGotIt = () => sandbox.messages.filter((m) => m.body === 'chain 2').length;

	test('retrying the original failed execution again after a retry succeeded sends nothing twice', async () => {
		// The third recipient refuses once.
		sandbox.injectFault({ delayMs: 0, count: 2, path: '/w/message/text' });
		sandbox.injectFault({ status: 422, count: 1, path: '/w/message/text' });
		const original = await sendThree();
		expect(original.error?.message).toMatch(/^The service answered 422/);
		const retry = await sendThree({ retryOf: original });
		expect(retry.error).toBeUndefined();
		expect(timesThirdGotIt()).toBe(1);

		const again = await sendThree({ retryOf: original });
		expect(again.error).toBeUndefined();
		expect(timesThirdGotIt()).toBe(1);
		expect(again.items.map((item) => item.json.skipReason)).toEqual([SKIPPED_RETRY, SKIPPED_RETRY, SKIPPED_RETRY]);
		expect(sentTexts()).toEqual(['chain 0', 'chain 1', 'chain 2']);
	});

	test('also when the node never ran in the execution being retried (it failed before)', async () => {
		const original = await sendThree({ parameters: { ...parameters(), operation: 'noSuchOperation' } });
		expect(original.error?.message).toContain('is not supported');
		expect(await sendThree({ retryOf: original })).toMatchObject({ error: undefined });
		const again = await sendThree({ retryOf: original });
		expect(again.error).toBeUndefined();
		expect(again.items.every((item) => item.json.skipReason === SKIPPED_RETRY)).toBe(true);
		expect(sentTexts()).toEqual(['chain 0', 'chain 1', 'chain 2']);
	});

	test('a retry that cannot know the chain (n8n kept no start record) refuses and sends nothing', async () => {
		const original = await sendThree({ parameters: { ...parameters(), operation: 'noSuchOperation' } });
		delete original.run.data.executionData!.runtimeData; // as an execution saved by an n8n without it
		const retry = await sendThree({ retryOf: original });
		expect(retry.error?.message).toBe('Cannot tell what other retries of this execution already sent');
		expect(sentTexts()).toEqual([]);
	});

	test('a failed send of a retry is sent by the next retry', async () => {
		sandbox.injectFault({ delayMs: 0, count: 2, path: '/w/message/text' });
		sandbox.injectFault({ status: 422, count: 1, path: '/w/message/text' });
		const original = await sendThree();
		sandbox.injectFault({ status: 422, count: 1, path: '/w/message/text' });
		const retry = await sendThree({ retryOf: original });
		expect(retry.error?.message).toMatch(/^The service answered 422/);
		const again = await sendThree({ retryOf: original });
		expect(again.error).toBeUndefined();
		expect(sentTexts()).toEqual(['chain 0', 'chain 1', 'chain 2']);
	});
});

test('a retry sends an item whose message was changed in the meantime', async () => {
	failFourthSend();
	const failed = await send({ parameters: parameters({ parallelRequests: 1 }) });
	expect(sentTexts()).toEqual(['message 0', 'message 1', 'message 2']);
	const retried = await send({
		parameters: parameters({ parallelRequests: 1 }, '={{ $json.text }} (corrected)'),
		retryOf: failed,
	});
	expect(retried.error).toBeUndefined();
	expect(sentTexts()).toHaveLength(9);
	expect(retried.items.every((item) => item.json.skipped === undefined)).toBe(true);
});

test('a new run (not a retry) sends the same messages again when Skip Repeats Within is off', async () => {
	await send({ parameters: parameters({ skipRepeatsWithin: 0 }) });
	await send({ parameters: parameters({ skipRepeatsWithin: 0 }) });
	expect(sentTexts()).toHaveLength(12);
});

describe('repeat keys', () => {
	test('the default key is the recipient and a hash of the request as sent: every field, whatever order it was written in', async () => {
		const noFile = {} as IExecuteFunctions;
		const key = async (phone: string, fields: Record<string, JsonValue>, path = '/w/message/location') =>
			defaultRepeatKey({ phone, key: await messageKey(noFile, 0, { path, fields }) });
		const location = { latitude: 52.52, longitude: 13.405, name: 'Shop' };
		const first = await key('+4915112345678', location);
		expect(first.startsWith('+4915112345678|')).toBe(true);
		expect(await key('+4915112345678', { name: 'Shop', longitude: 13.405, latitude: 52.52 })).toBe(first);
		expect(await key('+4915112345678', location, '/w/message/./location')).toBe(first);
		expect(await key('+4915112345678', { ...location, name: 'Warehouse' })).not.toBe(first);
		expect(await key('+4915112345678', { ...location, latitude: '52.52' })).not.toBe(first);
		expect(await key('+4915112345678', { ...location, note: 'x' })).not.toBe(first);
		expect(await key('+4915112345678', location, '/w/message/venue')).not.toBe(first);
		expect(await key('+4915112345679', location)).not.toBe(first);
	});

	test('a file counts by its bytes, name and type', async () => {
		const withBytes = (bytes: string) => ({ helpers: { getBinaryDataBuffer: async () => Buffer.from(bytes) } }) as unknown as IExecuteFunctions;
		const file = (fileName: string) => ({ field: 'media', binaryPropertyName: 'data', binary: { data: '', mimeType: 'application/pdf', fileName } });
		const key = async (bytes: string, fileName = 'a.pdf') =>
			await messageKey(withBytes(bytes), 0, { path: '/w/message/media', fields: { type: 'document' }, file: file(fileName) });
		expect(await key('%PDF-1')).toBe(await key('%PDF-1'));
		expect(await key('%PDF-2')).not.toBe(await key('%PDF-1'));
		expect(await key('%PDF-1', 'b.pdf')).not.toBe(await key('%PDF-1'));
	});

	test('a repeat within the window is always looked for in the slot it falls in or the one before', () => {
		const windowMs = 60 * 60_000;
		for (const firstAt of [0, 1, windowMs - 1, windowMs / 2, 7 * windowMs + 5]) {
			const first = repeatWindowKeys('order-1', firstAt, windowMs).current;
			for (const later of [0, 1, windowMs / 3, windowMs - 1]) {
				const { current, previous } = repeatWindowKeys('order-1', firstAt + later, windowMs);
				expect([current, previous]).toContain(first);
			}
			// Twice the window later, never.
			const { current, previous } = repeatWindowKeys('order-1', firstAt + 2 * windowMs, windowMs);
			expect([current, previous]).not.toContain(first);
		}
		expect(repeatWindowKeys('order-1', 0, windowMs).current).not.toBe(repeatWindowKeys('order-2', 0, windowMs).current);
	});
});
