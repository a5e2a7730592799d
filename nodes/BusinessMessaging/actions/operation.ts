import type {
	IDataObject,
	INodeExecutionData,
	INodeProperties,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import type { RunState } from '../helpers/runState';
import type { MessageOf } from '../helpers/sendOnce';

/**
 * What one operation does for one item; the router runs it for each item, with the run's shared state
 * (`run.ctx` is n8n's execute context).
 */
type ExecuteItem = (run: RunState, itemIndex: number) => Promise<IDataObject | IDataObject[]>;

/** A call to the service that sends nothing to a customer: reads, the order update, the webhook test. */
export interface RequestOperation {
	kind: 'request';
	description: INodeProperties[];
	execute: ExecuteItem;
}

/**
 * A message to a recipient. Declaring it is what makes the router apply, to every item: the AI agent's
 * Allowed Recipients, the no-double-send guard, the credential's Test Mode notice and marks, and
 * parallel sending per recipient. An operation that posts to /w/message/* without this kind fails
 * test/nodes/operations.test.ts.
 */
export interface SendOperation {
	kind: 'send';
	description: INodeProperties[];
	execute: ExecuteItem;
	/** Items with the same recipient go out one after another, in item order, also in parallel. */
	recipientOf: (run: RunState, itemIndex: number) => string;
	/** What an item sends, so a retry or a repeat is not sent again. */
	messageOf: MessageOf;
}

/**
 * One message, then the whole execution waits for the recipient's answer through n8n's waiting
 * webhook: it takes all items at once (`executeAll`), and the node's webhook goes to `webhook`.
 */
export interface SendAndWaitOperation {
	kind: 'sendAndWait';
	description: INodeProperties[];
	executeAll: (run: RunState) => Promise<INodeExecutionData[][]>;
	webhook: (this: IWebhookFunctions) => Promise<IWebhookResponseData>;
	/**
	 * Whether the execution a webhook request resumes waits at this node for this operation (what the
	 * node kept when it asked). The operation without it takes every other request (the answer link).
	 */
	waitsHere?: (ctx: IWebhookFunctions) => boolean;
}

export type Operation = RequestOperation | SendOperation | SendAndWaitOperation;

