/**
 * The operation contract: every operation of the action node is run against the sandbox, and each one
 * that sends a message (a request to /w/message/*) must declare it (kind 'send' or 'sendAndWait'), so
 * the send pipeline applies Allowed Recipients, the no-double-send guard, Test Mode and pacing to it
 * (test/nodes/sendContract.test.ts runs each such operation under every mode). A new operation without a
 * sample in test/helpers/operationSamples.ts fails here too: add one that reaches the service.
 */
import { runAction } from '../helpers/actionNode';
import { startTriggerStandIn, type TriggerStandIn } from '../helpers/conversation';
import { allOperations as operations, samples } from '../helpers/operationSamples';
import { useSandbox } from '../helpers/useSandbox';
import type { Sandbox } from '../../tools/sandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));
// The Business Messaging Trigger the waiting operations register with (test/helpers/conversation.ts).
let standIn: TriggerStandIn;
beforeAll(async () => (standIn = await startTriggerStandIn()));
afterAll(async () => await standIn.stop());

test('every operation of the node has a sample (test/helpers/operationSamples.ts)', () => {
	expect(operations.map(([name]) => name).sort()).toEqual(Object.keys(samples).sort());
});

test.each(operations)('%s declares that it sends exactly when it posts a message', async (name, operation) => {
	const [resource, operationName] = name.split('.');
	const { parameters, input } = samples[name];
	const result = await runAction(sandbox, { resource, operation: operationName, ...parameters }, { input, n8nUrl: standIn.url });
	const requests = sandbox.requests.map((request) => `${request.method} ${request.path}`);
	// When nothing reached the service, the run's error says why and what to do (a message path the transport
	// refused, a field the sample leaves empty).
	const whyNothing = requests.length === 0 ? (result.error?.message ?? 'no request and no error') : undefined;
	expect({ name, whyNothing }).toEqual({ name, whyNothing: undefined });
	const postsMessage = requests.some((request) => request.startsWith('POST /w/message/'));
	expect({ name, postsMessage, declaredKind: operation.kind }).toEqual({
		name,
		postsMessage,
		declaredKind: postsMessage ? expect.stringMatching(/^(send|sendAndWait)$/) : 'request',
	});
});
