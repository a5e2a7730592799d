import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError, SEND_AND_WAIT_OPERATION, WAIT_INDEFINITELY, updateDisplayOptions } from 'n8n-workflow';

import { ANSWER_FIELD, APPROVE, DECLINE, answeredPage, invalidLinkPage, type Question, questionPage, thanksPage } from '../../helpers/answerPage';
import { phoneFieldRecipient } from '../../helpers/recipient';
import { checkNotEmpty } from '../../helpers/validation';
import { askQuestion, checkLink } from '../../helpers/waitingQuestion';
import { getCredential } from '../../transport';
import { optionsField, recipientField, senderField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Delivery, Operation, PreparedQuestion } from '../operation';

/**
 * n8n's waiting webhooks (n8n/dist/webhooks/waiting-webhooks.js) treat a node whose `operation` is
 * 'sendAndWait' as a send-and-wait node: the link must carry the URL signature made by
 * `getSignedResumeUrl` (2.41 on; earlier versions when the node asks, see `askQuestion`), and a link of a
 * finished execution shows n8n's "no action required" page. Both methods, because the page is opened by
 * GET and answered by POST.
 */
export const WAITING_WEBHOOKS: IWebhookDescription[] = (['GET', 'POST'] as const).map((httpMethod) => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

/** Limit Wait Time's units, and their length: also a send's Wait for Status (actions/statusWait.ts). */
export const UNITS_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;
export const UNIT_OPTIONS = [
	{ name: 'Minutes', value: 'minutes' },
	{ name: 'Hours', value: 'hours' },
	{ name: 'Days', value: 'days' },
];
/** Limit Wait Time's smallest Amount: what `waitUntilOf` accepts (more than 0), at two decimals. */
const MIN_AMOUNT = 0.01;

/** Options → Limit Wait Time, shared by the operations that wait (checked by `waitUntilOf`). */
export const limitWaitTimeOption: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' } },
	description:
		'When no answer came by then, the workflow goes on with the item this node received, without an answer',
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					options: [
						{ name: 'After Time Interval', value: 'afterTimeInterval' },
						{ name: 'At Specified Time', value: 'atSpecifiedTime' },
					],
					default: 'afterTimeInterval',
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					// The smallest amount the editor can enter with two decimals: 0 would be refused when the run starts.
					typeOptions: { minValue: MIN_AMOUNT, numberPrecision: 2 },
					default: 1,
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					options: UNIT_OPTIONS,
					default: 'hours',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					default: '',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
				},
			],
		},
	],
};

const show = { responseType: ['approval'] };

const properties: INodeProperties[] = [
	{ ...senderField },
	{
		...recipientField,
		hint: 'The answer’s answeredBy is this number, whoever opens the link: a forwarded link answers in this number’s name',
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		required: true,
		typeOptions: { rows: 4 },
		default: '',
		description: 'The question. The link to the answer page is added below it.',
	},
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		options: [
			{ name: 'Approval', value: 'approval', description: 'The recipient taps Approve (or Decline)' },
			{ name: 'Free Text', value: 'freeText', description: 'The recipient writes an answer' },
		],
		default: 'approval',
	},
	{
		displayName: 'Type of Approval',
		name: 'approvalType',
		type: 'options',
		options: [
			{ name: 'Approve Only', value: 'single' },
			{ name: 'Approve and Decline', value: 'double' },
		],
		default: 'double',
		displayOptions: { show },
	},
	{
		displayName: 'Approve Button Label',
		name: 'approveLabel',
		type: 'string',
		default: 'Approve',
		displayOptions: { show },
	},
	{
		displayName: 'Decline Button Label',
		name: 'declineLabel',
		type: 'string',
		default: 'Decline',
		displayOptions: { show: { ...show, approvalType: ['double'] } },
	},
	{
		displayName: 'Answer Field Label',
		name: 'answerLabel',
		type: 'string',
		default: 'Your answer',
		displayOptions: { show: { responseType: ['freeText'] } },
	},
	{
		displayName: 'Link Text',
		name: 'linkText',
		type: 'string',
		default: 'Answer here:',
		description: 'Put before the link in the message',
	},
	{
		...optionsField,
		options: [
			limitWaitTimeOption,
			{
				displayName: 'Asked By',
				name: 'askedBy',
				type: 'string',
				default: '',
				placeholder: 'e.g. Acme Shop',
				description:
					'Shown on the answer page above the question, so the recipient knows who asks. Empty: the credential’s Business Name.',
			},
			...(optionsField.options as INodeProperties[]),
		],
	},
];

const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: [SEND_AND_WAIT_OPERATION] } },
	properties,
);

/** The end of the wait: the limit set under Options, else never. Checked before anything is sent. */
export function waitUntilOf(ctx: IExecuteFunctions, now = Date.now()): Date {
	const limit = ctx.getNodeParameter('options.limitWaitTime.values', 0, null) as IDataObject | null;
	if (!limit) return WAIT_INDEFINITELY;
	let until: Date;
	if (limit.limitType === 'atSpecifiedTime') {
		until = new Date(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(until.getTime())) {
			throw new NodeOperationError(ctx.getNode(), `Limit Wait Time: "${String(limit.maxDateAndTime ?? '')}" is not a date and time`);
		}
	} else {
		const amount = Number(limit.resumeAmount);
		const unit = UNITS_MS[limit.resumeUnit as keyof typeof UNITS_MS];
		if (!(amount > 0) || !unit) {
			throw new NodeOperationError(ctx.getNode(), 'Limit Wait Time: the amount must be more than 0');
		}
		until = new Date(now + amount * unit);
	}
	if (until.getTime() <= now) {
		throw new NodeOperationError(ctx.getNode(), `Limit Wait Time: ${until.toISOString()} has passed already`);
	}
	return until;
}

/**
 * The question with its answer link, checked before anything is sent; the send pipeline sends it and
 * puts the execution to wait (actions/send.ts, `sendAndWait`). One item per execution: n8n resumes a
 * waiting execution once (docs/action-node.md, "Send and Wait for Response").
 */
async function ask(run: RunState, { recipient }: Delivery): Promise<PreparedQuestion> {
	const field = (label: string) => ({ label, itemIndex: 0 });
	const message = checkNotEmpty(run.ctx, field('Message'), run.ctx.getNodeParameter('message', 0));
	const linkText = String(run.ctx.getNodeParameter('linkText', 0, '') ?? '').trim();
	const waitUntil = waitUntilOf(run.ctx);
	const credentials = await getCredential(run);
	const question = questionOf(run.ctx, message, String(credentials.businessName ?? '').trim());
	if (!question.askedBy) {
		run.ctx.addExecutionHints({
			message:
				'The answer page does not say who asks: enter your Business Name in the credential, or a name under Options → Asked By.',
			type: 'info',
			location: 'outputPane',
		});
	}
	// The answer's `answeredBy` is the recipient the question is for, also when Test Mode redirects it.
	const link = askQuestion(run.ctx, recipient, question);
	return {
		request: { path: '/w/message/text', fields: { body: `${message}\n\n${linkText ? `${linkText} ` : ''}${link}` } },
		waitUntil,
	};
}

/**
 * The question as it is sent; the page shows it and takes answers to it (kept by `askQuestion`). Who asks:
 * the node's Asked By, else the credential's Business Name.
 */
function questionOf(ctx: IExecuteFunctions, message: string, businessName: string): Question {
	const text = (name: string, fallback: string) => String(ctx.getNodeParameter(name, 0, fallback) ?? '').trim() || fallback;
	return {
		kind: ctx.getNodeParameter('responseType', 0, 'approval') === 'freeText' ? 'freeText' : 'approval',
		message,
		askedBy: text('options.askedBy', businessName),
		approvalType: ctx.getNodeParameter('approvalType', 0, 'double') === 'single' ? 'single' : 'double',
		approveLabel: text('approveLabel', 'Approve'),
		declineLabel: text('declineLabel', 'Decline'),
		answerLabel: text('answerLabel', 'Your answer'),
		sendLabel: 'Send',
	};
}

/**
 * The link's page. GET shows the question and resumes nothing; a valid POST resumes the execution with
 * one item. A second answer finds the execution finished or running, which n8n answers itself
 * (waiting-webhooks.js) without calling this node, so nothing is resumed twice. The link is checked
 * against the question the execution waits for, and `answeredBy` comes from there, never from the link.
 */
async function answerWebhook(run: RunState<IWebhookFunctions>): Promise<IWebhookResponseData> {
	const ctx = run.ctx;
	const req = ctx.getRequestObject();
	const res = ctx.getResponseObject();
	const reply = (status: number, html: string) => {
		res.status(status).setHeader('Content-Type', 'text/html; charset=utf-8');
		res.setHeader('Cache-Control', 'no-store');
		res.end(html);
	};
	const link = checkLink(run);
	if (!link.ok) {
		reply(link.status, link.status === 410 ? answeredPage(link.earlier) : invalidLinkPage());
		return { noWebhookResponse: true };
	}
	const { question, phone } = link.waiting;
	if (req.method !== 'POST') {
		reply(200, questionPage(question));
		return { noWebhookResponse: true };
	}
	const raw = (ctx.getBodyData() as IDataObject)[ANSWER_FIELD];
	const answer = typeof raw === 'string' ? raw.trim() : '';
	const json: IDataObject = {};
	if (question.kind === 'approval') {
		const allowed = question.approvalType === 'double' ? [APPROVE, DECLINE] : [APPROVE];
		if (!allowed.includes(answer)) {
			reply(400, questionPage(question, 'Please choose one of the buttons.'));
			return { noWebhookResponse: true };
		}
		json.answer = answer === APPROVE ? 'approved' : 'declined';
		json.approved = answer === APPROVE;
	} else {
		if (!answer) {
			reply(400, questionPage(question, 'Please write an answer.'));
			return { noWebhookResponse: true };
		}
		json.answer = answer;
	}
	json.answeredBy = phone;
	json.answeredVia = 'link';
	json.answeredAt = new Date().toISOString();
	reply(200, thanksPage(question, question.kind === 'approval' ? answer : String(json.answer)));
	return { noWebhookResponse: true, workflowData: [[{ json, pairedItem: { item: 0 } }]] };
}

export const operation: Operation = {
	kind: 'sendAndWait',
	displayName: 'Send and Wait for Response',
	description,
	recipientOf: phoneFieldRecipient,
	ask,
	webhook: answerWebhook,
};
