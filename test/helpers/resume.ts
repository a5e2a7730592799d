/**
 * Calls the action node's webhook (a waiting run's resume address) through n8n-core's WebhookContext,
 * with the run data a waiting execution of test/helpers/engine.ts saved: what n8n's waiting webhook does
 * once it found the execution waiting (n8n/dist/webhooks/waiting-webhooks.js). The answer is the node's
 * own, or n8n's `webhookResponse` when the node hands back the resumed item.
 */
import { EventEmitter } from 'node:events';

import { WebhookContext } from 'n8n-core';
import { Workflow, type IDataObject, type INode, type INodeType, type INodeTypes, type IWebhookData, type IWebhookResponseData, type IWorkflowExecuteAdditionalData } from 'n8n-workflow';

import { BusinessMessagingApi } from '../../credentials/BusinessMessagingApi.credentials';
import { BusinessMessaging } from '../../nodes/BusinessMessaging/BusinessMessaging.node';
import type { Sandbox } from '../../tools/sandbox';
import { ACTION_NODE_TYPE } from './actionNode';
import { TestCredentialsHelper, type RunResult } from './engine';
import { assertNoSecrets } from './secrets';

export interface ResumeRequest {
	method?: 'GET' | 'POST';
	/** Query string of the resume address (`wait=…` of the genuine one). */
	query: string;
	headers?: Record<string, string>;
	body?: string;
	/** The mode of the waiting run, which n8n resumes it in (waiting-webhooks.js): 'manual' for a run started in the editor. */
	executionMode?: 'webhook' | 'manual';
}

export interface ResumeOutcome {
	status: number;
	body: unknown;
	/** The item the run is resumed with, when the node resumes it. */
	resumedWith?: IDataObject;
	/** Every item the run is resumed with, with its pairedItem. */
	resumedItems?: Array<{ json: IDataObject; pairedItem?: unknown }>;
}

class Response extends EventEmitter {
	statusCode = 200;
	headersSent = false;
	body: unknown;
	status(code: number) {
		this.statusCode = code;
		return this;
	}
	setHeader() {
		return this;
	}
	json(body: unknown) {
		this.body = body;
		this.headersSent = true;
		return this;
	}
	end() {
		this.headersSent = true;
		return this;
	}
}

/** The id of the credential the asking node uses: a trigger harness given it shares its readings of the Webhook Secret. */
export const RESUME_CREDENTIAL_ID = 'businessMessagingApi-id';

/** One request to the resume address of `waiting` (a run of the asking node that waits). */
export async function callResumeAddress(sandbox: Pick<Sandbox, 'credentials'>, waiting: RunResult, request: ResumeRequest, credentials: IDataObject = {}): Promise<ResumeOutcome> {
	const action = new BusinessMessaging();
	const nodeTypes = { getByName: () => action, getByNameAndVersion: () => action, getKnownTypes: () => ({}) } as unknown as INodeTypes;
	const node: INode = {
		id: 'node-under-test-id',
		name: 'Node Under Test',
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: waiting.run.data.executionData!.nodeExecutionStack[0].node.parameters,
		credentials: { businessMessagingApi: { id: RESUME_CREDENTIAL_ID, name: 'businessMessagingApi (test)' } },
	};
	const workflow = new Workflow({ id: 'engine-test-workflow', nodes: [node], connections: {}, active: false, nodeTypes });
	const rawBody = Buffer.from(request.body ?? '', 'utf8');
	const req = { method: request.method ?? 'POST', url: `/webhook-waiting/1/node-under-test-id?${request.query}`, originalUrl: `/webhook-waiting/1/node-under-test-id?${request.query}`, headers: Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])), rawBody, body: {}, query: {}, params: {} };
	const res = new Response();
	const additionalData = {
		credentialsHelper: new TestCredentialsHelper({ businessMessagingApi: new BusinessMessagingApi() }, { businessMessagingApi: { ...sandbox.credentials, ...credentials } }),
		httpRequest: req,
		httpResponse: res,
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		variables: {},
	} as unknown as IWorkflowExecuteAdditionalData;
	const description = (action.description.webhooks ?? []).find((w) => w.httpMethod === req.method)!;
	const webhookData = { httpMethod: req.method, node: node.name, path: 'node-under-test-id', webhookDescription: description, workflowId: workflow.id, workflowExecuteAdditionalData: additionalData } as IWebhookData;
	const context = new WebhookContext(workflow, node, additionalData, request.executionMode ?? 'webhook', webhookData, [], waiting.run.data);
	const result: IWebhookResponseData = await (action as INodeType).webhook!.call(context);
	const outcome: ResumeOutcome = result.workflowData
		? { status: 200, body: result.webhookResponse, resumedWith: result.workflowData[0][0].json, resumedItems: result.workflowData[0] }
		: { status: res.statusCode, body: res.body };
	assertNoSecrets('the resume address’s answer', outcome);
	return outcome;
}
