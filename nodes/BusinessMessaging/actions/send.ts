import type { IDataObject, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkAllowedRecipient, runsAsAgentTool } from '../helpers/agentLimits';
import { type JsonValue, messageKey } from '../helpers/messageKey';
import { multipartBody } from '../helpers/multipart';
import { waitForSlot } from '../helpers/pacing';
import { DEFAULT_PARALLEL_REQUESTS, MAX_PARALLEL_REQUESTS, runByRecipient } from '../helpers/parallel';
import type { RunState } from '../helpers/runState';
import { getSender } from '../helpers/sender';
import { type OutgoingMessage, startSendGuard } from '../helpers/sendOnce';
import { announceTestMode, deliveryPhone, markTestMode, type TestModeSetting, testModeOf } from '../helpers/testMode';
import { getCredential } from '../transport';
import { postMessage, signMessageOnly } from '../transport/message';
import type { Message, MessageRequest, SendAndWaitOperation, SendOperation } from './operation';

/**
 * The send pipeline: the one path from an operation's declaration (actions/operation.ts) to a message
 * request. Every rule of a send is applied here, so an operation cannot leave one out.
 */

/** Runs one item's work and keeps its output or error with the item (the router's item loop). */
export type RunItem = (itemIndex: number, work: () => Promise<IDataObject | IDataObject[]>) => Promise<void>;

/** What the credential and the node's options say for every message of this execution. */
interface SendRules {
	testMode: TestModeSetting;
	/** Waits for the message's turn at the run's gate (option Max Messages per Second). */
	pace: () => Promise<void>;
}

async function sendRules(run: RunState): Promise<SendRules> {
	const ctx = run.ctx;
	const testMode = testModeOf(ctx, await getCredential(run));
	announceTestMode(ctx, testMode);
	const perSecond = Number(ctx.getNodeParameter('options.maxMessagesPerSecond', 0, 0));
	return { testMode, pace: async () => await waitForSlot(run.pacing, perSecond) };
}

/** The recipient's field, written by the pipeline only. */
const RECIPIENT_FIELD = 'phone';

/** The request's fields with the recipient the pipeline chose, never one the operation wrote. */
function addressed(request: MessageRequest, to: string): Record<string, JsonValue> {
	const fields: Record<string, JsonValue> = { [RECIPIENT_FIELD]: to };
	for (const [name, value] of Object.entries(request.fields)) if (name !== RECIPIENT_FIELD) fields[name] = value;
	return fields;
}

/**
 * Sends one message request to `to`: the recipient field, the sender, the body (JSON, or multipart with
 * the item's file), then the dry run (signed, not sent) or the request itself at its turn.
 */
async function deliver(run: RunState, itemIndex: number, request: MessageRequest, to: string, rules: SendRules): Promise<IDataObject> {
	const sender = await getSender(run, itemIndex, true);
	const fields = addressed(request, to);
	const options = { qs: { phone_number_id: sender }, itemIndex };
	const withBody = request.file
		? await multipartBody(run.ctx, itemIndex, fields, request.file).then(({ body, contentType }) => ({
				...options,
				body,
				headers: { 'Content-Type': contentType },
			}))
		: { ...options, body: fields };
	if (rules.testMode.mode === 'dryRun') return await signMessageOnly(run, request.path, withBody);
	return await postMessage(run, request.path, { ...withBody, beforeAttempt: rules.pace });
}

/** The service's answer to a send, without its envelope. */
function answerData(answer: IDataObject): IDataObject {
	return (answer.data as IDataObject | undefined) ?? answer;
}

/**
 * Kind `send`: every item, recipients in parallel (option Parallel Requests), each recipient's items in
 * item order. Returns the first error when the router's item loop stopped on one.
 */
export async function sendEach(run: RunState, operation: SendOperation, itemCount: number, runItem: RunItem): Promise<Error | undefined> {
	const ctx = run.ctx;
	const rules = await sendRules(run);
	const asAgentTool = runsAsAgentTool(ctx);
	const recipients = new Map<number, { phone?: string; error?: Error }>();
	const recipientAt = (itemIndex: number): string => {
		let found = recipients.get(itemIndex);
		if (!found) {
			try {
				found = { phone: operation.recipientOf(run, itemIndex) };
			} catch (error) {
				found = { error: error as Error };
			}
			recipients.set(itemIndex, found);
		}
		if (found.error) throw found.error;
		return found.phone!;
	};
	const messages = new Map<number, Promise<OutgoingMessage & { message: Message }>>();
	const messageAt = (itemIndex: number) => {
		let found = messages.get(itemIndex);
		if (!found) {
			found = (async () => {
				const phone = recipientAt(itemIndex);
				const message = await operation.messageOf(run, itemIndex);
				// The guard knows the message by what is sent, never by anything the operation wrote for it.
				return { phone, message, key: await messageKey(ctx, itemIndex, message) };
			})();
			messages.set(itemIndex, found);
		}
		return found;
	};
	// Read ahead while the lanes wait for the service; a failure is reported by the item's own send.
	const prepare = async (itemIndex: number) => {
		await messageAt(itemIndex).catch(() => undefined);
	};
	const guard = await startSendGuard(run, itemCount, messageAt, rules.testMode.mode);
	const sendItem = async (itemIndex: number) =>
		await runItem(itemIndex, async () => {
			const recipient = recipientAt(itemIndex);
			// An agent's sends stay within the author's Allowed Recipients.
			if (asAgentTool) checkAllowedRecipient(run, itemIndex, recipient);
			return await guard.send(itemIndex, async ({ phone, message }) => {
				const answer = await deliver(run, itemIndex, message, deliveryPhone(rules.testMode, phone), rules);
				return markTestMode(rules.testMode, { ...answerData(answer), ...message.shown }, phone);
			});
		});
	const parallel = Math.min(
		Math.max(Math.floor(ctx.getNodeParameter('options.parallelRequests', 0, DEFAULT_PARALLEL_REQUESTS) as number), 1),
		MAX_PARALLEL_REQUESTS,
	);
	try {
		if (parallel > 1) return await runByRecipient(itemCount, parallel, recipientAt, sendItem, prepare);
		for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) await sendItem(itemIndex);
		return undefined;
	} finally {
		await guard.finish();
	}
}

/**
 * Kind `sendAndWait`: the one item's message, then the execution waits (actions/operation.ts). A dry run
 * sends nothing, so nobody could answer: the run goes on at once, marked.
 */
export async function sendAndWait(run: RunState, operation: SendAndWaitOperation): Promise<INodeExecutionData[][]> {
	const ctx = run.ctx;
	const items = ctx.getInputData();
	if (items.length > 1) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${operation.displayName} waits for one answer per execution, and ${items.length} items arrived`,
			{
				description:
					'n8n resumes a waiting execution once, with one answer. Put a Loop Over Items node (Batch Size 1) before this node to ask each item in turn, or call a sub-workflow holding this node once per item (Execute Workflow, Mode: Run once for each item, Wait For Sub-Workflow Completion off) to ask everyone at once.',
			},
		);
	}
	const rules = await sendRules(run);
	const recipient = operation.recipientOf(run, 0);
	if (runsAsAgentTool(ctx)) checkAllowedRecipient(run, 0, recipient);
	const to = deliveryPhone(rules.testMode, recipient);
	const question = await operation.ask(run, { recipient, to, testMode: rules.testMode.mode });
	const answer = await deliver(run, 0, question.request, to, rules);
	if (rules.testMode.mode === 'dryRun') {
		return [[{ json: markTestMode(rules.testMode, { ...answer, answer: null }, recipient), pairedItem: { item: 0 } }]];
	}
	question.sent?.(answerData(answer));
	await ctx.putExecutionToWait(question.waitUntil);
	return [items];
}

/**
 * A message a waiting node sends from its webhook to whoever it waits for (Ask and Wait for Chat Reply's
 * re-ask, after a reply that is not an expected one), from the sender the question went from. The
 * credential's Test Mode applies as it does now: the test recipient under a redirect, signed and not sent
 * in a dry run. No pacing or guard: one message per reply received, in a run of its own.
 */
export async function sendFromWebhook(
	run: RunState<IWebhookFunctions>,
	request: MessageRequest,
	recipient: string,
	sender: string,
): Promise<IDataObject> {
	const testMode = testModeOf(run.ctx, await getCredential(run));
	const options = { qs: { phone_number_id: sender }, body: addressed(request, deliveryPhone(testMode, recipient)) };
	if (testMode.mode === 'dryRun') return await signMessageOnly(run, request.path, options);
	return await postMessage(run, request.path, options);
}
