/**
 * Workflows of the queue-mode suite and benchmark: the shipped duplicate-safety example (read from
 * examples/, so what is tested is what users import), n8n's Remove Duplicates node after the trigger,
 * and the bare trigger. Built with the e2e driver's builders.
 */
import { REDIS_CREDENTIAL } from '../../tools/n8n/queue-stack';
import { chain, node, type WfNode, type Workflow } from '../../tools/n8n/workflow';
import { action, CREDENTIAL_TYPE, type CredentialRef, exampleWorkflow, TRIGGER_TYPE } from '../../tools/n8n/workflows';

export const EXAMPLE_FILE = 'queue-mode-deduplication.json';
export const TRIGGER_NODE = 'Business Messaging Trigger';
/** The example's node that only the first delivery of an event reaches. */
export const FIRST_DELIVERY_NODE = 'Event';
export const REMOVE_DUPLICATES_NODE = 'Remove Duplicates';
export const REDIS_CREDENTIAL_TYPE = 'redis';

/**
 * The shipped example with this deployment's credentials and webhook id; `then` nodes are appended after
 * its "Event" node (e.g. a reply through the action node).
 */
export function dedupExampleWorkflow(
	key: string,
	credential: CredentialRef,
	webhookId: string,
	then: WfNode[] = [],
): Workflow {
	const wf = exampleWorkflow(EXAMPLE_FILE, `queueDedup${key}`, { [CREDENTIAL_TYPE]: credential, [REDIS_CREDENTIAL_TYPE]: REDIS_CREDENTIAL }, webhookId);
	let last = FIRST_DELIVERY_NODE;
	for (const n of then) {
		wf.nodes.push(n);
		wf.connections[last] = { main: [[{ node: n.name, type: 'main', index: 0 }]] };
		last = n.name;
	}
	return wf;
}

/** A reply to an incoming message, from the event the example's "Event" node puts back. */
export function replyNode(credential: CredentialRef): WfNode {
	return action('Send Reply', credential, {
		resource: 'message',
		operation: 'sendText',
		phone: '={{ $json.data.from }}',
		text: '=Got "{{ $json.data.body }}" once.',
	});
}

export function triggerNode(credential: CredentialRef, webhookId: string, options: Record<string, unknown> = {}): WfNode {
	return node(TRIGGER_NODE, TRIGGER_TYPE, 2, { events: ['*'], options }, {
		credentials: { [CREDENTIAL_TYPE]: credential },
		webhookId,
	});
}

/** The trigger alone, its own duplicate store on (the default). */
export function bareTriggerWorkflow(key: string, credential: CredentialRef, webhookId: string): Workflow {
	return chain(`queueBare${key}`, `Queue: trigger alone (${key})`, [triggerNode(credential, webhookId)]);
}

/** The README's earlier advice: n8n's Remove Duplicates node on `deliveryKey`, right after the trigger. */
export function removeDuplicatesWorkflow(key: string, credential: CredentialRef, webhookId: string): Workflow {
	return chain(`queueRemoveDup${key}`, `Queue: Remove Duplicates node (${key})`, [
		triggerNode(credential, webhookId, { allowDuplicates: true }),
		node(REMOVE_DUPLICATES_NODE, 'n8n-nodes-base.removeDuplicates', 2, {
			operation: 'removeItemsSeenInPreviousExecutions',
			logic: 'removeItemsWithAlreadySeenKeyValues',
			dedupeValue: '={{ $json.deliveryKey }}',
			options: {},
		}),
	]);
}
