/**
 * Workflows of the queue-mode suite and benchmark: the shipped duplicate-safety example (read from
 * examples/, so what is tested is what users import), n8n's Remove Duplicates node after the trigger,
 * and the bare trigger. Built with the e2e driver's builders.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { n8nId, REPO_ROOT } from '../e2e/lib/n8n';
import { REDIS_CREDENTIAL } from '../e2e/lib/queue-stack';
import { chain, node, type WfNode, type Workflow } from '../e2e/lib/workflow';
import { action, CREDENTIAL_TYPE, type CredentialRef, TRIGGER_TYPE } from '../e2e/lib/workflows';

export const EXAMPLE_FILE = join(REPO_ROOT, 'examples/queue-mode-deduplication.json');
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
	const example = JSON.parse(readFileSync(EXAMPLE_FILE, 'utf8')) as Omit<Workflow, 'id' | 'active'>;
	const nodes = example.nodes.map((n) => {
		const copy: WfNode = { ...n, parameters: structuredClone(n.parameters) };
		if (n.credentials?.[CREDENTIAL_TYPE]) copy.credentials = { [CREDENTIAL_TYPE]: credential };
		if (n.credentials?.[REDIS_CREDENTIAL_TYPE]) copy.credentials = { [REDIS_CREDENTIAL_TYPE]: REDIS_CREDENTIAL };
		if (n.type === TRIGGER_TYPE) copy.webhookId = webhookId;
		return copy;
	});
	const connections = structuredClone(example.connections);
	let last = FIRST_DELIVERY_NODE;
	for (const n of then) {
		nodes.push(n);
		connections[last] = { main: [[{ node: n.name, type: 'main', index: 0 }]] };
		last = n.name;
	}
	return { ...example, id: n8nId(`queueDedup${key}`), name: `${example.name} (${key})`, active: false, nodes, connections };
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
