import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { testCredential } from '../../credentials/credentialTest';
import { claimDelivery, deliveryKey } from './deliveryStore';
import {
	ALL_EVENTS,
	EVENT_TYPE_OPTIONS,
	MESSAGE_STATUS_EVENT,
	MESSAGE_STATUS_OPTIONS,
	envelopeProblem,
	parseJsonObject,
	testEventMark,
	verificationChallenge,
	type EventEnvelope,
} from './events';
import { countRefusal, explain, isRefusalError, refusalError, type Refusal } from './refusals';
import { verifySignature } from './signature';
import { webhookSecret } from './webhookSecret';

/**
 * One POST endpoint. n8n answers an accepted event once it holds the run; the node answers the rest. There is no `webhookMethods`
 * lifecycle: the spec shows no API to register, check or delete a webhook, so the user pastes the
 * Production URL into the service's dashboard (see the notice in the node). Declared outside the
 * description because n8n's community lint asks any description listing webhooks inline for that
 * lifecycle; empty lifecycle methods would only pretend to register something.
 */
const WEBHOOKS: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		// Empty, not left out: n8n then answers with the node's `webhookResponse` when it answers after
		// queueing the run (n8n's default would send the literal text "firstEntryJson").
		responseData: '',
		path: 'webhook',
	},
];

/** The answer to an accepted event. */
const ACCEPTED: IDataObject = { received: true };

const SIGNATURE_HEADER = 'x-service-webhook-signature';
const TIMESTAMP_HEADER = 'x-service-webhook-timestamp';

interface TriggerOptions {
	ignoreStatuses?: string[];
	outputDataOnly?: boolean;
	allowDuplicates?: boolean;
	skipSignatureVerification?: boolean;
	refusalSummaryMinutes?: number;
}

/** Answers without starting the workflow. Every such answer is JSON with an explicit status code. */
function answer(context: IWebhookFunctions, statusCode: number, body: IDataObject): IWebhookResponseData {
	const response = context.getResponseObject();
	if (!response.headersSent) response.status(statusCode).json(body);
	return { noWebhookResponse: true };
}

/**
 * Refuses a delivery: the sender gets the same answer in every mode. While the editor listens for a
 * test event, the trigger then fails with the check that failed (see `refusalError`). In production the
 * refusal is logged and counted, and with *Report Refused Deliveries* at most one summary run starts
 * per interval.
 */
function refuse(context: IWebhookFunctions, refusal: Refusal, options: TriggerOptions): IWebhookResponseData {
	answer(context, refusal.status, { error: refusal.reason });
	if (context.getMode() === 'manual') {
		context.logger.warn(`Business Messaging Trigger: test delivery refused (${refusal.status}, ${refusal.reason})`);
		throw refusalError(context.getNode(), refusal);
	}
	const minutes = Number(options.refusalSummaryMinutes);
	const scope = `${context.getWorkflow().id ?? ''}/${context.getNode().id}`;
	const { total, summary } = countRefusal(scope, refusal.reason, Date.now(), minutes > 0 ? minutes * 60_000 : undefined);
	context.logger.warn(
		`Business Messaging Trigger: delivery refused (${refusal.status}, ${refusal.reason}); ${total} refused by this trigger since n8n started. ${explain(refusal).whatToCheck}`,
		{ workflowId: context.getWorkflow().id, node: context.getNode().name, reason: refusal.reason, refusedSinceStart: total },
	);
	return summary ? { noWebhookResponse: true, workflowData: [[{ json: summary }]] } : { noWebhookResponse: true };
}

/**
 * The body's bytes as received: signatures cover them, never re-serialized JSON. n8n reads them before
 * calling a version 1 node for every non-multipart body; for version 2 only for the content types it
 * parses (JSON, text, form, XML), so the node reads the rest itself.
 */
async function receivedBytes(context: IWebhookFunctions): Promise<Buffer> {
	const request = context.getRequestObject();
	if (!Buffer.isBuffer(request.rawBody) && typeof request.readRawBody === 'function') {
		await request.readRawBody();
	}
	return Buffer.isBuffer(request.rawBody) ? request.rawBody : Buffer.alloc(0);
}

async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const rawBody = await receivedBytes(this);
	const body = parseJsonObject(rawBody);

	// The set-up handshake comes first: echoing a challenge starts nothing, and the spec does not
	// show whether the service signs it.
	const challenge = verificationChallenge(body);
	if (challenge !== undefined) return answer(this, 200, { challenge });

	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const nowSeconds = Math.floor(Date.now() / 1000);
	const headers = this.getHeaderData();
	const timestampHeader = headers[TIMESTAMP_HEADER];
	const signatureTimestamp = typeof timestampHeader === 'string' ? timestampHeader : null;

	if (options.skipSignatureVerification !== true) {
		const secret = await webhookSecret(this);
		if (secret === '') {
			// 503, not 401: the service retries 5xx answers for about 7 hours, so events sent before the
			// user fills in the secret still arrive afterwards. A 401 would make it drop them for good.
			return refuse(this, { status: 503, reason: 'webhook secret not configured' }, options);
		}
		const check = verifySignature(secret, headers[SIGNATURE_HEADER], timestampHeader, rawBody, nowSeconds);
		if (!check.valid) return refuse(this, { status: 401, reason: check.reason }, options);
	}

	// 400 tells the service not to retry: resending the same body cannot fix it.
	const problem = envelopeProblem(body);
	if (problem !== undefined) return refuse(this, { status: 400, reason: problem }, options);
	const { event, timestamp, data } = body as unknown as EventEnvelope;

	// Event names not in the list (added by the service later) are well-formed and signed: they start
	// the workflow when "*" is selected and are ignored otherwise, never refused.
	const events = this.getNodeParameter('events', []) as string[];
	if (!events.includes(ALL_EVENTS) && !events.includes(event)) {
		return answer(this, 200, { received: true, ignored: 'event not selected' });
	}
	if (event === MESSAGE_STATUS_EVENT && (options.ignoreStatuses ?? []).includes(String(data.status))) {
		return answer(this, 200, { received: true, ignored: 'status ignored' });
	}

	const key = deliveryKey(rawBody);
	// Test runs are skipped: n8n does not save their static data, and suppressing there would only
	// hide the event the user is waiting for.
	if (options.allowDuplicates !== true && this.getMode() !== 'manual') {
		const scope = `${this.getWorkflow().id ?? ''}/${this.getNode().id}`;
		const claim = await claimDelivery(scope, this.getWorkflowStaticData('node'), key, nowSeconds);
		if (claim.outcome === 'duplicate') return answer(this, 200, { received: true, ignored: 'duplicate delivery' });
		settleWhenAnswered(this.getResponseObject(), claim.settle);
	}

	const json: IDataObject = options.outputDataOnly
		? { ...data, ...testEventMark(data) }
		: { event, timestamp, data, deliveryKey: key, signatureTimestamp, ...testEventMark(data) };
	// n8n answers (with `webhookResponse`, see WEBHOOKS) once it holds the run: the 2xx the service stops
	// retrying on is sent only for an event n8n will run.
	return { workflowData: [[{ json }]], webhookResponse: ACCEPTED };
}

/**
 * Reports n8n's answer to a claimed delivery: 2xx means the run exists; any other answer, or a
 * connection closed before one, frees the delivery so the service's retry runs it.
 */
function settleWhenAnswered(response: ReturnType<IWebhookFunctions['getResponseObject']>, settle: (acknowledged: boolean) => void): void {
	response.once('close', () => settle(response.headersSent && response.statusCode >= 200 && response.statusCode < 300));
}

/**
 * The canvas subtitle: the chosen events by the names the Events field shows ("All Events", or e.g.
 * "Message Received, Order Created"), not their values ("*", "message.received").
 */
function eventsSubtitle(): string {
	const names = Object.fromEntries(EVENT_TYPE_OPTIONS.map((option) => [String(option.value), option.name]));
	const all = JSON.stringify(names[ALL_EVENTS]);
	return `={{ $parameter["events"].includes(${JSON.stringify(ALL_EVENTS)}) ? ${all} : $parameter["events"].map(event => (${JSON.stringify(names)})[event] || event).join(", ") }}`;
}

export class BusinessMessagingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Business Messaging Trigger',
		name: 'businessMessagingTrigger',
		icon: {
			light: 'file:../../icons/businessMessaging.svg',
			dark: 'file:../../icons/businessMessaging.dark.svg',
		},
		group: ['trigger'],
		// Version 2 (package 0.2.0) behaves the same for users. n8n evaluates an expression
		// (`options.binaryData`) for every request to a version 1 webhook node, which costs an expression
		// isolate per event under n8n's default "vm" engine; version 2 needs none (docs/performance.md).
		// Version 1 stays for workflows made with package 0.1.0.
		version: [1, 2],
		defaultVersion: 2,
		subtitle: eventsSubtitle(),
		// n8n's node creator lists this trigger and the action node as one entry and shows this text for it,
		// also among the actions (docs/compatibility.md, "Node creator"): so it says what both do.
		description:
			'Send messages, look up templates and contacts, and update orders on a business messaging service; start workflows from its events',
		defaults: { name: 'Business Messaging Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// n8n's credential Test looks for the method in whichever node using the credential it finds first.
		credentials: [{ name: 'businessMessagingApi', required: true, testedBy: 'businessMessagingApiTest' }],
		webhooks: WEBHOOKS,
		properties: [
			{
				// The README's set-up, in its order: the Test URL to check the whole path, then the Production URL.
				displayName:
					'Set-up: 1. Copy the dashboard’s webhook secret into the credential’s Webhook Secret. 2. To check the whole path, put this node’s Test URL (Webhook URLs above) into the service’s dashboard as the webhook URL, click Execute step, and send the service’s test event (Business Messaging node: Webhook → Send Test Event); it shows here. 3. Then put the Production URL into the dashboard and activate the workflow: the Test URL listens only while this panel says "Listening for test event".',
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: [ALL_EVENTS],
				options: EVENT_TYPE_OPTIONS,
				description: 'Events that start the workflow. Other events are answered and ignored.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Allow Duplicate Deliveries',
						name: 'allowDuplicates',
						type: 'boolean',
						default: false,
						description:
							'Whether to start the workflow for every delivery. By default a body already accepted in the last 8 hours (the service’s retry period) is taken as a retry and starts nothing.',
					},
					{
						displayName: 'Ignore Message Statuses',
						name: 'ignoreStatuses',
						type: 'multiOptions',
						default: [],
						options: MESSAGE_STATUS_OPTIONS,
						description: 'Message status updates with these statuses do not start the workflow',
					},
					{
						displayName: 'Output Event Data Only',
						name: 'outputDataOnly',
						type: 'boolean',
						default: false,
						description:
							'Whether to output only the event’s data, without its name, timestamp and delivery key',
					},
					{
						displayName: 'Report Refused Deliveries Every (Minutes)',
						name: 'refusalSummaryMinutes',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 60,
						description:
							'Starts a run with a summary of refused deliveries (wrong signature, stale timestamp, not JSON, no secret): at once for the first, then at most once per this many minutes, never one run per refused request. The item has event "refusals.summary"; use it to alert on a Webhook Secret left out of date after a rotation.',
					},
					{
						displayName: 'Skip Signature Verification (Unsafe)',
						name: 'skipSignatureVerification',
						type: 'boolean',
						default: false,
						description:
							'Whether to accept events without checking their signature. Anyone who finds the webhook URL could then start this workflow with any data they like.',
					},
				],
			},
		],
	};

	methods = { credentialTest: { businessMessagingApiTest: testCredential } };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		try {
			return await handleDelivery.call(this);
		} catch (error) {
			// A refusal seen while listening is already answered; n8n shows it as the node's error.
			// (NodeOperationError hands back the same error when given one.)
			if (isRefusalError(error)) throw new NodeOperationError(this.getNode(), error);
			// A failure here (credential unreadable, database busy) may pass: 500 lets the service retry.
			this.logger.error(
				`Business Messaging Trigger: could not process a webhook request: ${(error as Error).message}`,
			);
			try {
				return answer(this, 500, { error: 'internal error' });
			} catch {
				return { noWebhookResponse: true };
			}
		}
	}
}
