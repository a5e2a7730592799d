/**
 * The operation contract: every operation of the action node is run against the sandbox, and each one
 * that sends a message (a request to /w/message/*) must declare it (kind 'send' or 'sendAndWait'), so
 * the router applies Allowed Recipients, the no-double-send guard, Test Mode and pacing to it. A new
 * operation without a sample below fails here too: add one that reaches the service.
 */
import type { INodeParameters } from 'n8n-workflow';

import { operationsByResource } from '../../nodes/BusinessMessaging/actions/router';
import { runAction } from '../helpers/actionNode';
import type { RunNodeInputItem } from '../helpers/engine';
import { useSandbox } from '../helpers/useSandbox';
import type { Sandbox } from '../../tools/sandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

const PHONE = '+4915112345678';
const TEMPLATE = { __rl: true, mode: 'id', value: '1' };

/** Parameters (and input) with which each operation reaches the service. */
const samples: Record<string, { parameters: INodeParameters; input?: RunNodeInputItem[] }> = {
	'contact.getAll': { parameters: { returnAll: true } },
	'message.sendAndWait': { parameters: { phone: PHONE, message: 'Approve?' } },
	'message.sendMedia': {
		parameters: { phone: PHONE, mediaType: 'document', binaryPropertyName: 'data' },
		input: [{ json: {}, binary: { data: { data: Buffer.from('%PDF-1.4'), fileName: 'a.pdf', mimeType: 'application/pdf' } } }],
	},
	'message.sendText': { parameters: { phone: PHONE, text: 'Hello' } },
	'order.getAll': { parameters: { returnAll: true } },
	'order.update': { parameters: { orderId: 1, updateFields: { status: 'accepted' } } },
	'template.get': { parameters: { templateId: TEMPLATE } },
	'template.getAll': { parameters: { returnAll: true } },
	'template.render': { parameters: { templateId: TEMPLATE } },
	'webhook.sendTest': { parameters: {} },
};

const operations = Object.entries(operationsByResource).flatMap(([resource, byName]) =>
	Object.entries(byName).map(([name, operation]) => [`${resource}.${name}`, operation] as const),
);

test('every operation of the node has a sample here', () => {
	expect(operations.map(([name]) => name).sort()).toEqual(Object.keys(samples).sort());
});

test.each(operations)('%s declares that it sends exactly when it posts a message', async (name, operation) => {
	const [resource, operationName] = name.split('.');
	const { parameters, input } = samples[name];
	await runAction(sandbox, { resource, operation: operationName, ...parameters }, { input });
	const requests = sandbox.requests.map((request) => `${request.method} ${request.path}`);
	expect(requests.length).toBeGreaterThan(0);
	const postsMessage = requests.some((request) => request.startsWith('POST /w/message/'));
	expect({ name, postsMessage, declaredKind: operation.kind }).toEqual({
		name,
		postsMessage,
		declaredKind: postsMessage ? expect.stringMatching(/^(send|sendAndWait)$/) : 'request',
	});
});
