import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IHookFunctions,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { testCredential } from '../../credentials/credentialTest';
import { ACKNOWLEDGE_ONCE_RUN_EXISTS, runStarted, takeOverAnswer } from './acknowledgement';
import { handleWaitsRequest, isWaitsRequest, WAITS_WEBHOOK } from './sharing/endpoint';
import { RECEIVE_THROUGH_SHARING_TRIGGER, sharesWith, triggerScope } from './sharing/scope';
import { ensureOnlySharer, receivesThroughSharingTrigger, subscribe, unsubscribe } from './sharing/subscriber';
import { handOverStatus } from './sharing/statusHandOver';
import { keepStatusLimitsOnEvent } from './sharing/statusLimit';
import { type Delivery, handOverReply, handOverToWorkflows, keepRegistrations, resumedAlready, sharesEvents, type Handed } from './sharing/handOver';
import { claimDelivery, deliveryKey, handOverDeliveries, IN_FLIGHT_WAIT_MS } from './deliveryStore';
import {
	ALL_EVENTS,
	EVENT_TYPE_OPTIONS,
	MESSAGE_STATUS_OPTIONS,
	envelopeProblem,
	parseJsonObject,
	selects,
	testEventMark,
	verificationChallenge,
	type EventEnvelope,
} from './events';
import { countRefusal, explain, isRefusalError, refusal, refusalError, type Refusal } from './refusals';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySignature } from '../../credentials/webhookSignature';
import { webhookSecret } from '../shared/webhookSecret';
import { CREDENTIAL_TEST, CREDENTIAL_TYPE } from '../../credentials/credentialType';

/**
 * The service's endpoint: n8n answers an accepted event once the run exists (acknowledgement.ts); the node
 * answers the rest. The spec shows no API to register a webhook with the service, so the user pastes the
 * Production URL into the service's dashboard (see the notice in the node); the lifecycle (`webhookMethods`)
 * registers a trigger with the sharing trigger on this n8n instead (sharing/subscriber.ts).
 */
const WEBHOOKS: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: ACKNOWLEDGE_ONCE_RUN_EXISTS,
		path: 'webhook',
	},
	// Runs waiting for a chat reply and triggers that receive through this one register here: sharing/endpoint.ts.
	WAITS_WEBHOOK,
];

interface TriggerOptions {
	ignoreStatuses?: string[];
	outputDataOnly?: boolean;
	allowDuplicates?: boolean;
	skipSignatureVerification?: boolean;
	refusalSummaryMinutes?: number;
}

/**
 * Answers without starting the workflow. Every such answer is JSON with an explicit status code. n8n saves
 * the workflow's static data for these requests (and only these), so each hands the acknowledged
 * deliveries over to be saved: a restart then still knows them. A 200 is left to n8n, which saves the
 * static data before it answers (live-webhooks.js), so a sender answered 200 knows the hand-over is
 * saved; n8n answers those with the webhook's status, 200, so other codes are written here.
 *
 * Whatever n8n saves with the answer keeps the registrations this process received (rule 1,
 * sharing/registry.ts), written here at the end of the request: a hand-over can take seconds, and one taken
 * meanwhile goes with this save too. `savesNothing`: the request changes nothing for n8n to save, as what it
 * stands for is saved already (a status of a burst, counted through the waits webhook:
 * sharing/statusHandOver.ts); a save per status would be one more write of the whole static data.
 */
function answer(context: IWebhookFunctions, statusCode: number, body: IDataObject, savesNothing = false): IWebhookResponseData {
	if (!savesNothing) {
		handOverStore(context);
		keepRegistrations(context);
	}
	if (statusCode === 200) return { webhookResponse: body };
	const response = context.getResponseObject();
	if (!response.headersSent) response.status(statusCode).json(body);
	return { noWebhookResponse: true };
}

/** Puts this process's acknowledged deliveries into the static data n8n saves with the trigger's own answer. */
function handOverStore(context: IWebhookFunctions): void {
	if (context.getMode() !== 'manual') {
		handOverDeliveries(triggerScope(context), () => context.getWorkflowStaticData('node'), Math.floor(Date.now() / 1000));
	}
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
	const { total, summary } = countRefusal(triggerScope(context), refusal.reason, Date.now(), minutes > 0 ? minutes * 60_000 : undefined);
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
		if (secret === '') return refuse(this, refusal('webhook secret not configured'), options);
		const check = verifySignature(secret, headers[SIGNATURE_HEADER], timestampHeader, rawBody, nowSeconds);
		if (!check.valid) return refuse(this, refusal(check.reason), options);
	}

	const problem = envelopeProblem(body);
	if (problem !== undefined) return refuse(this, refusal(problem), options);
	const { event, timestamp, data } = body as unknown as EventEnvelope;
	const delivery = { rawBody, event, data };

	const events = this.getNodeParameter('events', []) as string[];
	const selected = selects({ events, ignoreStatuses: options.ignoreStatuses ?? [] }, event, data);
	// The sharing trigger takes every event: a reply may resume a waiting run, and other workflows may select
	// what this one does not. A test listener in the editor hands nothing on.
	const sharing = sharesEvents(this);
	const forWorkflows = sharing && this.getMode() !== 'manual';
	// Wait for Status: after a restart, the limits of the runs waiting are kept again with the next event of any kind.
	if (forWorkflows) await keepStatusLimitsOnEvent(this);
	if (!selected && !sharing) {
		const ignored = events.includes(ALL_EVENTS) || events.includes(event) ? 'status ignored' : 'event not selected';
		return answer(this, 200, { received: true, ignored });
	}

	const key = deliveryKey(rawBody);
	// Test runs are skipped: n8n does not save their static data, and suppressing there would only
	// hide the event the user is waiting for.
	let settle: (acknowledged: boolean) => void = () => {};
	if (options.allowDuplicates !== true && this.getMode() !== 'manual') {
		const claim = await claimDelivery(triggerScope(this), this.getWorkflowStaticData('node'), key, nowSeconds);
		if (claim.outcome === 'duplicate') {
			// This trigger's run exists; a workflow that receives through it may still lack its own (its first
			// attempt failed): each one knows the event if it has it.
			if (!forWorkflows || resumedAlready(this, delivery)) return answer(this, 200, { received: true, ignored: 'duplicate delivery' });
			return answerHanded(this, await handOverToWorkflows(this, delivery), { received: true, ignored: 'duplicate delivery' });
		}
		if (claim.outcome === 'inFlight') {
			// 503: the service retries later, by when n8n has answered the earlier copy.
			this.logger.warn(
				`Business Messaging Trigger: a copy of a delivery still being handed to n8n after ${IN_FLIGHT_WAIT_MS / 1000} s was answered 503; the service retries it`,
			);
			return answer(this, 503, { error: 'delivery in progress' });
		}
		settle = claim.settle;
	}

	// A failure on the way frees the delivery for its retry (settling twice changes nothing).
	let handedOn = false;
	try {
		const result = await handOn(this, delivery, selected, forWorkflows, settle, { key, timestamp, signatureTimestamp, outputDataOnly: options.outputDataOnly === true });
		handedOn = true;
		return result;
	} finally {
		if (!handedOn) settle(false);
	}
}

/**
 * Hands a claimed event on: a reply to the run waiting for it, otherwise to this workflow (when it selects
 * the event) and to every workflow that receives through this trigger, answering once all of them hold it.
 */
async function handOn(
	context: IWebhookFunctions,
	delivery: Delivery,
	selected: boolean,
	forWorkflows: boolean,
	settle: (acknowledged: boolean) => void,
	item: { key: string; timestamp: string; signatureTimestamp: string | null; outputDataOnly: boolean },
): Promise<IWebhookResponseData> {
	const { event, data } = delivery;
	// A reply to a question goes to the run asking it (Share With Other Workflows); others go on as before. A
	// reply a run took is answered here, so that its hand-over and the store are saved with the answer.
	const reply = await handOverReply(context, delivery);
	if ('answer' in reply) {
		settle(reply.answer.status === 200);
		return answer(context, reply.answer.status, reply.answer.body);
	}
	// A status of a message a run waits for (a send's Wait for Status) goes into its tally, the same way.
	const status = await handOverStatus(context, delivery);
	if ('answer' in status) {
		settle(status.answer.status === 200);
		return answer(context, status.answer.status, status.answer.body, status.savesNothing);
	}
	const extra = { ...reply.extra, ...status.extra };
	// Every workflow that receives through this trigger, at the same time as this one's own run.
	const handing = forWorkflows ? handOverToWorkflows(context, delivery) : Promise.resolve<Handed>({ held: true, problems: [] });
	if (!selected) {
		const handed = await handing;
		settle(handed.held);
		return answerHanded(context, handed, { received: true, ignored: 'event not selected' });
	}

	const json: IDataObject = item.outputDataOnly
		? { ...data, ...testEventMark(data), ...extra }
		: { event, timestamp: item.timestamp, data, deliveryKey: item.key, signatureTimestamp: item.signatureTimestamp, ...testEventMark(data), ...extra };
	// n8n answers once the run exists (acknowledgement.ts); the service gets its 2xx only once every workflow
	// holds the event, so a retry finds what is missing.
	takeOverAnswer(context.getResponseObject(), async (n8n) => {
		settle(n8n.runExists);
		if (!n8n.runExists) return runStarted(n8n);
		const handed = await handing;
		if (handed.held) return runStarted(n8n);
		logHandOverProblems(context, handed);
		return { status: 503, body: { error: 'could not hand the event to every workflow' } };
	});
	return { workflowData: [[{ json }]] };
}

function logHandOverProblems(context: IWebhookFunctions, handed: Handed): void {
	for (const problem of handed.problems) {
		context.logger.warn(`Business Messaging Trigger: handing an event to another workflow: ${problem}`, { workflowId: context.getWorkflow().id });
	}
}

/** The answer to an event this trigger's workflow does not run, once the workflows that receive through it hold it. */
function answerHanded(context: IWebhookFunctions, handed: Handed, body: IDataObject): IWebhookResponseData {
	logHandOverProblems(context, handed);
	if (!handed.held) return answer(context, 503, { error: 'could not hand the event to every workflow' });
	return answer(context, 200, body);
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
		credentials: [{ name: CREDENTIAL_TYPE, required: true, testedBy: CREDENTIAL_TEST }],
		webhooks: WEBHOOKS,
		properties: [
			{
				displayName: 'Receive Events',
				name: 'receiveFrom',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'At This Trigger’s Production URL',
						value: 'service',
						description: 'This trigger’s Production URL is the webhook URL in the service’s dashboard',
					},
					{
						name: 'Through the Trigger That Shares Them',
						value: RECEIVE_THROUGH_SHARING_TRIGGER,
						description:
							'Another workflow’s Business Messaging Trigger receives the events (Share With Other Workflows on) and passes on those this one’s Events select',
					},
				],
				default: 'service',
			},
			{
				// The README's set-up, in its order: the Test URL to check the whole path, then the Production URL.
				displayName:
					'Set-up: 1. Copy the dashboard’s webhook secret into the credential’s Webhook Secret. 2. To check the whole path, put this node’s Test URL (Webhook URLs above) into the service’s dashboard as the webhook URL, click Execute step, and send the service’s test event (Business Messaging node: Webhook → Send Test Event); it shows here. 3. Then put the Production URL into the dashboard and activate the workflow: the Test URL listens only while this panel says "Listening for test event". The dashboard takes one URL: for more workflows, turn on Share With Other Workflows here and set their triggers to receive through this one.',
				name: 'setupNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { receiveFrom: ['service'] } },
			},
			{
				displayName:
					'Events come through the Business Messaging Trigger that has Share With Other Workflows on (the one whose Production URL is in the service’s dashboard, with the same Webhook Secret): put nothing into the dashboard for this one. Activate this workflow, in any order, and it starts for the events its Events select. To check the path, click Execute step and send the service’s test event (Business Messaging node: Webhook → Send Test Event): it shows here while the sharing workflow is active.',
				name: 'throughNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { receiveFrom: [RECEIVE_THROUGH_SHARING_TRIGGER] } },
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
				// Named as in package 0.2.0, whose triggers with Resume Waiting Runs on keep sharing.
				displayName: 'Share With Other Workflows',
				name: 'resumeWaitingRuns',
				type: 'boolean',
				default: false,
				description:
					'Whether this trigger passes your service’s events on to the other workflows on this n8n: to every Business Messaging Trigger set to receive through it (each gets what its Events select), and a customer’s chat reply to the run waiting for it (Business Messaging → Ask and Wait for Chat Reply, in any workflow). Turn it on in the one trigger whose Production URL is in the dashboard.',
				displayOptions: { show: { receiveFrom: ['service'] } },
			},
			{
				displayName: 'Share As',
				name: 'shareAs',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Account 1', value: 1, description: 'The service account whose events this n8n shares (the only one, usually)' },
					{ name: 'Account 2', value: 2, description: 'A second service account whose events this n8n shares too' },
					{ name: 'Account 3', value: 3, description: 'A third service account whose events this n8n shares too' },
				],
				default: 1,
				description:
					'When this n8n receives the events of several service accounts (several dashboards, each with a Webhook Secret of its own), each account’s sharing trigger takes a number of its own. Triggers and Ask and Wait nodes find theirs by their Webhook Secret.',
				displayOptions: { show: { resumeWaitingRuns: [true], receiveFrom: ['service'] } },
			},
			{
				displayName:
					'The service gets its 200 once every workflow holds the event. A reply goes to the newest run waiting for that customer and sender number, and then starts no workflow; every other event starts this workflow (when its Events select it) and each workflow that receives through this one. One trigger per service account shares.',
				name: 'resumeNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { resumeWaitingRuns: [true], receiveFrom: ['service'] } },
			},
			{
				displayName: 'Also Start This Workflow for Replies',
				name: 'alsoStartForReplies',
				type: 'boolean',
				default: false,
				description:
					'Whether a reply that resumed a waiting run also starts this workflow (its item then has resumedWaitingRun: true)',
				displayOptions: { show: { resumeWaitingRuns: [true], receiveFrom: ['service'] } },
			},
			{
				displayName: 'Also Start This Workflow for Statuses',
				name: 'alsoStartForStatuses',
				type: 'boolean',
				default: false,
				description:
					'Whether a message status that a run waits for (a send’s Wait for Status) also starts this workflow (its item then has statusForWaitingRun: true)',
				displayOptions: { show: { resumeWaitingRuns: [true], receiveFrom: ['service'] } },
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

	methods = { credentialTest: { [CREDENTIAL_TEST]: testCredential } };

	/**
	 * The lifecycle of the trigger's own webhook: a trigger that receives through the sharing trigger registers
	 * with it (sharing/subscriber.ts); a sharing trigger makes sure it is the only one on this n8n.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return false;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				if (receivesThroughSharingTrigger(this.getNode().parameters)) return await subscribe(this);
				if (sharesWith(this.getNode().parameters)) await ensureOnlySharer(this);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				if (receivesThroughSharingTrigger(this.getNode().parameters)) return await unsubscribe(this);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		try {
			if (isWaitsRequest(this)) {
				// The trigger answers every request of its waits webhook itself: the store goes with it too.
				handOverStore(this);
				return await handleWaitsRequest(this, await receivedBytes(this));
			}
			// Rule 1 (sharing/registry.ts) goes with the trigger's own answers (`answer`), not with a request that starts a
			// run: n8n saves nothing of it; the done marks this process made go with its next save of its own.
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
