/**
 * The send contract: every operation that sends (kind 'send' or 'sendAndWait', read from the router's
 * table, so a new one is covered without editing this file) runs under Test Mode off, Send to Test
 * Recipient and Dry Run, as an AI agent's tool with Allowed Recipients, and (kind 'send') with n8n's Retry,
 * Skip Repeats Within and Max Messages per Second. What counts is what reaches the sandbox: the recipient
 * each message really got, no message request at all in a dry run, each message once, and the messages of
 * each second within the setting.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { SKIPPED_REPEAT, SKIPPED_RETRY } from '../../nodes/BusinessMessaging/helpers/sendOnce';
import { runAction, type RunActionOptions } from '../helpers/actionNode';
import type { RunResult } from '../helpers/engine';
import { startTriggerStandIn, type TriggerStandIn } from '../helpers/conversation';
import { allOperations, sendSamples } from '../helpers/operationSamples';
import { useSandbox, useSandboxProcess } from '../helpers/useSandbox';
import type { RecordedRequest, Sandbox } from '../../tools/sandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

// For pacing, the service in its own process: it notes each arrival when it comes, whatever n8n's thread is doing.
const service = useSandboxProcess();

// The Business Messaging Trigger that an operation waiting for a chat reply registers with, behind the n8n
// every run belongs to (test/helpers/conversation.ts).
let standIn: TriggerStandIn;
beforeAll(async () => (standIn = await startTriggerStandIn()));
afterAll(async () => await standIn.stop());

const CUSTOMER_A = '+4915100000001';
const CUSTOMER_B = '+4915100000002';
const TEST_RECIPIENT = '+4915199999999';

const sendOperations = allOperations.filter(([, operation]) => operation.kind !== 'request');

/** The recipient a message request really names: `phone` in its JSON body or in its form fields. */
function recipientOf(request: RecordedRequest): unknown {
	return (request.json as IDataObject | undefined)?.phone ?? request.multipart?.fields.phone;
}
const messageRequests = () => sandbox.requests.filter((request) => request.path.startsWith('/w/message/'));
const reached = () => messageRequests().map(recipientOf).sort();

/** Runs the operation for the given recipients (one item each; the send-and-wait kind takes one item). */
async function send(
	name: string,
	recipients: string[],
	options: RunActionOptions = {},
	extra: INodeParameters = {},
	to: Pick<Sandbox, 'credentials'> = sandbox,
): Promise<RunResult> {
	const [resource, operation] = name.split('.');
	const { parameters, item } = sendSamples[name];
	return await runAction(
		to,
		{ resource, operation, ...parameters, ...extra },
		{ n8nUrl: standIn.url, ...options, input: recipients.map((to, n) => item(to, n)) },
	);
}
const recipientsFor = (kind: string) => (kind === 'sendAndWait' ? [CUSTOMER_A] : [CUSTOMER_A, CUSTOMER_B]);

test('every operation that sends has a sample here (test/helpers/operationSamples.ts)', () => {
	expect(sendOperations.length).toBeGreaterThan(0);
	expect(sendOperations.map(([name]) => name).sort()).toEqual(Object.keys(sendSamples).sort());
});

describe.each(sendOperations)('%s', (name, { kind }) => {
	const recipients = recipientsFor(kind);
	const outputs = (result: RunResult) => result.items.map((item) => item.json);

	test('Test Mode off: each message reaches its real recipient, unmarked', async () => {
		const result = await send(name, recipients);
		expect(result.error).toBeUndefined();
		expect(reached()).toEqual([...recipients].sort());
		if (kind === 'send') for (const json of outputs(result)) expect(json.testMode).toBeUndefined();
	});

	test('Send to Test Recipient: every message reaches the test recipient; the output says so', async () => {
		const result = await send(name, recipients, { credentials: { testMode: 'redirect', testRecipient: TEST_RECIPIENT } });
		expect(result.error).toBeUndefined();
		expect(reached()).toEqual(recipients.map(() => TEST_RECIPIENT));
		if (kind === 'send') {
			expect(outputs(result)).toEqual(recipients.map((intendedRecipient) => expect.objectContaining({ testMode: 'redirected', intendedRecipient })));
		}
	});

	test('Dry Run: no message request at all; the output says not sent', async () => {
		const result = await send(name, recipients, { credentials: { testMode: 'dryRun' } });
		expect(result.error).toBeUndefined();
		expect(messageRequests()).toEqual([]);
		expect(outputs(result)).toEqual(
			recipients.map((intendedRecipient) => expect.objectContaining({ testMode: 'dryRun', sent: false, intendedRecipient })),
		);
	});

	test('as an AI agent’s tool: nothing reaches a recipient outside Allowed Recipients', async () => {
		const result = await send(name, [...recipients].reverse(), { asAiTool: true }, { allowedRecipients: CUSTOMER_B });
		expect(reached()).not.toContain(CUSTOMER_A);
		const refused = outputs(result).filter((json) => String(json.error ?? '').startsWith('Refused'));
		expect(refused.length).toBeGreaterThan(0);
		expect(reached()).toEqual(recipients.length > 1 ? [CUSTOMER_B] : []);
	});

	if (kind === 'send') {
		// The guard knows a message by its request (helpers/messageKey.ts): these fail for a send whose request
		// changes each time it is read (a time or random value in its fields), or that leaves out what makes two
		// messages differ. The keys below are what a failing diff shows, with what to do.
		const ONCE_EACH = 'recipients, once for each message (an item must give the same request each time it is read: no time or random value in its fields)';
		const DIFFERENT_GO = 'skipReason of two different messages to one recipient (none: what makes them differ must be in the fields sent)';
		const SAME_SKIPPED = 'skipReason of the same two messages again (both skipped: an item must give the same request each time it is read)';

		test('n8n’s Retry of a run that failed half-way sends nothing twice: the same item gives the same request each time', async () => {
			sandbox.injectFault({ delayMs: 0, count: 1, path: '/w/message/' });
			sandbox.injectFault({ status: 500, count: 1, path: '/w/message/' });
			const oneAtATime = { options: { parallelRequests: 1 } };
			const failed = await send(name, recipients, {}, oneAtATime);
			expect(failed.error?.message).toBe('The service answered 500: Internal server error.');
			const retried = await send(name, recipients, { retryOf: failed }, oneAtATime);
			expect(retried.error).toBeUndefined();
			expect({ [ONCE_EACH]: sandbox.messages.map((message) => message.phone).sort() }).toEqual({ [ONCE_EACH]: [...recipients].sort() });
			expect(outputs(retried).map((json) => json.skipReason)).toEqual([SKIPPED_RETRY, undefined]);
		});

		test('Skip Repeats Within: two different messages to one recipient both go; the same two again are skipped', async () => {
			const same = ['+4915100000091', '+4915100000091'];
			const skipRepeats = { options: { skipRepeatsWithin: 60 } };
			const first = await send(name, same, {}, skipRepeats);
			expect(first.error).toBeUndefined();
			expect({ [DIFFERENT_GO]: outputs(first).map((json) => json.skipReason) }).toEqual({ [DIFFERENT_GO]: [undefined, undefined] });
			const again = await send(name, same, {}, skipRepeats);
			expect({ [SAME_SKIPPED]: outputs(again).map((json) => json.skipReason) }).toEqual({ [SAME_SKIPPED]: [SKIPPED_REPEAT, SKIPPED_REPEAT] });
			expect(sandbox.messages).toHaveLength(2);
		});

		test('Max Messages per Second: no second holds more messages than the setting', async () => {
			const rate = 5;
			const many = Array.from({ length: 8 }, (_, i) => `+49151000001${String(i).padStart(2, '0')}`);
			const since = await service.mark();
			const result = await send(name, many, {}, { options: { maxMessagesPerSecond: rate } }, service);
			expect(result.error).toBeUndefined();
			const arrivals = (await service.requests(since))
				.filter((request) => request.path.startsWith('/w/message/'))
				.map((request) => Date.parse(request.receivedAt))
				.sort((a, b) => a - b);
			expect(arrivals).toHaveLength(many.length);
			const mostInOneSecond = Math.max(...arrivals.map((at) => arrivals.filter((other) => other >= at && other - at < 1000).length));
			// Requests leave the gate 1/rate apart; one may arrive a moment late and share a second with the next
			// rate (test/nodes/pacing.test.ts). Unpaced, all 8 arrive within one second.
			expect(mostInOneSecond).toBeLessThanOrEqual(rate + 1);
		});
	}
});
