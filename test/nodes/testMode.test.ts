/**
 * The credential's Test Mode: every message to the test recipient, or a dry run that checks and signs
 * but sends nothing; the output and the output panel's hint say so.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runAction } from '../helpers/actionNode';
import type { RunResult } from '../helpers/engine';
import { type Sandbox } from '../../tools/sandbox';
import { useSandbox } from '../helpers/useSandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

const TEST_RECIPIENT = '+4915199999999';
const input = [
	{ json: { phone: '+4915100000001', text: 'first' } },
	{ json: { phone: '+4915100000002', text: 'second' } },
];
const textParameters: INodeParameters = {
	resource: 'message',
	operation: 'sendText',
	phone: '={{ $json.phone }}',
	text: '={{ $json.text }}',
};
const hints = (result: RunResult) =>
	result.run.data.resultData.runData['Node Under Test']?.at(-1)?.hints?.map((hint) => hint.message) ?? [];

test('Send to Test Recipient: every message goes to the test recipient; the output keeps the real one', async () => {
	const result = await runAction(sandbox, textParameters, {
		input,
		credentials: { testMode: 'redirect', testRecipient: '+49 151 9999 9999' },
	});
	expect(result.error).toBeUndefined();
	expect(sandbox.messages.map((m) => [m.phone, m.body])).toEqual([
		[TEST_RECIPIENT, 'first'],
		[TEST_RECIPIENT, 'second'],
	]);
	expect(result.items.map((item) => item.json)).toEqual([
		expect.objectContaining({ testMode: 'redirected', intendedRecipient: '+4915100000001', phone: TEST_RECIPIENT }),
		expect.objectContaining({ testMode: 'redirected', intendedRecipient: '+4915100000002', phone: TEST_RECIPIENT }),
	]);
	expect(hints(result)).toEqual([expect.stringContaining(`test recipient ${TEST_RECIPIENT}`)]);
});

test('Send to Test Recipient also redirects media', async () => {
	const result = await runAction(
		sandbox,
		{ resource: 'message', operation: 'sendMedia', phone: '+4915100000003', mediaType: 'document', binaryPropertyName: 'data' },
		{
			input: [{ json: {}, binary: { data: { data: Buffer.from('%PDF-1.4 test'), fileName: 'a.pdf', mimeType: 'application/pdf' } } }],
			credentials: { testMode: 'redirect', testRecipient: TEST_RECIPIENT },
		},
	);
	expect(result.error).toBeUndefined();
	expect(sandbox.messages.map((m) => m.phone)).toEqual([TEST_RECIPIENT]);
	expect(result.items[0].json).toMatchObject({ testMode: 'redirected', intendedRecipient: '+4915100000003' });
});

test('Dry Run: nothing is sent; each request is checked and signed; the output says not sent', async () => {
	const result = await runAction(sandbox, textParameters, { input, credentials: { testMode: 'dryRun' } });
	expect(result.error).toBeUndefined();
	expect(sandbox.requests).toHaveLength(0);
	expect(result.items.map((item) => item.json)).toEqual([
		expect.objectContaining({ testMode: 'dryRun', sent: false, intendedRecipient: '+4915100000001' }),
		expect.objectContaining({ testMode: 'dryRun', sent: false, intendedRecipient: '+4915100000002' }),
	]);
	expect(result.items[0].json.request).toMatchObject({ method: 'POST', signed: true });
	expect(String((result.items[0].json.request as { url: string }).url)).toContain('/w/message/text?phone_number_id=');
	expect(hints(result)).toEqual([expect.stringContaining('dry run, no message was sent')]);
});

test('Dry Run still refuses bad input, naming the field', async () => {
	const result = await runAction(
		sandbox,
		{ ...textParameters, phone: 'not-a-phone' },
		{ input: input.slice(0, 1), credentials: { testMode: 'dryRun' } },
	);
	expect(result.error?.message).toContain('Recipient Phone');
});

test('Send to Test Recipient without a test recipient fails before any request, naming the field', async () => {
	const result = await runAction(sandbox, textParameters, { input, credentials: { testMode: 'redirect', testRecipient: '' } });
	expect(result.error?.message).toContain('Test Recipient (credential)');
	expect(sandbox.requests).toHaveLength(0);
});

test('Test Mode Off (the default): real recipients, no hint, no test fields', async () => {
	const result = await runAction(sandbox, textParameters, { input });
	expect(sandbox.messages.map((m) => m.phone)).toEqual(['+4915100000001', '+4915100000002']);
	expect(result.items[0].json.testMode).toBeUndefined();
	expect(hints(result)).toEqual([]);
});

test('other operations are not affected by Dry Run', async () => {
	const result = await runAction(sandbox, { resource: 'contact', operation: 'getAll', returnAll: false, limit: 2 }, {
		credentials: { testMode: 'dryRun' },
	});
	expect(result.items).toHaveLength(2);
	expect(sandbox.requests).toHaveLength(1);
});
