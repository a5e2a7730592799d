/**
 * Parameters (and input) with which each operation of the action node reaches the sandbox, by
 * `resource.operation`. The contract tests run every operation of the router's table with these: a new
 * operation without a sample here fails them.
 */
import type { INodeParameters } from 'n8n-workflow';

import { operationsByResource } from '../../nodes/BusinessMessaging/actions/router';
import type { Operation } from '../../nodes/BusinessMessaging/actions/operation';
import type { RunNodeInputItem } from './engine';

export const PHONE = '+4915112345678';
const TEMPLATE = { __rl: true, mode: 'id', value: '1' };
const pdf = () => ({ data: { data: Buffer.from('%PDF-1.4'), fileName: 'a.pdf', mimeType: 'application/pdf' } });

export interface Sample {
	parameters: INodeParameters;
	input?: RunNodeInputItem[];
}

export const samples: Record<string, Sample> = {
	'contact.getAll': { parameters: { returnAll: true } },
	'message.askAndWaitForReply': { parameters: { phone: PHONE, text: 'Confirm?' } },
	'message.sendAndWait': { parameters: { phone: PHONE, message: 'Approve?' } },
	'message.sendMedia': {
		parameters: { phone: PHONE, mediaType: 'document', binaryPropertyName: 'data' },
		input: [{ json: {}, binary: pdf() }],
	},
	'message.sendText': { parameters: { phone: PHONE, text: 'Hello' } },
	'order.getAll': { parameters: { returnAll: true } },
	'order.update': { parameters: { orderId: 1, updateFields: { status: 'accepted' } } },
	'template.get': { parameters: { templateId: TEMPLATE } },
	'template.getAll': { parameters: { returnAll: true } },
	'template.render': { parameters: { templateId: TEMPLATE } },
	'webhook.sendTest': { parameters: {} },
};

/**
 * For each operation that sends: parameters that take the recipient from each input item's `json.to`,
 * and the item that sends message `n` to `to`.
 */
export const sendSamples: Record<string, { parameters: INodeParameters; item: (to: string, n: number) => RunNodeInputItem }> = {
	// Its wait is registered with a Business Messaging Trigger first: the tests run one (test/helpers/conversation.ts).
	'message.askAndWaitForReply': { parameters: { phone: '={{ $json.to }}', text: 'Confirm order {{ $json.n }}?' }, item: (to, n) => ({ json: { to, n } }) },
	'message.sendAndWait': { parameters: { phone: '={{ $json.to }}', message: 'Approve?' }, item: (to, n) => ({ json: { to, n } }) },
	'message.sendMedia': {
		parameters: { phone: '={{ $json.to }}', mediaType: 'document', binaryPropertyName: 'data', caption: '={{ "file " + $json.n }}' },
		item: (to, n) => ({ json: { to, n }, binary: pdf() }),
	},
	'message.sendText': { parameters: { phone: '={{ $json.to }}', text: '={{ "Hello " + $json.n }}' }, item: (to, n) => ({ json: { to, n } }) },
};

/** Every operation of the node, from the router's table. */
export const allOperations: Array<readonly [string, Operation]> = Object.entries(operationsByResource).flatMap(([resource, byName]) =>
	Object.entries(byName).map(([name, operation]) => [`${resource}.${name}`, operation] as const),
);
