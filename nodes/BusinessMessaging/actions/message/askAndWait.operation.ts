import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions, WAIT_INDEFINITELY } from 'n8n-workflow';

import { phoneKey, type ReplyOutcome } from '../../../shared/sharing';
import { secretIn } from '../../../shared/webhookSecret';
import { keepInContext, readFromContext } from '../../helpers/nodeContext';
import { expectedAnswers, matchingAnswer } from '../../helpers/replyMatching';
import { phoneFieldRecipient } from '../../helpers/recipient';
import type { RunState } from '../../helpers/runState';
import { getSender } from '../../helpers/sender';
import { answer, signedRequest, waitIdOf } from '../../helpers/signedResume';
import { placeholdersOf, renderItemTemplate } from '../../helpers/templates';
import { checkTrigger, newWaitId, registerWait, triggerLink } from '../../helpers/triggerLink';
import { checkNotEmpty, checkPhone } from '../../helpers/validation';
import { getCredential } from '../../transport';
import { messageSourceFields, optionsField, recipientField, senderField } from '../common.descriptions';
import type { Delivery, Operation, PreparedQuestion } from '../operation';
import { sendFromWebhook } from '../send';
import { limitWaitTimeOption, waitUntilOf } from './sendAndWait.operation';

/**
 * Message → Ask and Wait for Chat Reply: sends a question (text, or a template's body) and pauses the
 * run until the customer answers in the chat. The Business Messaging Trigger with Share With Other Workflows
 * on gets the reply from the service and hands it, signed as the service signed it, to this node's
 * resume address; this node checks the signature itself, so nobody who learns the address can resume
 * the run (docs/conversations.md).
 */

const show = (values: Record<string, string[]>) => ({ show: values });

const ANY_REPLY = { name: 'Any Reply', value: 'any', description: 'The customer’s next message resumes the run' };
const THESE_REPLIES = { name: 'These Replies', value: 'list', description: 'Only one of the replies listed below resumes the run' };

/** Options → Only Count Replies To: the reply's `to` the run waits for (the service maps no phone_number_id to it). */
const REPLIES_TO = 'Only Count Replies To';

const properties: INodeProperties[] = [
	{
		// One short line, so the first field stays in view; the rest is said where it applies (Recipient
		// Phone's hint, Limit Wait Time's description) and in docs/conversations.md.
		displayName:
			'The reply comes through your Business Messaging Trigger: turn on its Share With Other Workflows and activate its workflow',
		name: 'askNotice',
		type: 'notice',
		default: '',
	},
	{ ...senderField },
	{
		...recipientField,
		hint: 'If several runs wait for this customer’s reply, the newest question gets it',
	},
	...messageSourceFields({
		text: 'Ask with the text you enter',
		template: 'Ask with an approved template’s body, its placeholders filled',
	}),
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		required: true,
		typeOptions: { rows: 4 },
		default: '',
		placeholder: 'e.g. Your order 1234 is ready: reply YES to confirm or NO to cancel',
		displayOptions: show({ textSource: ['text'] }),
	},
	{
		displayName: 'Expected Replies',
		name: 'expectedReplies',
		type: 'options',
		default: 'any',
		options: [ANY_REPLY, THESE_REPLIES],
		displayOptions: show({ textSource: ['text'] }),
	},
	{
		// The same field for a template, where its quick-reply buttons are the default.
		displayName: 'Expected Replies',
		name: 'expectedReplies',
		type: 'options',
		default: 'buttons',
		options: [
			ANY_REPLY,
			{ name: 'The Template’s Quick-Reply Buttons', value: 'buttons', description: 'A reply with the text of one of the template’s buttons resumes the run' },
			THESE_REPLIES,
		],
		displayOptions: show({ textSource: ['template'] }),
	},
	{
		displayName: 'Replies',
		name: 'acceptedReplies',
		type: 'string',
		typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Reply' },
		default: [],
		placeholder: 'e.g. YES',
		description: 'Compared the way people type: case, accents, spaces and punctuation or emoji around the words do not matter',
		displayOptions: show({ expectedReplies: ['list'] }),
	},
	{
		displayName: 'On Another Reply',
		name: 'onUnexpectedReply',
		type: 'options',
		default: 'keepWaiting',
		options: [
			{ name: 'Keep Waiting', value: 'keepWaiting', description: 'The run waits for an expected reply; the message starts the trigger’s workflow as any other' },
			{ name: 'Continue', value: 'continue', description: 'The run goes on with the reply, its answer empty' },
		],
		displayOptions: show({ expectedReplies: ['buttons', 'list'] }),
	},
	{
		displayName: 'Ask Again With',
		name: 'reaskText',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		placeholder: 'e.g. Please reply YES or NO',
		description: 'Sent to the customer after a reply that is not one of the expected ones. Empty sends nothing.',
		displayOptions: show({ expectedReplies: ['buttons', 'list'], onUnexpectedReply: ['keepWaiting'] }),
	},
	{
		...optionsField,
		options: [
			{
				...limitWaitTimeOption,
				description:
					'When no reply came by then, the run goes on with one item whose replied is false (its reply and answer empty)',
			},
			{
				displayName: REPLIES_TO,
				name: 'senderPhone',
				type: 'string',
				default: '',
				placeholder: 'e.g. +15559990000',
				description:
					'Your number as the customer sees it, the one the question comes from. Set it when you send from several numbers: only a reply to this number then counts. Empty: a reply to any of your numbers counts.',
			},
			...(optionsField.options as INodeProperties[]),
		],
	},
];

const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['askAndWaitForReply'] } }, properties);

/** What the waiting run keeps about its question (node context): the webhook decides with it alone. */
interface WaitingReply {
	id: string;
	/** Who the question went to and who replies (the test recipient when Test Mode redirects). */
	customer: string;
	/** The real recipient, when Test Mode sent the question to the test recipient. */
	intendedRecipient?: string;
	/** The sender's phone number the reply must go to (Only Count Replies To); '' for any. */
	senderPhone: string;
	/** The sender (phone_number_id), for asking again. */
	senderId: string;
	askedAt: number;
	/** The expected answers as written, or null for any reply. */
	expected: string[] | null;
	onUnexpected: 'keepWaiting' | 'continue';
	reask: string;
	question: IDataObject;
}

const CONTEXT_FIELD = 'waitingReply';

/**
 * How much earlier than the question a reply's time may be (the service's clock against n8n's): a
 * message written before the question was asked (a late retry of an earlier one) is no answer to it.
 */
const CLOCK_SKEW_MS = 60_000;

/** The question's text: typed, or the chosen template's body filled in. */
async function questionOf(run: RunState): Promise<{ text: string; template?: IDataObject }> {
	if (run.ctx.getNodeParameter('textSource', 0, 'text') !== 'template') {
		return { text: checkNotEmpty(run.ctx, { label: 'Text', itemIndex: 0 }, run.ctx.getNodeParameter('text', 0, '')) };
	}
	const { template, rendered } = await renderItemTemplate(run, 0);
	return { text: rendered.body, template };
}

/** The quick-reply buttons' texts of a template, as the customer would tap them. */
function quickReplies(template: IDataObject): string[] {
	const components = Array.isArray(template.components) ? (template.components as IDataObject[]) : [];
	return components
		.filter((c) => String(c.type ?? '').toUpperCase() === 'BUTTONS' && Array.isArray(c.buttons))
		.flatMap((c) => c.buttons as IDataObject[])
		.filter((b) => String(b.type ?? '').toUpperCase() === 'QUICK_REPLY' && typeof b.text === 'string')
		.map((b) => String(b.text));
}

/** The expected answers, or null for any reply; refusals name the field. */
function expectedOf(ctx: IExecuteFunctions, template?: IDataObject): string[] | null {
	const mode = ctx.getNodeParameter('expectedReplies', 0, template ? 'buttons' : 'any');
	if (mode === 'any') return null;
	if (mode === 'buttons') {
		const buttons = expectedAnswers(quickReplies(template!));
		if (buttons.length === 0) {
			const placeholders = placeholdersOf(template!).filter((p) => p.key.startsWith('button'));
			throw new NodeOperationError(ctx.getNode(), `Expected Replies: template "${String(template!.name)}" has no quick-reply buttons`, {
				itemIndex: 0,
				description: placeholders.length
					? 'Its buttons hold placeholders: choose These Replies and list the replies, or Any Reply.'
					: 'Choose These Replies and list the replies, or Any Reply.',
			});
		}
		return buttons;
	}
	const listed = ctx.getNodeParameter('acceptedReplies', 0, []) as unknown;
	const answers = expectedAnswers(Array.isArray(listed) ? listed : [listed]);
	if (answers.length === 0) {
		throw new NodeOperationError(ctx.getNode(), 'Replies: the list of expected replies is empty', {
			itemIndex: 0,
			description: 'Add at least one reply with letters or digits, or choose Any Reply under Expected Replies.',
		});
	}
	return answers;
}

function webhookSecretOf(ctx: IExecuteFunctions, credentials: IDataObject): string {
	const secret = secretIn(credentials);
	if (secret !== '') return secret;
	throw new NodeOperationError(ctx.getNode(), 'Webhook Secret (credential): empty', {
		description:
			'Ask and Wait for Chat Reply checks the customer’s reply with the Webhook Secret from your service’s dashboard, the same as the Business Messaging Trigger’s. Fill it in the credential. Nothing was sent.',
	});
}

/** The item the node outputs: the reply (or none), the answer it matched, the question, the wait. */
function outputOf(waiting: WaitingReply, reply: IDataObject | null, answer: string | null, nowMs: number): IDataObject {
	const json: IDataObject = {
		replied: reply !== null,
		answer,
		reply,
		question: waiting.question,
		waitedSeconds: Math.max(0, Math.round((nowMs - waiting.askedAt) / 1000)),
	};
	if (waiting.intendedRecipient) Object.assign(json, { testMode: 'redirected', intendedRecipient: waiting.intendedRecipient });
	return json;
}

/**
 * Checks every field, and registers the wait with the trigger (which must be there and share the Webhook
 * Secret) before the send pipeline sends the question (actions/send.ts) and puts the run to wait. Nothing
 * is sent when any of that fails. Under Test Mode's redirect the question goes to the test recipient, so
 * the reply that counts is the test recipient's (`to`); a dry run only checks the trigger.
 */
async function ask(run: RunState, { recipient, to, testMode }: Delivery): Promise<PreparedQuestion> {
	const ctx = run.ctx;
	const field = (label: string) => ({ label, itemIndex: 0 });
	const senderPhoneText = String(ctx.getNodeParameter('options.senderPhone', 0, '') ?? '').trim();
	const senderPhone = senderPhoneText ? checkPhone(ctx, field(REPLIES_TO), senderPhoneText) : '';
	const { text, template } = await questionOf(run);
	const expected = expectedOf(ctx, template);
	const onUnexpected = ctx.getNodeParameter('onUnexpectedReply', 0, 'keepWaiting') === 'continue' ? 'continue' : 'keepWaiting';
	const reask = onUnexpected === 'keepWaiting' && expected ? String(ctx.getNodeParameter('reaskText', 0, '') ?? '').trim() : '';
	const until = waitUntilOf(ctx);
	const senderId = (await getSender(run, 0, true))!;
	const secret = webhookSecretOf(ctx, await getCredential(run));
	const id = newWaitId();
	const link = triggerLink(ctx, id);
	const question = { request: { path: '/w/message/text' as const, fields: { body: text } }, waitUntil: until };

	// A dry run sends nothing and so waits for nothing: it only checks that the trigger is there.
	if (testMode === 'dryRun') {
		await checkTrigger(ctx, link, secret);
		return question;
	}

	const askedAt = Date.now();
	await registerWait(ctx, link, secret, {
		id,
		customer: to,
		sender: senderPhone,
		resumeUrl: link.resumeUrl,
		until: until.getTime() === WAIT_INDEFINITELY.getTime() ? 0 : until.getTime(),
		askedAt,
	});
	const sent = (answer: IDataObject) => {
		const waiting: WaitingReply = {
			id,
			customer: to,
			...(testMode === 'redirect' ? { intendedRecipient: recipient } : {}),
			senderPhone,
			senderId,
			askedAt,
			expected,
			onUnexpected,
			reask,
			question: {
				message_id: answer.message_id ?? null,
				to,
				// The number it came from when Only Count Replies To names it; the sender's ID always.
				...(senderPhone ? { from: senderPhone } : {}),
				phone_number_id: senderId,
				body: text,
				...(template ? { template: { id: template.id, name: template.name } } : {}),
				askedAt: new Date(askedAt).toISOString(),
			},
		};
		keepInContext(ctx, CONTEXT_FIELD, waiting);
		// What n8n outputs when the limit passes: it then runs this node disabled, which passes on the node's
		// input (workflow-execute.js, handleWaitingState). So the input becomes the no-reply item: never the
		// item that came in, which may be an earlier reply of a chained question.
		const limitAt = until.getTime() === WAIT_INDEFINITELY.getTime() ? askedAt : until.getTime();
		ctx.getExecuteData().data = { main: [[{ json: outputOf(waiting, null, null, limitAt), pairedItem: { item: 0 } }]] };
	};
	return { ...question, sent };
}

const other = (ctx: IWebhookFunctions, reason: string) => answer(ctx, 422, { outcome: 'other' satisfies ReplyOutcome, reason });

/** The message's time: the reply's own, else the event's. */
function timeOf(body: IDataObject, data: IDataObject): number {
	return Date.parse(String(data.timestamp ?? body.timestamp ?? ''));
}

/**
 * The resume address. It answers only a request signed with the credential's Webhook Secret within 300 s
 * (401 otherwise, whatever the method): someone who learns the address learns nothing from the node, not even
 * whether the run waits (what n8n answers itself, 404 and 409, is n8n's). A signed GET says that the run still
 * waits (the trigger asks so until n8n holds a resumed run). Only a `message.received` from the customer asked,
 * to the sender number asked from (when set), written after the question, is a reply. It resumes the run when it
 * is an expected answer (or any is); otherwise the run keeps waiting (after asking again, when set) or goes on,
 * as chosen.
 */
async function replyWebhook(run: RunState<IWebhookFunctions>): Promise<IWebhookResponseData> {
	const ctx = run.ctx;
	const signed = await signedRequest(run);
	if ('refused' in signed) return signed.refused;
	const { rawBody } = signed;

	const waiting = readFromContext<WaitingReply>(run, CONTEXT_FIELD);
	if (!waiting) return other(ctx, 'no question waits here');
	if (waitIdOf(ctx) !== waiting.id) return other(ctx, 'the node waits for another question');
	if (ctx.getRequestObject().method !== 'POST') return answer(ctx, 200, { outcome: 'waiting' satisfies ReplyOutcome });

	let body: IDataObject;
	try {
		body = JSON.parse(rawBody.toString('utf8')) as IDataObject;
	} catch {
		return other(ctx, 'not JSON');
	}
	const data = (typeof body?.data === 'object' && body.data !== null ? body.data : {}) as IDataObject;
	if (body.event !== 'message.received') return other(ctx, 'not a received message');
	if (typeof data.from !== 'string' || phoneKey(data.from) !== phoneKey(waiting.customer)) return other(ctx, 'from another number');
	if (waiting.senderPhone && (typeof data.to !== 'string' || phoneKey(data.to) !== phoneKey(waiting.senderPhone))) {
		return other(ctx, 'to another sender number');
	}
	const writtenAt = timeOf(body, data);
	if (!(writtenAt >= waiting.askedAt - CLOCK_SKEW_MS)) return other(ctx, 'written before the question');

	const replyText = String(data.body ?? '');
	const matched = waiting.expected ? (matchingAnswer(replyText, waiting.expected) ?? null) : null;
	if (waiting.expected && matched === null && waiting.onUnexpected === 'keepWaiting') {
		if (waiting.reask) await askAgain(run, waiting);
		return answer(ctx, 200, { outcome: 'waiting' satisfies ReplyOutcome });
	}
	const reply: IDataObject = {};
	for (const key of ['message_id', 'conversation_id', 'from', 'to', 'type', 'body', 'timestamp']) {
		if (data[key] !== undefined) reply[key] = data[key];
	}
	const json = outputOf(waiting, reply, matched, Date.now());
	// n8n answers with `webhookResponse` once it holds the resumed run (2.41; earlier versions just before).
	return { workflowData: [[{ json, pairedItem: { item: 0 } }]], webhookResponse: { outcome: 'resumed' satisfies ReplyOutcome } };
}

/** The re-ask text, through the send pipeline (the credential's Test Mode applies); a failure is logged, the run waits on. */
async function askAgain(run: RunState<IWebhookFunctions>, waiting: WaitingReply): Promise<void> {
	try {
		await sendFromWebhook(run, { path: '/w/message/text', fields: { body: waiting.reask } }, waiting.customer, waiting.senderId);
	} catch (error) {
		run.ctx.logger.warn(`Ask and Wait for Chat Reply: could not send the re-ask text: ${(error as Error).message}`);
	}
}

/** Whether the execution this webhook request resumes waits at this node for a chat reply. */
const waitsHere = (run: RunState<IWebhookFunctions>) => readFromContext<WaitingReply>(run, CONTEXT_FIELD) !== undefined;

export const operation: Operation = {
	kind: 'sendAndWait',
	displayName: 'Ask and Wait for Chat Reply',
	description,
	recipientOf: phoneFieldRecipient,
	ask,
	webhook: replyWebhook,
	waitsHere,
};
