import type { INodeProperties } from 'n8n-workflow';

import * as sendTest from './sendTest.operation';

export { sendTest };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhook'] } },
		options: [
			{
				name: 'Send Test Event',
				value: 'sendTest',
				description: 'Make the service send a test event to your webhook URL',
				action: 'Send a test webhook event',
			},
		],
		default: 'sendTest',
	},
	...sendTest.description,
];
