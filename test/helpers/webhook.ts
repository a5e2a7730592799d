/**
 * Runs the Business Messaging Trigger's `webhook()` through n8n-core for real: a `Workflow` holding
 * the trigger node, n8n-core's own `WebhookContext`, a fake express request and a recording response.
 *
 * Around the node it is a stand-in, not a model of n8n: "the database" is a JSON copy of whatever static
 * data the node changed in a request it answered itself (n8n saves static data for those only; a new
 * harness built from `savedStaticData()` is a restart), and the answer is the node's own or, when the node
 * hands over a run, n8n's answer in the node's response mode once the run exists (or 500 for
 * `failNextRuns`). The end-to-end suites check the trigger in real n8n for that (test/e2e/checks/trigger.ts,
 * the versions smoke, the fault suite). Test runs (mode `manual`) save nothing here. A throw gets 500
 * unless the node answered first.
 */

import { EventEmitter } from 'node:events';

import { Container } from '@n8n/di';
import { HookContext, InstanceSettings, WebhookContext } from 'n8n-core';
import {
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeExecutionData,
	type INodeParameters,
	type INodeProperties,
	type INodeType,
	type INodeTypes,
	type IWebhookData,
	type IWebhookDescription,
	type IWebhookResponseData,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { BusinessMessagingTrigger } from '../../nodes/BusinessMessagingTrigger/BusinessMessagingTrigger.node';
import { sharesWith } from '../../nodes/BusinessMessagingTrigger/sharing/scope';
import { assertNoSecrets, SENTINEL_CLIENT_SECRET, SENTINEL_WEBHOOK_SECRET } from './secrets';

export const TRIGGER_NODE_TYPE = 'n8n-nodes-business-messaging.businessMessagingTrigger';
const TRIGGER_NODE_NAME = 'Business Messaging Trigger';
const CREDENTIAL_TYPE = 'businessMessagingApi';

/** The suite-wide sentinels: every outcome is checked for them (see ./secrets). */
export const TEST_WEBHOOK_SECRET = SENTINEL_WEBHOOK_SECRET;

export const DEFAULT_CREDENTIALS: ICredentialDataDecryptedObject = {
	baseUrl: 'https://api.example.test/v1',
	clientId: 'client-1',
	clientSecret: SENTINEL_CLIENT_SECRET,
	domain: 'workspace-1',
	webhookSecret: TEST_WEBHOOK_SECRET,
	phoneNumberId: '',
	multipartSigning: 'rawBody',
};

// NodeExecutionContext reads the instance id from here; the real InstanceSettings would create
// n8n's settings folder in the home directory. With the engine harness loaded too (it points n8n at a
// temporary user folder first), n8n's real one serves both.
if (!process.env.N8N_USER_FOLDER) {
	Container.set(InstanceSettings, {
		instanceId: 'webhook-harness',
		hmacSignatureSecret: 'webhook-harness',
	} as unknown as InstanceSettings);
}

export interface WebhookRequest {
	/** Header names in any case; n8n (express) sees them lowercased. */
	headers: Record<string, string | string[] | undefined>;
	/** The bytes on the wire. */
	body: Buffer | string;
	/** The request's path (default the trigger's production path); `/webhook/business-messaging-replies` for the waits webhook. */
	path?: string;
}

export interface TriggerSetup {
	/** Node parameters; unset ones take the node's defaults, as n8n fills them in. */
	parameters?: INodeParameters;
	/** Credential data, or null for a node whose credential cannot be loaded. */
	credentials?: ICredentialDataDecryptedObject | null;
	/** `webhook` is a production (active workflow) request, `manual` is listening for a test event (Execute step). */
	mode?: WorkflowExecuteMode;
	/** Static data as n8n saved it (e.g. `savedStaticData()` of an earlier harness). */
	staticData?: IDataObject;
	/**
	 * The workflow's id. By default every harness is a workflow of its own, so the trigger's in-process
	 * memory of accepted deliveries starts empty for it, as after a restart; harnesses sharing an id share it.
	 */
	workflowId?: string;
	/**
	 * The id of the credential the node uses (default: one of the workflow's own). Readings of the Webhook
	 * Secret are shared per credential id, also with the asking node's resume address (nodes/shared/webhookSecret.ts).
	 */
	credentialId?: string;
	/** The trigger node's version (default 1); n8n hands the node the raw body differently for 2. */
	typeVersion?: number;
	/** The node's webhook id (its URLs' path), when several triggers share one stand-in n8n. */
	webhookId?: string;
	/** n8n's address (default http://localhost:5678): its webhook URLs start with it. */
	baseUrl?: string;
	/** The workflow's name (default 'Trigger harness'). */
	workflowName?: string;
	/**
	 * The database row of the workflow's static data, when harnesses stand for n8n processes sharing one
	 * database (queue mode): each loads it per request and saves over it, last write winning.
	 */
	database?: { saved: string; saves?: number };
	/**
	 * How long n8n's database takes to answer (ms), once after the request loads the static data and once before
	 * it saves them: n8n reads and writes with I/O, so other requests load and save in between (default 0: a
	 * request that does no I/O of its own runs from load to save without another coming between).
	 */
	databaseLatencyMs?: number;
}

export interface WebhookOutcome {
	statusCode: number;
	/** The answer's JSON body (or text, as n8n would send it). */
	body: unknown;
	workflowStarted: boolean;
	/** The node left the answer to n8n, which sends it once the run exists (only when a run starts). */
	answeredAfterRunQueued?: boolean;
	/** Items that would start the workflow; empty when it does not start. */
	items: INodeExecutionData[];
	/** What `webhook()` threw, if it did; n8n would then answer 500. */
	threw: unknown;
	/** Everything the node logged: `level message`. */
	logs: string[];
}

class RecordingResponse extends EventEmitter {
	statusCode = 200;
	headersSent = false;
	writableEnded = false;
	/** The sender hung up: as on a destroyed socket, ending the response sends nothing (`headersSent` stays false). */
	hungUp = false;
	body: unknown = undefined;
	readonly headers: Record<string, string> = {};

	status(code: number) {
		this.statusCode = code;
		return this;
	}

	setHeader(name: string, value: string) {
		this.headers[name.toLowerCase()] = value;
		return this;
	}

	/** As Express: `json` hands the body to `send`, which writes it and ends the response. */
	json(body: unknown) {
		return this.send(body);
	}

	send(body: unknown) {
		this.body = body;
		return this.end();
	}

	/** Resolves once the response is ended: n8n's answer, or the trigger's own once it took n8n's over. */
	readonly ended = new Promise<void>((resolve) => this.once('ended', resolve));

	/**
	 * Node is still closing the connection the sender hung up (its side ended, the socket not yet destroyed):
	 * ending the response then keeps the answer for a socket that takes no more writes, so Node says no
	 * 'prefinish', only 'close' once the socket is gone (test/trigger/acknowledgement.test.ts shows it).
	 */
	private closing = false;

	/** As Node's response: 'prefinish' when ended, also after the sender hung up, except while Node is closing. */
	end() {
		if (this.writableEnded) return this;
		this.writableEnded = true;
		if (!this.hungUp) this.headersSent = true;
		this.emit(this.closing ? 'close' : 'prefinish');
		this.emit('ended');
		return this;
	}

	hangUp(moment: HangUp) {
		this.hungUp = true;
		if (moment === 'as n8n answers') this.closing = true;
		else this.emit('close');
	}
}

/**
 * When the sender closes the connection: once the request is sent, before the node runs (the 0 ms hang-up),
 * or in the instant n8n answers, while Node is still closing the connection.
 */
export type HangUp = 'before the trigger runs' | 'as n8n answers';

class HarnessNodeTypes implements INodeTypes {
	private readonly trigger = new BusinessMessagingTrigger();

	getByName(): INodeType {
		return this.trigger;
	}

	getByNameAndVersion(): INodeType {
		return this.trigger;
	}

	getKnownTypes() {
		return {};
	}
}

class HarnessCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly data: ICredentialDataDecryptedObject | null,
		private readonly onRead: () => void = () => {},
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(_credentials: ICredentialDataDecryptedObject, _typeName: string, requestOptions: IHttpRequestOptions) {
		return requestOptions;
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('webhook harness: getCredentials is not used by webhook()');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		this.onRead();
		if (this.data === null || type !== CREDENTIAL_TYPE) {
			throw new Error(`Credential with ID "${nodeCredentials.id ?? ''}" does not exist for type "${type}".`);
		}
		return { ...this.data };
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties(): INodeProperties[] {
		return [];
	}
}

function lowercaseHeaders(headers: WebhookRequest['headers']): Record<string, string | string[]> {
	const result: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (value !== undefined) result[name.toLowerCase()] = value;
	}
	return result;
}

/** The body as n8n's body parser leaves it in `req.body` (the node itself reads `rawBody`). */
function parsedBody(contentType: string, rawBody: Buffer): { ok: true; body: unknown } | { ok: false } {
	if (rawBody.length === 0) return { ok: true, body: {} };
	const text = rawBody.toString('utf8').replace(/^\uFEFF/, '');
	if (contentType === 'application/json') {
		try {
			return { ok: true, body: JSON.parse(text) };
		} catch {
			return { ok: false };
		}
	}
	if (contentType === 'text/plain') return { ok: true, body: text };
	return { ok: true, body: {} };
}

/** Content types n8n's body parser reads for webhook nodes after version 1 (`isParsableContentType`). */
function isParsedByN8n(contentType: string): boolean {
	return (
		contentType.startsWith('application/json') ||
		contentType.startsWith('text/plain') ||
		contentType.startsWith('application/x-www-form-urlencoded') ||
		contentType.endsWith('/xml') ||
		contentType.endsWith('+xml')
	);
}

/** Runs `fn` with `Date.now()` fixed, so timestamp windows are tested to the second. */
async function atTime<T>(nowMs: number | undefined, fn: () => Promise<T>): Promise<T> {
	if (nowMs === undefined) return await fn();
	const realNow = Date.now;
	Date.now = () => nowMs;
	try {
		return await fn();
	} finally {
		Date.now = realNow;
	}
}

let harnessCount = 0;

export class TriggerHarness {
	private readonly database: { saved: string; saves?: number };

	/**
	 * How many of the next runs the node hands over n8n fails to start, answering 500 (as when it cannot
	 * write the execution to its database).
	 */
	failNextRuns = 0;

	/** How many times the node read its credential through n8n. */
	credentialReads = 0;

	private readonly mode: WorkflowExecuteMode;

	private readonly nodeTypes = new HarnessNodeTypes();

	private readonly workflowId: string;

	constructor(private readonly setup: TriggerSetup = {}) {
		this.workflowId = setup.workflowId ?? `workflow-${++harnessCount}`;
		this.database = setup.database ?? { saved: JSON.stringify(setup.staticData ?? {}) };
		this.mode = setup.mode ?? 'webhook';
	}

	/** Whether this trigger shares its account's events (n8n then serves its second webhook). */
	sharesEvents(): boolean {
		return sharesWith(this.parameters());
	}

	/** The node's parameters as n8n fills them in (defaults included). */
	parameters(): INodeParameters {
		return this.parts().workflowNode.parameters;
	}

	/** Static data as n8n would have saved it to its database after the requests so far. */
	savedStaticData(): IDataObject {
		return JSON.parse(this.database.saved) as IDataObject;
	}

	/**
	 * Sends one request; `nowMs` fixes the clock the node sees (default: the real clock). `hangUp`: when the
	 * sender closes the connection.
	 */
	async send(request: WebhookRequest, nowMs?: number, options: { hangUp?: HangUp } = {}): Promise<WebhookOutcome> {
		const outcome = await this.deliver(request, nowMs, options.hangUp);
		assertNoSecrets('the trigger’s answer, items or logs', { ...outcome, threw: outcome.threw });
		return outcome;
	}

	/** Executions n8n created so far (each run handed over and not failed). */
	executionsCreated = 0;

	private answerGate: Promise<void> | undefined;

	/** n8n answers no run handed over from now on until the returned function is called (n8n far behind). */
	holdRunAnswers(): () => void {
		let release!: () => void;
		this.answerGate = new Promise((resolve) => (release = resolve));
		return () => {
			this.answerGate = undefined;
			release();
		};
	}

	private async databaseAnswers(): Promise<void> {
		if (this.setup.databaseLatencyMs) await new Promise((resolve) => setTimeout(resolve, this.setup.databaseLatencyMs));
	}

	/** The workflow around the trigger node, as n8n builds it for each request from the saved workflow. */
	private parts() {
		const node: INode = {
			id: 'trigger-node-id',
			name: TRIGGER_NODE_NAME,
			type: TRIGGER_NODE_TYPE,
			typeVersion: this.setup.typeVersion ?? 1,
			position: [0, 0],
			webhookId: this.setup.webhookId ?? 'harness-webhook-id',
			parameters: { ...(this.setup.parameters ?? {}) },
			credentials: { [CREDENTIAL_TYPE]: { id: this.setup.credentialId ?? `credential-of-${this.workflowId}`, name: 'Business Messaging account' } },
		};
		const workflow = new Workflow({
			id: this.workflowId,
			name: this.setup.workflowName ?? 'Trigger harness',
			nodes: [node],
			connections: {},
			active: this.mode !== 'manual',
			nodeTypes: this.nodeTypes,
			staticData: JSON.parse(this.database.saved) as IDataObject,
		});
		const baseUrl = this.setup.baseUrl ?? 'http://localhost:5678';
		const additionalData = {
			credentialsHelper: new HarnessCredentialsHelper(this.setup.credentials === undefined ? DEFAULT_CREDENTIALS : this.setup.credentials, () => this.credentialReads++),
			webhookBaseUrl: `${baseUrl}/webhook`,
			webhookTestBaseUrl: `${baseUrl}/webhook-test`,
			webhookWaitingBaseUrl: `${baseUrl}/webhook-waiting`,
			formWaitingBaseUrl: `${baseUrl}/form-waiting`,
			restApiUrl: `${baseUrl}/rest`,
			instanceBaseUrl: baseUrl,
			variables: {},
		};
		return { node, workflow, workflowNode: workflow.getNode(TRIGGER_NODE_NAME) as INode, additionalData };
	}

	/**
	 * Runs the trigger's webhook lifecycle as n8n does when it activates the workflow (`create`, mode
	 * `webhook`), deactivates it (`delete`), or starts and stops listening for a test event (mode `manual`),
	 * through n8n-core's HookContext. Resolves with what it logged; rejects with what it threw.
	 */
	async lifecycle(method: 'create' | 'delete'): Promise<string[]> {
		const { workflow, workflowNode, additionalData } = this.parts();
		const description = this.nodeTypes.getByName().description.webhooks![0];
		// n8n marks the webhook of a test listener as such (test-webhooks.js), so the node's URL is its Test URL.
		const webhookData = { httpMethod: 'POST', node: TRIGGER_NODE_NAME, path: `${String(workflowNode.webhookId)}/webhook`, webhookDescription: description, workflowId: this.workflowId, isTest: this.mode === 'manual' } as IWebhookData;
		const context = new HookContext(workflow, workflowNode, additionalData as unknown as IWorkflowExecuteAdditionalData, this.mode, this.mode === 'manual' ? 'manual' : 'activate', webhookData);
		const logs: string[] = [];
		const record = (level: string) => (message: string) => logs.push(`${level} ${message}`);
		Object.defineProperty(context, 'logger', { value: { error: record('error'), warn: record('warn'), info: record('info'), debug: record('debug') } });
		const methods = this.nodeTypes.getByName().webhookMethods!.default!;
		await methods[method]!.call(context);
		return logs;
	}

	private async deliver(request: WebhookRequest, nowMs: number | undefined, hangUp: HangUp | undefined): Promise<WebhookOutcome> {
		const headers = lowercaseHeaders(request.headers);
		const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
		const contentHeader = headers['content-type'];
		const contentType = (typeof contentHeader === 'string' ? contentHeader : '').split(';')[0].trim().toLowerCase();
		const parsed = parsedBody(contentType, rawBody);
		if (!parsed.ok) {
			// n8n's body parser answers before any node runs.
			return {
				statusCode: 422,
				body: { message: 'Failed to parse request body' },
				workflowStarted: false,
				items: [],
				threw: undefined,
				logs: [],
			};
		}

		const { node, workflow, workflowNode, additionalData: base } = this.parts();
		await this.databaseAnswers();
		const typeVersion = node.typeVersion;
		// n8n reads the body before calling a version 1 node; for later versions only when it parses the
		// content type, leaving `readRawBody()` to the node (n8n/dist/webhooks/webhook-helpers.js, parseRequestBody).
		const bodyReadByN8n = typeVersion === 1 || isParsedByN8n(contentType);
		const path = request.path ?? `/webhook/${node.webhookId}/webhook`;
		const req: Record<string, unknown> = {
			method: 'POST',
			path,
			url: path,
			originalUrl: path,
			headers,
			body: bodyReadByN8n ? parsed.body : undefined,
			rawBody: bodyReadByN8n ? rawBody : undefined,
			readRawBody: async () => {
				req.rawBody = rawBody;
			},
			params: {},
			query: {},
			contentType,
		};
		const res = new RecordingResponse();
		if (hangUp) res.hangUp(hangUp);
		const additionalData = { ...base, httpRequest: req, httpResponse: res } as unknown as IWorkflowExecuteAdditionalData;
		const description = this.nodeTypes.getByName().description.webhooks?.[0];
		const webhookData = {
			httpMethod: 'POST',
			node: TRIGGER_NODE_NAME,
			path: `${node.webhookId}/${String(description?.path)}`,
			webhookDescription: description,
			workflowId: this.workflowId,
			workflowExecuteAdditionalData: additionalData,
		} as IWebhookData;

		const context = new WebhookContext(workflow, workflowNode, additionalData, this.mode, webhookData, [], null);
		const logs: string[] = [];
		const record = (level: string) => (message: string) => logs.push(`${level} ${message}`);
		// n8n-core reads the logger from its DI container on every use; the harness records instead.
		Object.defineProperty(context, 'logger', {
			value: { error: record('error'), warn: record('warn'), info: record('info'), debug: record('debug') },
		});

		let result: IWebhookResponseData | undefined;
		let threw: unknown;
		try {
			result = await atTime(nowMs, async () => await new BusinessMessagingTrigger().webhook.call(context));
		} catch (error) {
			threw = error;
		}

		// The stand-in database keeps what a production request the node answered itself changed.
		const staticData = workflow.staticData as IDataObject & { __dataChanged?: boolean };
		const answeredByNode = result !== undefined && (result.noWebhookResponse === true || result.workflowData === undefined);
		if (this.mode !== 'manual' && answeredByNode && staticData.__dataChanged === true) {
			await this.databaseAnswers();
			this.database.saved = JSON.stringify(staticData);
			this.database.saves = (this.database.saves ?? 0) + 1;
		}
		// n8n sends the node's own answer once it saved the static data (live-webhooks.js, then res.json in
		// webhook-request-handler.js): the trigger may take it over and answer later (acknowledgement.ts).
		if (result !== undefined && result.workflowData === undefined && result.noWebhookResponse !== true && !res.writableEnded) {
			res.json(result.webhookResponse ?? { message: 'Webhook call received' });
			await res.ended;
		}

		let runStarted = false;
		if (result?.workflowData !== undefined) {
			await this.answerGate;
			runStarted = await this.answerRun(res, description);
		}
		const outcome = this.answered(result, threw, res, description, logs, runStarted);
		// n8n ends the response; a sender that hung up gets nothing.
		res.statusCode = outcome.statusCode;
		res.end();
		if (!res.hungUp) res.emit('close');
		return hangUp ? { ...outcome, statusCode: 0, body: undefined } : outcome;
	}

	/**
	 * n8n's answer to a run handed over, as its webhook-helpers.js gives it: in `hostedChat` mode `res.send` once
	 * the run exists and the response ended a tick later (handleHostedChatResponse), or 500 when it cannot create
	 * the run; in `onReceived` mode the node's first item or its webhookResponse. Waits for the response to end:
	 * the trigger may take n8n's answer over and end it itself later (acknowledgement.ts).
	 */
	private async answerRun(res: RecordingResponse, description: IWebhookDescription | undefined): Promise<boolean> {
		// The node answered itself (a refusal summary): n8n only starts the run.
		if (res.writableEnded) {
			this.executionsCreated++;
			return true;
		}
		if (this.failNextRuns > 0) {
			this.failNextRuns--;
			res.status(500).json({ code: 500, message: 'Error in workflow' });
			process.nextTick(() => res.end());
			await res.ended;
			return false;
		}
		this.executionsCreated++;
		if (description?.responseMode !== 'hostedChat') return true;
		res.send({ executionStarted: true, executionId: String(this.executionsCreated), resumeToken: 'harness-resume-token' });
		process.nextTick(() => res.end());
		await res.ended;
		return true;
	}

	private answered(
		result: IWebhookResponseData | undefined,
		threw: unknown,
		res: RecordingResponse,
		description: IWebhookDescription | undefined,
		logs: string[],
		runStarted = false,
	): WebhookOutcome {
		if (threw !== undefined || result === undefined) {
			// n8n answers 500 unless the node already answered; then the sender keeps the node's answer
			// (n8n's own 500 fails with "Cannot set headers after they are sent", seen in its log only).
			const answered = res.writableEnded;
			return { statusCode: answered ? res.statusCode : 500, body: answered ? res.body : { message: 'Error in workflow' }, workflowStarted: false, items: [], threw, logs };
		}
		if (result.workflowData !== undefined) {
			const started = runStarted;
			if (!res.writableEnded) {
				// onReceived: n8n answers with the node's first item (webhook-on-received-response-extractor.js).
				const responseData = description?.responseData ?? 'firstEntryJson';
				const body = responseData === 'noData' ? undefined : responseData || (result.webhookResponse ?? { message: 'Workflow was started' });
				return { statusCode: 200, body, answeredAfterRunQueued: true, workflowStarted: started, items: result.workflowData[0] ?? [], threw, logs };
			}
			return { statusCode: res.statusCode, body: res.body, answeredAfterRunQueued: true, workflowStarted: started, items: started ? (result.workflowData[0] ?? []) : [], threw, logs };
		}
		if (result.noWebhookResponse === true) {
			return { statusCode: res.statusCode, body: res.body, workflowStarted: false, items: [], threw, logs };
		}
		return {
			statusCode: res.statusCode,
			body: res.body,
			workflowStarted: false,
			items: [],
			threw,
			logs,
		};
	}
}

/** One request against a fresh trigger. */
export async function runWebhook(
	request: WebhookRequest,
	setup: TriggerSetup = {},
	nowMs?: number,
): Promise<WebhookOutcome> {
	return await new TriggerHarness(setup).send(request, nowMs);
}

/** The node's parameter defaults, as n8n fills them into a new node (for tests that inspect them). */
export function defaultParameters(): INodeParameters {
	const properties = new BusinessMessagingTrigger().description.properties;
	return NodeHelpers.getNodeParameters(properties, {}, true, false, null, null) ?? {};
}
