/** The benchmark workflows, built with the e2e driver's builders. */
import { chain, node, type WfNode, type Workflow, webhookIdFor, webhookTrigger } from '../tools/n8n/workflow';
import { action, CREDENTIAL_TYPE, type CredentialRef, TRIGGER_TYPE, TRIGGER_WEBHOOK_PATH } from '../tools/n8n/workflows';

/** A Webhook node that starts the workflow and answers (no data) once it has finished. */
export function runHook(path: string): WfNode {
	const hook = webhookTrigger(path);
	hook.parameters.responseData = 'noData';
	return hook;
}

/**
 * Makes `count` items from the request body `{ count, recipients, tag }`: item i goes to recipient
 * i % recipients and says "<tag> <recipient>#<n>", n counting that recipient's messages from 0.
 */
export const MAKE_ITEMS_JS = `
const { count, recipients, tag } = $input.first().json.body;
const out = new Array(count);
for (let i = 0; i < count; i++) {
  const r = i % recipients;
  out[i] = { json: { phone: '+1555' + String(1000000 + r), text: tag + ' ' + r + '#' + Math.floor(i / recipients) } };
}
return out;
`;

export const makeItems = () => node('Make Items', 'n8n-nodes-base.code', 2, { mode: 'runOnceForAllItems', language: 'javaScript', jsCode: MAKE_ITEMS_JS });

export const SEND_NODE = 'Send';

export type SendVariant = { kind: 'node'; options?: Record<string, unknown> } | { kind: 'http' };

export function sendWorkflow(key: string, credential: CredentialRef, variant: SendVariant, baseUrl: string, sender: string): Workflow {
	let send: WfNode;
	if (variant.kind === 'node') {
		send = action(SEND_NODE, credential, {
			resource: 'message',
			operation: 'sendText',
			phoneNumberId: '',
			phone: '={{ $json.phone }}',
			text: '={{ $json.text }}',
			options: variant.options ?? {},
		});
	} else {
		send = node(
			SEND_NODE,
			'n8n-nodes-base.httpRequest',
			4.2,
			{
				method: 'POST',
				url: `${baseUrl}/w/message/text?phone_number_id=${sender}`,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: CREDENTIAL_TYPE,
				sendBody: true,
				contentType: 'json',
				specifyBody: 'keypair',
				bodyParameters: {
					parameters: [
						{ name: 'phone', value: '={{ $json.phone }}' },
						{ name: 'body', value: '={{ $json.text }}' },
					],
				},
				options: {},
			},
			{ credentials: { [CREDENTIAL_TYPE]: credential } },
		);
	}
	return chain(`bench${key}`, `Bench: send (${key})`, [runHook(`bench-send-${key}`), makeItems(), send]);
}

/** This package's trigger alone, at /webhook/<webhookId>/webhook; `staticData` as n8n would have saved it. */
export function triggerWorkflow(
	key: string,
	credential: CredentialRef,
	options: Record<string, unknown> = {},
	staticData?: Record<string, unknown>,
	typeVersion = 2,
): Workflow {
	const trigger = node(
		'Trigger',
		TRIGGER_TYPE,
		typeVersion,
		{ events: ['*'], options },
		{ credentials: { [CREDENTIAL_TYPE]: credential }, webhookId: webhookIdFor(`bench-${key}`) },
	);
	const workflow = chain(`benchRecv${key}`, `Bench: receive (${key})`, [trigger]);
	return staticData ? Object.assign(workflow, { staticData }) : workflow;
}

export const triggerPath = (key: string) => `/webhook/${webhookIdFor(`bench-${key}`)}/${TRIGGER_WEBHOOK_PATH}`;

/**
 * n8n's own Webhook node with a path of the same shape, answering on receipt ("Immediately", n8n's
 * default): checking nothing, or with `headerAuth` (an n8n Header Auth credential) checking a secret
 * header, n8n's own way to check a secret. `responseMode` sets another of n8n's response modes, e.g. the
 * trigger's (nodes/BusinessMessagingTrigger/acknowledgement.ts), which the editor does not offer.
 */
export function webhookNodeWorkflow(key: string, headerAuth?: CredentialRef, responseMode = 'onReceived'): Workflow {
	const id = webhookIdFor(`bench-${key}`);
	const hook = node(
		'Webhook',
		'n8n-nodes-base.webhook',
		2,
		{
			httpMethod: 'POST',
			path: `${id}/${TRIGGER_WEBHOOK_PATH}`,
			responseMode,
			...(headerAuth ? { authentication: 'headerAuth' } : {}),
			options: {},
		},
		{ webhookId: id, ...(headerAuth ? { credentials: { httpHeaderAuth: headerAuth } } : {}) },
	);
	return chain(`benchRecv${key}`, `Bench: receive (${key})`, [hook]);
}

export const LIST_NODE = 'List Templates';

export function listWorkflow(key: string, credential: CredentialRef): Workflow {
	return chain(`benchList${key}`, `Bench: list templates (${key})`, [
		runHook(`bench-list-${key}`),
		action(LIST_NODE, credential, { resource: 'template', operation: 'getAll', returnAll: true, filters: {} }),
	]);
}
