import type {
	IDataObject,
	INodeProperties,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import type { JsonValue } from '../helpers/messageKey';
import type { BinaryFile } from '../helpers/multipart';
import type { RunState } from '../helpers/runState';
import type { TestMode } from '../helpers/testMode';
import type { MessagePath } from '../transport';

/**
 * What an operation is. The router runs each item through it; for the two kinds that send a message to
 * a customer, the operation only declares *what* it sends and *to whom*, and the send pipeline
 * (actions/send.ts) sends it with every safety rule. An operation cannot reach a message endpoint any
 * other way: `apiRequest` refuses one (a type error for a literal path, an error before sending for
 * another), and only actions/send.ts may import transport/message.ts (.dependency-cruiser.cjs).
 */
export type Operation = RequestOperation | SendOperation | SendAndWaitOperation;

/** A call to the service that sends nothing to a customer: reads, the order update, the webhook test. */
export interface RequestOperation {
	kind: 'request';
	description: INodeProperties[];
	/** What the operation does for one item (`run.ctx` is n8n's execute context). */
	execute: (run: RunState, itemIndex: number) => Promise<IDataObject | IDataObject[]>;
}

/**
 * The item's recipient, in international format and checked (an error naming the field otherwise).
 * Allowed Recipients, the Test Mode output's `intendedRecipient`, the no-double-send guard and the
 * per-recipient order all use this, never a field name.
 */
export type RecipientOf = (run: RunState, itemIndex: number) => string;

/**
 * The request that sends a message. It never names the recipient: the pipeline adds `phone` (the real
 * recipient, or the credential's test recipient) and the sender (`phone_number_id`), so an operation
 * cannot send past Test Mode.
 */
export interface MessageRequest {
	/** The service's endpoint for this kind of message. */
	path: MessagePath;
	/**
	 * The request's fields other than the recipient: a JSON body (any JSON value: a text, a number such
	 * as a latitude, a list), or the form fields beside `file` (a value that is not a string as its JSON).
	 */
	fields: Record<string, JsonValue> & { phone?: never };
	/** A file from the item's binary data: the message is then sent as multipart/form-data. */
	file?: BinaryFile;
}

/** What an item sends: its request, and what the item's output shows of it beside the service's answer. */
export interface Message extends MessageRequest {
	/** Added to the item's output (the template a text came from, the text sent); never sent. */
	shown?: IDataObject;
}

/**
 * A message to a recipient, one per item. Declaring it gives every item, in this order (actions/send.ts):
 * the recipient checked (`recipientOf`) and, as an AI agent's tool, Allowed Recipients; the no-double-send
 * guard (retries, Skip Repeats Within); Test Mode (the redirect to the test recipient, the dry run that
 * sends nothing, their output marks and the editor's notice); the sender; pacing (Max Messages per
 * Second); Parallel Requests with each recipient's items in item order; retries only when the service
 * cannot have sent it.
 */
export interface SendOperation {
	kind: 'send';
	description: INodeProperties[];
	recipientOf: RecipientOf;
	/**
	 * What the item sends, its fields checked (an error naming the field otherwise). The no-double-send
	 * guard recognises a message by exactly this request (helpers/messageKey.ts), so there is no key to
	 * write: what is sent is what counts. The item's output is the service's answer (its `data`) and `shown`.
	 */
	messageOf: (run: RunState, itemIndex: number) => Message | Promise<Message>;
}

/** Who a send-and-wait message is for, and where it really goes (the test recipient under Test Mode). */
export interface Delivery {
	recipient: string;
	to: string;
	/** The credential's Test Mode: in a dry run nothing is sent and nothing waits, so nothing should be prepared to wait. */
	testMode: TestMode;
}

/** A question ready to go: its request and when the wait ends without an answer. */
export interface PreparedQuestion {
	request: MessageRequest;
	waitUntil: Date;
	/**
	 * Called with the service's answer (its `data`) once the question is sent, before the execution is put
	 * to wait (never in a dry run): what the wait keeps of the sent message.
	 */
	sent?: (answer: IDataObject) => void;
}

/**
 * One message, then the execution waits for an answer (n8n's waiting executions, which resume once):
 * the kind takes one item per execution. The pipeline (`sendAndWait` in actions/send.ts) refuses more,
 * checks Allowed Recipients, applies Test Mode (a dry run sends nothing and does not wait), paces, sends
 * `ask`'s request and puts the execution to wait until `waitUntil`. The answer comes back through the
 * node's webhook (`webhook`), or whatever else resumes the execution. No send guard: a retried execution
 * needs a new question, since the earlier link answers an execution that failed.
 */
export interface SendAndWaitOperation {
	kind: 'sendAndWait';
	/** The operation's name, for its messages ("… waits for one answer per execution"). */
	displayName: string;
	description: INodeProperties[];
	recipientOf: RecipientOf;
	/**
	 * Checks the item and prepares the wait, before anything is sent. `delivery.to` is where the message
	 * goes: a wait for a reply from the recipient listens to that number.
	 */
	ask: (run: RunState, delivery: Delivery) => Promise<PreparedQuestion>;
	/**
	 * The answer coming back through the node's own waiting webhook (Send and Wait for Response's link,
	 * or the reply the trigger hands to Ask and Wait for Chat Reply's resume address).
	 */
	webhook?: (run: RunState<IWebhookFunctions>) => Promise<IWebhookResponseData>;
	/**
	 * Whether the execution a webhook request resumes waits at this node for this operation (what the
	 * node kept when it asked). The operation with a webhook and without this takes every other request.
	 */
	waitsHere?: (run: RunState<IWebhookFunctions>) => boolean;
}
