import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../operation';

import * as getAll from './getAll.operation';
import * as update from './update.operation';

/** The operations of this resource, by the value of its Operation field. */
export const operations: Record<string, Operation> = { getAll: getAll.operation, update: update.operation };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['order'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List orders, optionally by status',
				action: 'Get many orders',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change an order’s status, payment status, dates or notes',
				action: 'Update the status or details of an order',
			},
		],
		default: 'update',
	},
	...update.operation.description,
	...getAll.operation.description,
];
