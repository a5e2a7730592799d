/**
 * Workflows of this package's nodes, as JSON for `n8n import:workflow`. Shared by the e2e suite and the demo.
 * Parameters follow the node descriptions: `resource` and `operation` always present (n8n drops hidden ones).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { n8nId, REPO_ROOT } from './n8n';
import { chain, manualTrigger, node, type WebhookResponseMode, type WfNode, type Workflow, webhookIdFor, webhookTrigger } from './workflow';

export const ACTION_TYPE = 'n8n-nodes-business-messaging.businessMessaging';
export const TRIGGER_TYPE = 'n8n-nodes-business-messaging.businessMessagingTrigger';
export const CREDENTIAL_TYPE = 'businessMessagingApi';
/** The trigger's webhook `path` (nodes/BusinessMessagingTrigger: not a full path). */
export const TRIGGER_WEBHOOK_PATH = 'webhook';

/**
 * The demo credential's fields beyond the sandbox's: a Business Name, so that the answer page of Send and Wait
 * for Response says who asks (test:ui shows that page with these fields).
 */
export const DEMO_CREDENTIAL_FIELDS = { businessName: 'Acme Shop' };

export interface CredentialRef {
	id: string;
	name: string;
}

export function credentialEntry(name: string, data: Record<string, unknown>, id = n8nId(name)) {
	return { id, name, type: CREDENTIAL_TYPE, data };
}

export function action(name: string, credential: CredentialRef, parameters: Record<string, unknown>, extra: Partial<WfNode> = {}): WfNode {
	return node(name, ACTION_TYPE, 1, parameters, { credentials: { [CREDENTIAL_TYPE]: credential }, ...extra });
}

/** Production URL of a trigger node: `/webhook/<webhookId>/<path>` (the path is not a full path). */
export function triggerProductionPath(webhookId: string): string {
	return `/webhook/${webhookId}/${TRIGGER_WEBHOOK_PATH}`;
}

export function orderWorkflow(credential: CredentialRef, hookPath = 'e2e-orders', responseMode: WebhookResponseMode = 'lastNode'): Workflow {
	return chain('e2eOrders', 'E2E: orders (update, get many)', [
		webhookTrigger(hookPath, 'Run', responseMode),
		action('Update Order', credential, {
			resource: 'order',
			operation: 'update',
			orderId: '1',
			updateFields: {
				status: 'accepted',
				paymentStatus: 'paid',
				shippingDate: '2026-03-01',
				adminNotes: 'Packed by e2e; ship with care',
				branchId: 'branch-7',
			},
		}),
		action('List Accepted Orders', credential, {
			resource: 'order',
			operation: 'getAll',
			returnAll: true,
			filters: { status: 'accepted' },
		}),
	]);
}

export function templateWorkflow(credential: CredentialRef, hookPath = 'e2e-templates'): Workflow {
	return chain('e2eTemplates', 'E2E: templates (get many, get)', [
		webhookTrigger(hookPath),
		action('Search Templates', credential, {
			resource: 'template',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filters: { searchTerm: 'order_update' },
		}),
		action(
			'Get Template',
			credential,
			{ resource: 'template', operation: 'get', templateId: { __rl: true, mode: 'id', value: '7' } },
			{ executeOnce: true },
		),
	]);
}

export function textWorkflow(credential: CredentialRef, hookPath = 'e2e-text', responseMode: WebhookResponseMode = 'lastNode'): Workflow {
	return chain('e2eText', 'E2E: send text', [
		webhookTrigger(hookPath, 'Run', responseMode),
		action('Send Text', credential, {
			resource: 'message',
			operation: 'sendText',
			phoneNumberId: '',
			phone: '+15551234567',
			text: 'Hello from the e2e suite – ünïcödé ✓',
		}),
	]);
}

/** Reads a file from disk with n8n's own node, then sends it as media. */
export function mediaWorkflow(credential: CredentialRef, filePath: string, hookPath = 'e2e-media'): Workflow {
	return chain('e2eMedia', 'E2E: send media from a file', [
		webhookTrigger(hookPath),
		node('Read File', 'n8n-nodes-base.readWriteFile', 1.1, {
			operation: 'read',
			fileSelector: filePath,
			options: { dataPropertyName: 'data' },
		}),
		action('Send Media', credential, {
			resource: 'message',
			operation: 'sendMedia',
			phoneNumberId: '200300400',
			phone: '+15557654321',
			mediaType: 'image',
			binaryPropertyName: 'data',
			caption: 'A picture from disk',
		}),
	]);
}

/** Run with `n8n execute --id` (manual trigger). */
export function contactWorkflow(credential: CredentialRef): Workflow {
	return chain('e2eContacts', 'E2E: contacts (get many, via n8n execute)', [
		manualTrigger(),
		action('List Contacts', credential, { resource: 'contact', operation: 'getAll', returnAll: true }),
	]);
}

export function webhookTestWorkflow(credential: CredentialRef, hookPath = 'e2e-webhook-test'): Workflow {
	return chain('e2eWebhookTest', 'E2E: ask the service for a test event', [
		webhookTrigger(hookPath),
		action('Send Test Event', credential, { resource: 'webhook', operation: 'sendTest' }),
	]);
}

/** A failing operation: a template that does not exist. */
export function missingTemplateWorkflow(credential: CredentialRef, hookPath = 'e2e-missing'): Workflow {
	return chain('e2eMissing', 'E2E: a template that does not exist', [
		webhookTrigger(hookPath),
		action('Get Missing Template', credential, {
			resource: 'template',
			operation: 'get',
			templateId: { __rl: true, mode: 'id', value: '99999' },
		}),
	]);
}

/** n8n's own HTTP Request node with this package's credential as a predefined credential type. */
export function httpRequestWorkflow(credential: CredentialRef, baseUrl: string, phoneNumberId: string, hookPath = 'e2e-http'): Workflow {
	const common = {
		authentication: 'predefinedCredentialType',
		nodeCredentialType: CREDENTIAL_TYPE,
		sendQuery: true,
		options: {},
	};
	const creds = { credentials: { [CREDENTIAL_TYPE]: credential } };
	return chain('e2eHttpRequest', 'E2E: HTTP Request node with the credential', [
		webhookTrigger(hookPath),
		node(
			'HTTP GET Orders',
			'n8n-nodes-base.httpRequest',
			4.2,
			{
				...common,
				method: 'GET',
				url: `${baseUrl}/orders`,
				queryParameters: {
					parameters: [
						{ name: 'status', value: 'pending' },
						{ name: 'phone_number_id', value: phoneNumberId },
						{ name: 'limit', value: '5' },
						// A space: signed and sent as %20 (notes: n8n encodes spaces so).
						{ name: 'note', value: 'two words' },
					],
				},
			},
			creds,
		),
		node(
			'HTTP PUT Order',
			'n8n-nodes-base.httpRequest',
			4.2,
			{
				...common,
				method: 'PUT',
				url: `${baseUrl}/orders/2`,
				queryParameters: { parameters: [{ name: 'phone_number_id', value: phoneNumberId }] },
				sendBody: true,
				contentType: 'json',
				specifyBody: 'json',
				jsonBody: '{"status":"shipped","shipping_date":"2026-04-02","admin_notes":"set through the HTTP Request node"}',
			},
			{ ...creds, executeOnce: true },
		),
	]);
}

/**
 * The trigger in production: every accepted event starts one execution; a received message is answered
 * with a text reply through the action node.
 */
export function replyWorkflow(
	credential: CredentialRef,
	options: { id?: string; name?: string; webhookId?: string; events?: string[]; resumeWaitingRuns?: boolean } = {},
): Workflow {
	const trigger = node(
		'Business Messaging Trigger',
		TRIGGER_TYPE,
		1,
		{ events: options.events ?? ['*'], ...(options.resumeWaitingRuns ? { resumeWaitingRuns: true } : {}), options: {} },
		{ credentials: { [CREDENTIAL_TYPE]: credential }, webhookId: options.webhookId ?? webhookIdFor('e2e-trigger') },
	);
	const isMessage = node('Is Incoming Message?', 'n8n-nodes-base.if', 2.2, {
		conditions: {
			options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
			conditions: [
				{
					id: 'c1',
					leftValue: '={{ $json.event }}',
					rightValue: 'message.received',
					operator: { type: 'string', operation: 'equals' },
				},
			],
			combinator: 'and',
		},
		options: {},
	});
	const reply = action('Send Reply', credential, {
		resource: 'message',
		operation: 'sendText',
		phone: '={{ $json.data.from }}',
		text: '=Thanks for your message ("{{ $json.data.body }}"). We will answer shortly.',
	});
	const wf = chain(options.id ?? 'e2eTrigger', options.name ?? 'E2E: trigger, reply to incoming messages', [trigger, isMessage, reply]);
	// Only the "true" output of the IF leads to the reply.
	wf.connections[isMessage.name] = { main: [[{ node: reply.name, type: 'main', index: 0 }], []] };
	return wf;
}

/**
 * A bare trigger (all events, defaults) at the version new nodes get: the target of the adversarial
 * replay. (The reply workflow keeps version 1, as existing workflows have it.)
 */
export function bareTriggerWorkflow(
	credential: CredentialRef,
	webhookId: string,
	options: Record<string, unknown> = {},
	id = 'e2eBareTrigger',
	name = 'E2E: bare trigger for adversarial cases',
	saved: { typeVersion?: number; staticData?: Record<string, unknown> } = {},
): Workflow {
	const workflow = chain(id, name, [
		node('Business Messaging Trigger', TRIGGER_TYPE, saved.typeVersion ?? 2, { events: ['*'], options }, {
			credentials: { [CREDENTIAL_TYPE]: credential },
			webhookId,
		}),
	]);
	return saved.staticData ? Object.assign(workflow, { staticData: saved.staticData }) : workflow;
}

/**
 * Sends the text messages posted to it (`{ "messages": [{ "phone", "text", "order_id"? }] }`), one item
 * each, with the given options of the send.
 */
export function bulkTextWorkflow(
	id: string,
	credential: CredentialRef,
	hookPath: string,
	options: Record<string, unknown> = {},
	extra: Partial<WfNode> = {},
): Workflow {
	return chain(id, `E2E: bulk send (${hookPath})`, [
		webhookTrigger(hookPath),
		node('Split Out', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'body.messages', options: {} }),
		action(
			'Send Text',
			credential,
			{
				resource: 'message',
				operation: 'sendText',
				phoneNumberId: '',
				phone: '={{ $json.phone }}',
				text: '={{ $json.text }}',
				options,
			},
			extra,
		),
	]);
}

/** The nodes of statusWaitWorkflow whose output the suites and the bench read. */
export const STATUS_SEND_NODE = 'Send';
export const STATUS_AFTER_NODE = 'After';

/**
 * Sends a text to each of `body.recipients` (`[{ "phone" }]`), one run for all of them, which waits (Wait for
 * Status) until every message reached `wanted`, at most `limitMinutes`; then After.
 */
export function statusWaitWorkflow(id: string, name: string, credential: CredentialRef, hookPath: string, wanted: 'delivered' | 'read', limitMinutes = 60): Workflow {
	return chain(id, name, [
		webhookTrigger(hookPath, 'Run', 'onReceived'),
		node('Recipients', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'body.recipients', options: {} }),
		action(STATUS_SEND_NODE, credential, { resource: 'message', operation: 'sendText', phoneNumberId: '', phone: '={{ $json.phone }}', text: 'Your order has shipped', waitForStatus: wanted, statusWaitLimit: limitMinutes, statusWaitUnit: 'minutes' }),
		node(STATUS_AFTER_NODE, 'n8n-nodes-base.noOp', 1, {}),
	]);
}

/**
 * Bulk send behind an HTTP Request node (one GET to the sandbox per message): when that request fails,
 * the execution fails before Send Text ever ran.
 */
export function bulkTextAfterRequestWorkflow(credential: CredentialRef, baseUrl: string, phoneNumberId: string, hookPath: string): Workflow {
	return chain('e2eBulkAfterRequest', `E2E: bulk send after a request (${hookPath})`, [
		webhookTrigger(hookPath),
		node('Split Out', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'body.messages', options: {} }),
		node(
			'HTTP GET Orders',
			'n8n-nodes-base.httpRequest',
			4.2,
			{
				authentication: 'predefinedCredentialType',
				nodeCredentialType: CREDENTIAL_TYPE,
				method: 'GET',
				url: `${baseUrl}/orders`,
				sendQuery: true,
				queryParameters: { parameters: [{ name: 'phone_number_id', value: phoneNumberId }, { name: 'limit', value: '1' }] },
				options: {},
			},
			{ credentials: { [CREDENTIAL_TYPE]: credential } },
		),
		action('Send Text', credential, {
			resource: 'message',
			operation: 'sendText',
			phoneNumberId: '',
			phone: "={{ $('Split Out').item.json.phone }}",
			text: "={{ $('Split Out').item.json.text }}",
			options: { parallelRequests: 1 },
		}),
	]);
}

/** Template → Render, then Send Text From Template with the same values. */
export function templateSendWorkflow(credential: CredentialRef, templateId: number, values: Record<string, string>, phone: string, hookPath = 'e2e-template-send'): Workflow {
	const template = { __rl: true, mode: 'id', value: String(templateId) };
	const placeholderValues = { mappingMode: 'defineBelow', value: values };
	return chain('e2eTemplateSend', 'E2E: render a template and send its body', [
		webhookTrigger(hookPath),
		action('Render', credential, { resource: 'template', operation: 'render', templateId: template, placeholderValues }),
		action('Send From Template', credential, {
			resource: 'message',
			operation: 'sendText',
			phoneNumberId: '',
			phone,
			textSource: 'template',
			templateId: template,
			placeholderValues,
		}),
	]);
}

export const OPENAI_CREDENTIAL_TYPE = 'openAiApi';

/**
 * A workflow shipped in examples/, as a user imports it (what is tested is what users get): its
 * credential placeholders replaced by this deployment's, by credential type (those not given are left
 * for the user to pick), and its trigger's webhook id.
 */
export function exampleWorkflow(
	file: string,
	key: string,
	credentials: Record<string, CredentialRef>,
	webhookId?: string,
): Workflow {
	const example = JSON.parse(readFileSync(join(REPO_ROOT, 'examples', file), 'utf8')) as Omit<Workflow, 'id' | 'active'>;
	const nodes = example.nodes.map((n) => {
		const copy: WfNode = { ...n, parameters: structuredClone(n.parameters) };
		// A credential not given stays unset, for the user to pick in the editor.
		const kept = Object.keys(n.credentials ?? {}).filter((type) => credentials[type]);
		delete copy.credentials;
		if (kept.length) copy.credentials = Object.fromEntries(kept.map((type) => [type, credentials[type]]));
		if (webhookId && n.type === TRIGGER_TYPE) copy.webhookId = webhookId;
		return copy;
	});
	// The example's own name, as users see it after importing the file; `key` only seeds the id.
	return { ...example, id: n8nId(key), name: example.name, active: false, nodes, connections: structuredClone(example.connections) };
}
/** `workflow` (a copy of an example) at its own Webhook path and webhook id, so that it is active beside the original. */
export function atOwnPath(workflow: Workflow, hookPath: string): Workflow {
	for (const n of workflow.nodes) if (n.type === 'n8n-nodes-base.webhook') Object.assign(n, { webhookId: webhookIdFor(hookPath), parameters: { ...n.parameters, path: hookPath } });
	return workflow;
}

/** This package's action node as an AI agent's tool: n8n derives the type from `usableAsTool`. */
export const TOOL_TYPE = 'n8n-nodes-business-messaging.businessMessagingTool';

/**
 * n8n's AI Agent with its OpenAI chat model (pointed at a scripted stand-in through the credential's
 * base URL) and this package's node as two tools whose fields the model fills with `$fromAI`: Get
 * Template with the author's own `$fromAI` and description, Send Text as the editor adds it (the tool
 * variant's defaults and automatic description) with Allowed Recipients from the request.
 * Run by posting `{ "prompt": "…", "customer": "+…" }` to the Webhook node; it answers with the agent's output.
 */
export function agentWorkflow(credential: CredentialRef, openAi: CredentialRef, agentVersion: number): Workflow {
	const key = String(agentVersion).replace('.', '');
	const hook = webhookTrigger(`e2e-agent-${key}`);
	const agent = node('AI Agent', '@n8n/n8n-nodes-langchain.agent', agentVersion, {
		promptType: 'define',
		text: '={{ $json.body.prompt }}',
		options: { systemMessage: 'You help a shop answer its customers over the business messaging service.' },
	});
	const model = node('OpenAI Chat Model', '@n8n/n8n-nodes-langchain.lmChatOpenAi', 1.2, {
		model: { __rl: true, mode: 'id', value: 'scripted-model' },
		options: {},
	}, { credentials: { [OPENAI_CREDENTIAL_TYPE]: openAi } });
	const tool = (name: string, parameters: Record<string, unknown>) =>
		node(name, TOOL_TYPE, 1, parameters, { credentials: { [CREDENTIAL_TYPE]: credential } });
	const tools = [
		tool('Get Template', {
			descriptionType: 'manual',
			toolDescription: 'Reads one message template by its ID',
			resource: 'template',
			operation: 'get',
			templateId: { __rl: true, mode: 'id', value: "={{ $fromAI('templateId', 'The template ID, a whole number', 'string') }}" },
		}),
		tool('Send Text', {
			resource: 'message',
			operation: 'sendText',
			allowedRecipients: `={{ $('${hook.name}').item.json.body.customer }}`,
		}),
	];
	const wf = chain(`e2eAgent${key}`, `E2E: AI agent ${agentVersion} with this package as its tools`, [hook, agent]);
	wf.nodes.push(model, ...tools);
	wf.connections[model.name] = { ai_languageModel: [[{ node: agent.name, type: 'ai_languageModel', index: 0 }]] };
	for (const t of tools) wf.connections[t.name] = { ai_tool: [[{ node: agent.name, type: 'ai_tool', index: 0 }]] };
	return wf;
}
