/**
 * Runs one node as a real workflow through n8n-core's engine (WorkflowExecute), in process.
 *
 * A start node (defined here) emits the test's input items, binary included, into the node under
 * test. Credentials come from memory; their `authenticate` runs as in n8n's own CredentialsHelper.
 * HTTP goes out for real through n8n's OutboundHttp, so point the node at a local server.
 *
 * Setup (temp user folder, DI services, binary data store, loggers) happens once per process.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ExecutionBaseError,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	ResourceMapperFields,
	Logger as WorkflowLogger,
} from 'n8n-workflow';

// Where n8n keeps its settings file and binary data. Must be set before n8n's config classes are
// first constructed (they read the environment then), so it is done at import time.
const userFolder = mkdtempSync(join(tmpdir(), 'n8n-engine-test-'));
process.env.N8N_USER_FOLDER = userFolder;
process.env.N8N_DEFAULT_BINARY_DATA_MODE = 'filesystem';
// Tests talk to servers on 127.0.0.1: keep n8n's SSRF guard off (it is off by default; this pins it).
process.env.N8N_SSRF_PROTECTION_ENABLED = 'false';
// A developer's HTTP(S)_PROXY must not swallow requests to the local test servers.
for (const name of ['NO_PROXY', 'no_proxy']) {
	process.env[name] = [process.env[name], 'localhost,127.0.0.1,::1'].filter(Boolean).join(',');
}
// n8n complains about settings file permissions on every start otherwise.
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS = 'false';

/* eslint-disable @typescript-eslint/no-require-imports */
// Loaded after the environment above is in place.
const core = require('n8n-core') as typeof import('n8n-core');
const wf = require('n8n-workflow') as typeof import('n8n-workflow');
// n8n-core brings its own copies of some @n8n packages (node_modules/n8n-core/node_modules/@n8n):
// DI keys are classes, so the Logger to replace is the one n8n-core itself resolves.
const fromCore = (name: string): unknown =>
	require(require.resolve(name, { paths: [dirname(require.resolve('n8n-core'))] }));
const { Container } = fromCore('@n8n/di') as typeof import('@n8n/di');
const { Logger } = fromCore('@n8n/backend-common') as typeof import('@n8n/backend-common');
const { DataDeduplicationService } = require(
	join(dirname(require.resolve('n8n-core')), 'data-deduplication-service'),
) as typeof import('n8n-core/dist/data-deduplication-service');
/* eslint-enable @typescript-eslint/no-require-imports */

export const START_NODE_TYPE = 'engineTest.start';
const START_NODE_NAME = 'Start';
const DEFAULT_NODE_NAME = 'Node Under Test';

export interface RunNodeInputItem {
	json: IDataObject;
	binary?: Record<string, { data: Buffer; fileName?: string; mimeType: string }>;
}

export interface RunNodeOptions {
	/** Node types by type name, e.g. `{ 'n8n-nodes-business-messaging.businessMessaging': new BusinessMessaging() }`. */
	nodeTypes: Record<string, INodeType | IVersionedNodeType>;
	/** Credential types by name, e.g. `{ businessMessagingApi: new BusinessMessagingApi() }`. */
	credentialTypes: Record<string, ICredentialType>;
	/** Decrypted credential data by credential type name. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	node: {
		type: string;
		parameters: INodeParameters;
		typeVersion?: number;
		continueOnFail?: boolean;
		name?: string;
		/** n8n's node setting Retry On Fail, with its Max Tries and Wait Between Tries (ms). */
		retryOnFail?: boolean;
		maxTries?: number;
		waitBetweenTries?: number;
	};
	/** Items fed into the node. Defaults to one empty item. */
	input?: RunNodeInputItem[];
	/**
	 * A failed run to retry as n8n's Retry button does (ExecutionService.retry, loadWorkflow): its
	 * saved execution data resumes at the failed node, the node taken from `node` above.
	 */
	retryOf?: RunResult;
	/** The n8n the run belongs to (its webhook and waiting-webhook addresses); default http://localhost:5678. */
	n8nUrl?: string;
}

export interface RunResult {
	/** Output 0 of the node. */
	items: INodeExecutionData[];
	/** Every output of the node. */
	outputs: INodeExecutionData[][];
	/**
	 * The node's error when the run failed, as n8n records it: a plain copy of the error's own fields
	 * (`name`, `message`, `description`, `httpCode`, `context`, `node`, ...), so `instanceof` does not
	 * hold; compare `name`.
	 */
	error?: ExecutionBaseError;
	/** Everything n8n's logger and the node logged, one line per call: `level message {metadata}`. */
	logs: string[];
	/** The full run, for anything else a test wants to look at. */
	run: IRun;
}

// ---------------------------------------------------------------------------------------------
// Logs

// Each run's log lines, kept apart by async context so that runs in parallel (Promise.all) do not mix.
const runLogs = new AsyncLocalStorage<string[]>();
// Lines logged outside any run (setup, stray timers): kept so nothing is silently lost.
const strayLogs: string[] = [];

function record(level: string) {
	return (message: string, metadata?: unknown) => {
		let meta = '';
		if (metadata !== undefined) {
			try {
				meta = ' ' + JSON.stringify(metadata, errorReplacer);
			} catch {
				meta = ' ' + String(metadata);
			}
		}
		(runLogs.getStore() ?? strayLogs).push(`${level} ${message}${meta}`);
	};
}

// Errors serialise to {} by default; the secret-leak checks need their text.
function errorReplacer(_key: string, value: unknown) {
	if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
	return value;
}

/** Stands in for @n8n/backend-common's Logger (what `this.logger` in a node is) and LoggerProxy. */
const recordingLogger = {
	error: record('error'),
	warn: record('warn'),
	info: record('info'),
	debug: record('debug'),
	scoped() {
		return recordingLogger;
	},
};

/** Lines logged outside any run, e.g. during setup. */
export function logsOutsideRuns(): string[] {
	return strayLogs;
}

// ---------------------------------------------------------------------------------------------
// Start node: emits the test's input items, storing binary through n8n's own helper.

const inputByRun = new Map<string, RunNodeInputItem[]>();

class EngineTestStart implements INodeType {
	description = {
		displayName: 'Engine Test Start',
		name: START_NODE_TYPE,
		group: ['input'],
		version: 1,
		description: 'Emits the items a test hands to runNode',
		defaults: { name: START_NODE_NAME },
		inputs: [wf.NodeConnectionTypes.Main],
		outputs: [wf.NodeConnectionTypes.Main],
		properties: [{ displayName: 'Run', name: 'runId', type: 'string', default: '' }] as INodeProperties[],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const runId = this.getNodeParameter('runId', 0) as string;
		const input = inputByRun.get(runId) ?? [{ json: {} }];
		const out: INodeExecutionData[] = [];
		for (const item of input) {
			const entry: INodeExecutionData = { json: item.json, pairedItem: { item: 0 } };
			if (item.binary) {
				entry.binary = {};
				for (const [prop, file] of Object.entries(item.binary)) {
					entry.binary[prop] = await this.helpers.prepareBinaryData(file.data, file.fileName, file.mimeType);
				}
			}
			out.push(entry);
		}
		return [out];
	}
}

// ---------------------------------------------------------------------------------------------
// Node types and credentials

class TestNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType | IVersionedNodeType>) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types[nodeType];
		if (!type) throw new Error(`engine harness: unknown node type "${nodeType}"`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return wf.NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes() {
		return {};
	}
}

/** In-memory credentials; `authenticate` behaves like n8n's CredentialsHelper for function and generic kinds. */
export class TestCredentialsHelper extends wf.ICredentialsHelper {
	constructor(
		private readonly types: Record<string, ICredentialType>,
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	private type(name: string): ICredentialType {
		const type = this.types[name];
		if (!type) throw new Error(`engine harness: unknown credential type "${name}"`);
		return type;
	}

	getParentTypes(name: string): string[] {
		const parents = this.types[name]?.extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		const type = this.types[credentialType];
		if (!type?.restrictToSupportedNodes) return true;
		return (type.supportedNodes ?? []).includes(nodeType);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.type(typeName);
		if (typeof authenticate === 'function') {
			// n8n hands the function the options object itself and uses what it returns.
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate?.type === 'generic') {
			// Same as n8n: resolve `={{$credentials.x}}` and merge into the request.
			const options = requestOptions as IHttpRequestOptions & IDataObject;
			for (const [outKey, props] of Object.entries(authenticate.properties)) {
				const target = (options[outKey] ??= {}) as IDataObject;
				for (const [key, expr] of Object.entries(props as IDataObject)) {
					target[key] = resolveCredentialExpression(expr, credentials);
				}
			}
			return options;
		}
		return requestOptions as IHttpRequestOptions;
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		_node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.type(typeName);
		if (typeof type.preAuthentication !== 'function') return undefined;
		// n8n re-runs preAuthentication when the token is missing or the request came back 401.
		const expirable = type.properties.find((p) => p.typeOptions?.expirable === true);
		if (!expirable) return undefined;
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;
		return await this.runPreAuthentication(helpers, credentials, typeName);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.type(typeName);
		if (typeof type.preAuthentication !== 'function') return undefined;
		const output = await type.preAuthentication.call(helpers, credentials);
		Object.assign(credentials, output);
		this.data[typeName] = { ...this.data[typeName], ...output } as ICredentialDataDecryptedObject;
		return credentials;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string) {
		const credentials = new core.Credentials(nodeCredentials, type);
		credentials.setData(this.data[type] ?? {});
		return credentials;
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.data[type];
		if (!data) throw new Error(`engine harness: no credentials given for "${type}"`);
		// A copy, as n8n decrypts afresh for every use: a node must not change the stored data.
		return structuredClone(data);
	}

	async updateCredentials(_nodeCredentials: INodeCredentialsDetails, type: string, data: ICredentialDataDecryptedObject) {
		this.data[type] = data;
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	) {
		this.data[type] = data;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.types[type]?.properties ?? [];
	}
}

/** Enough of n8n's expression support for generic credential auth: `={{$credentials.name}}` and text around it. */
function resolveCredentialExpression(expr: unknown, credentials: ICredentialDataDecryptedObject): IDataObject[string] {
	if (typeof expr !== 'string' || !expr.startsWith('=')) return expr as IDataObject[string];
	const body = expr.slice(1);
	const whole = /^\{\{\s*\$credentials\.(\w+)\s*\}\}$/.exec(body);
	if (whole) return credentials[whole[1]];
	return body.replace(/\{\{\s*\$credentials\.(\w+)\s*\}\}/g, (_m, name: string) => String(credentials[name] ?? ''));
}

// ---------------------------------------------------------------------------------------------
// One-time setup

let setupPromise: Promise<void> | undefined;

async function setupOnce(): Promise<void> {
	// Every DI service that wants a Logger gets the recording one, and so does `this.logger` in nodes.
	Container.set(Logger, recordingLogger as unknown as InstanceType<typeof Logger>);
	wf.LoggerProxy.init(recordingLogger as unknown as WorkflowLogger);
	await Container.get(core.BinaryDataService).init();
	await DataDeduplicationService.init(new MemoryProcessedData());
}

/**
 * n8n's processed-data store (`checkProcessedAndRecord`) lives in the n8n server's database; this
 * process has none. The same behaviour for mode 'entries' (as n8n's deduplication-helper.js: keys
 * per workflow and node, oldest dropped beyond maxEntries), kept in memory for the process.
 */
class MemoryProcessedData implements IDataDeduplicator {
	private readonly lists = new Map<string, string[]>();

	private list(scope: DeduplicationScope, contextData: ICheckProcessedContextData): string[] {
		const key = `${contextData.workflow.id} ${scope === 'node' ? contextData.node?.id : ''}`;
		if (!this.lists.has(key)) this.lists.set(key, []);
		return this.lists.get(key)!;
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	) {
		if (options.mode !== 'entries') throw new Error('engine harness: only mode "entries" of the processed-data store');
		const list = this.list(scope, contextData);
		const known = new Set(list);
		const result: { new: DeduplicationItemTypes[]; processed: DeduplicationItemTypes[] } = { new: [], processed: [] };
		for (const item of items) {
			if (known.has(String(item))) result.processed.push(item);
			else {
				result.new.push(item);
				list.push(String(item));
				known.add(String(item));
			}
		}
		if (options.maxEntries) list.splice(0, Math.max(0, list.length - options.maxEntries));
		return result;
	}

	async removeProcessed(items: DeduplicationItemTypes[], scope: DeduplicationScope, contextData: ICheckProcessedContextData) {
		const list = this.list(scope, contextData);
		for (const item of items) {
			const at = list.indexOf(String(item));
			if (at !== -1) list.splice(at, 1);
		}
	}

	async clearAllProcessedItems(scope: DeduplicationScope, contextData: ICheckProcessedContextData) {
		this.list(scope, contextData).length = 0;
	}

	async getProcessedDataCount(scope: DeduplicationScope, contextData: ICheckProcessedContextData) {
		return this.list(scope, contextData).length;
	}
}

function ensureSetup(): Promise<void> {
	setupPromise ??= setupOnce();
	return setupPromise;
}

/** The temp folder n8n uses as its user folder in this process (binary data lives under it). */
export function engineUserFolder(): string {
	return userFolder;
}

// ---------------------------------------------------------------------------------------------
// Running

let runCounter = 0;

// Every credential the node type declares gets an entry pointing at the in-memory data.
function credentialRefs(
	type: INodeType,
	credentials: RunNodeOptions['credentials'],
): INode['credentials'] {
	const refs: INode['credentials'] = {};
	for (const { name } of type.description.credentials ?? []) {
		if (credentials?.[name]) refs[name] = { id: `${name}-id`, name: `${name} (test)` };
	}
	return refs;
}

/** What every node context needs from additionalData: credentials and n8n's URLs. */
function baseAdditionalData(opts: Pick<RunNodeOptions, 'credentialTypes' | 'credentials' | 'n8nUrl'>) {
	const n8n = opts.n8nUrl ?? 'http://localhost:5678';
	return {
		credentialsHelper: new TestCredentialsHelper(opts.credentialTypes, { ...(opts.credentials ?? {}) }),
		restApiUrl: `${n8n}/rest`,
		instanceBaseUrl: n8n,
		formBaseUrl: `${n8n}/form`,
		formWaitingBaseUrl: `${n8n}/form-waiting`,
		formTestBaseUrl: `${n8n}/form-test`,
		webhookBaseUrl: `${n8n}/webhook`,
		webhookWaitingBaseUrl: `${n8n}/webhook-waiting`,
		webhookTestBaseUrl: `${n8n}/webhook-test`,
		mcpBaseUrl: `${n8n}/mcp`,
		mcpTestBaseUrl: `${n8n}/mcp-test`,
		variables: {},
		logAiEvent: () => {},
		executeWorkflow: async () => {
			throw new Error('engine harness: sub-workflows are not supported');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: async () => {
			throw new Error('engine harness: task runners are not supported');
		},
	};
}

/** n8n-core's LoadOptionsContext for one node, as the editor's option and field loaders get it. */
async function loadOptionsContext(opts: Omit<RunNodeOptions, 'input'> & { parameterPath: string }) {
	await ensureSetup();
	const nodeTypes = new TestNodeTypes(opts.nodeTypes);
	const type = nodeTypes.getByNameAndVersion(opts.node.type, opts.node.typeVersion);
	const node: INode = {
		id: 'node-under-test-id',
		name: opts.node.name ?? DEFAULT_NODE_NAME,
		type: opts.node.type,
		typeVersion: opts.node.typeVersion ?? 1,
		position: [0, 0],
		parameters: opts.node.parameters,
		credentials: credentialRefs(type, opts.credentials),
	};
	const workflow = new wf.Workflow({
		id: 'engine-test-workflow',
		name: 'Engine test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
	});
	const additionalData = baseAdditionalData(opts) as unknown as IWorkflowExecuteAdditionalData;
	return { type, context: new core.LoadOptionsContext(workflow, node, additionalData, opts.parameterPath) };
}

/** Calls a node's `methods.listSearch` function through n8n-core's LoadOptionsContext, as the editor does. */
export async function runListSearch(
	opts: Omit<RunNodeOptions, 'input'> & { method: string; parameterPath: string; filter?: string; paginationToken?: string },
): Promise<INodeListSearchResult> {
	const { type, context } = await loadOptionsContext(opts);
	const search = type.methods?.listSearch?.[opts.method];
	if (!search) throw new Error(`engine harness: no listSearch method "${opts.method}"`);
	return await search.call(context, opts.filter, opts.paginationToken);
}

/** Calls a node's `methods.resourceMapping` function (the fields of a resource mapper), as the editor does. */
export async function runResourceMapping(
	opts: Omit<RunNodeOptions, 'input'> & { method: string; parameterPath: string },
): Promise<ResourceMapperFields> {
	const { type, context } = await loadOptionsContext(opts);
	const method = type.methods?.resourceMapping?.[opts.method];
	if (!method) throw new Error(`engine harness: no resourceMapping method "${opts.method}"`);
	return await method.call(context);
}

export async function runNode(opts: RunNodeOptions): Promise<RunResult> {
	await ensureSetup();
	const logs: string[] = [];
	return await runLogs.run(logs, async () => await runInContext(opts, logs));
}

async function runInContext(opts: RunNodeOptions, logs: string[]): Promise<RunResult> {
	const runId = String(++runCounter);
	const executionId = `engine-test-${runId}`;
	inputByRun.set(runId, opts.input ?? [{ json: {} }]);

	const nodeName = opts.node.name ?? DEFAULT_NODE_NAME;
	const nodeTypes = new TestNodeTypes({ ...opts.nodeTypes, [START_NODE_TYPE]: new EngineTestStart() });

	const typeUnderTest = nodeTypes.getByNameAndVersion(opts.node.type, opts.node.typeVersion);
	const typeVersion =
		opts.node.typeVersion ??
		(Array.isArray(typeUnderTest.description.version)
			? Math.max(...typeUnderTest.description.version)
			: typeUnderTest.description.version);

	const nodeCredentials = credentialRefs(typeUnderTest, opts.credentials);

	const startNode: INode = {
		id: 'start-node-id',
		name: START_NODE_NAME,
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { runId },
	};
	const nodeUnderTest: INode = {
		id: 'node-under-test-id',
		name: nodeName,
		type: opts.node.type,
		typeVersion,
		position: [200, 0],
		parameters: opts.node.parameters,
		credentials: nodeCredentials,
		// What n8n stores when "On Error" is "Continue": this.continueOnFail() reads it.
		...(opts.node.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...(opts.node.retryOnFail
			? { retryOnFail: true, maxTries: opts.node.maxTries, waitBetweenTries: opts.node.waitBetweenTries }
			: {}),
	};

	const workflowData = {
		id: 'engine-test-workflow',
		name: 'Engine test',
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes: [startNode, nodeUnderTest],
		connections: {
			[START_NODE_NAME]: { main: [[{ node: nodeName, type: wf.NodeConnectionTypes.Main, index: 0 }]] },
		},
		settings: { executionOrder: 'v1' as const },
	};
	const workflow = new wf.Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes: workflowData.nodes,
		connections: workflowData.connections,
		active: false,
		nodeTypes,
		settings: workflowData.settings,
	});

	const mode = opts.retryOf ? 'retry' : 'manual';
	const hooks = new core.ExecutionLifecycleHooks(mode, executionId, workflowData);
	const finished = new Promise<IRun>((resolve) => {
		hooks.addHandler('workflowExecuteAfter', (run) => resolve(run));
	});

	const additionalData = {
		...baseAdditionalData(opts),
		hooks,
		executionId,
		currentNodeExecutionIndex: 0,
	} as unknown as IWorkflowExecuteAdditionalData;

	const runExecutionData = opts.retryOf
		? retryData(opts.retryOf, workflow)
		: wf.createRunExecutionData({
				executionData: {
					nodeExecutionStack: [{ node: startNode, data: { main: [[{ json: {} }]] }, source: null }],
				},
			});

	try {
		const execution = new core.WorkflowExecute(additionalData, mode, runExecutionData);
		await execution.processRunExecutionData(workflow);
		const run = await finished;
		const taskData = run.data.resultData.runData[nodeName]?.at(-1);
		const outputs = (taskData?.data?.main ?? []).map((items) => items ?? []);
		const error = (taskData?.error ?? run.data.resultData.error) as ExecutionBaseError | undefined;
		return { items: outputs[0] ?? [], outputs, error, logs, run };
	} finally {
		inputByRun.delete(runId);
	}
}

/** What n8n's ExecutionService.retry does to a failed execution's data before running it again. */
function retryData(failed: RunResult, workflow: InstanceType<typeof wf.Workflow>) {
	const data = structuredClone(failed.run.data);
	delete data.resultData.error;
	const last = data.resultData.lastNodeExecuted;
	const runs = last ? data.resultData.runData[last] : undefined;
	if (runs?.length && runs[runs.length - 1].error !== undefined) runs.pop();
	for (const entry of data.executionData?.nodeExecutionStack ?? []) {
		entry.node = workflow.getNode(entry.node.name) ?? entry.node;
	}
	return data;
}
