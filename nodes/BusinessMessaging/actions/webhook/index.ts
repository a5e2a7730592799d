import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../operation';

import * as sendTest from './sendTest.operation';

/** The operations of this resource, by the value of its Operation field. */
export const operations: Record<string, Operation> = { sendTest: sendTest.operation };

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
	...sendTest.operation.description,
];
