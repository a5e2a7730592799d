import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { testCredential } from '../../credentials/credentialTest';

import { operationFields, routeWebhook, router, WAITING_WEBHOOKS } from './actions/router';
import { searchTemplates } from './methods/listSearch';
import { getTemplatePlaceholders } from './methods/resourceMapping';
import { CREDENTIAL_TEST, CREDENTIAL_TYPE } from '../../credentials/credentialType';

const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Contact', value: 'contact' },
			{ name: 'Message', value: 'message' },
			{ name: 'Order', value: 'order' },
			{ name: 'Template', value: 'template' },
			{ name: 'Webhook', value: 'webhook' },
		],
		default: 'message',
	},
	...operationFields,
];

/**
 * The canvas subtitle: the chosen operation's action, as the node creator lists it ("Send a message and
 * wait for the answer"), instead of n8n's raw "sendAndWait: message". Built from the operations above.
 */
function readableSubtitle(): string {
	const actions: Record<string, string> = {};
	for (const property of properties) {
		if (property.name !== 'operation') continue;
		for (const resource of (property.displayOptions?.show?.resource ?? []) as string[]) {
			for (const option of (property.options ?? []) as INodePropertyOptions[]) {
				actions[`${resource}:${String(option.value)}`] = option.action ?? option.name;
			}
		}
	}
	return `={{ (${JSON.stringify(actions)})[$parameter["resource"] + ":" + $parameter["operation"]] || $parameter["operation"] }}`;
}

export class BusinessMessaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Business Messaging',
		name: 'businessMessaging',
		icon: { light: 'file:../../icons/businessMessaging.svg', dark: 'file:../../icons/businessMessaging.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: readableSubtitle(),
		description: 'Send messages, look up templates and contacts, and update orders on a business messaging service',
		defaults: { name: 'Business Messaging' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true, testedBy: CREDENTIAL_TEST }],
		// The resume address of Send and Wait for Response (its answer link) and of Ask and Wait for Chat Reply.
		webhooks: WAITING_WEBHOOKS,
		waitingNodeTooltip:
			'={{ $parameter["operation"] === "askAndWaitForReply" ? "Waiting for the customer to reply in the chat" : "Waiting for the recipient to answer through the link in the message" }}',
		properties,
	};

	methods = {
		listSearch: { searchTemplates },
		resourceMapping: { getTemplatePlaceholders },
		credentialTest: { [CREDENTIAL_TEST]: testCredential },
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await routeWebhook.call(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
