import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as contact from './actions/contact';
import * as message from './actions/message';
import * as order from './actions/order';
import { router } from './actions/router';
import * as template from './actions/template';
import * as webhook from './actions/webhook';
import { searchTemplates } from './methods/listSearch';
import { getTemplatePlaceholders } from './methods/resourceMapping';

export class BusinessMessaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Business Messaging',
		name: 'businessMessaging',
		icon: { light: 'file:../../icons/businessMessaging.svg', dark: 'file:../../icons/businessMessaging.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Send messages, look up templates and contacts, and update orders on a business messaging service',
		defaults: { name: 'Business Messaging' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'businessMessagingApi', required: true }],
		properties: [
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
			...contact.description,
			...message.description,
			...order.description,
			...template.description,
			...webhook.description,
		],
	};

	methods = { listSearch: { searchTemplates }, resourceMapping: { getTemplatePlaceholders } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
