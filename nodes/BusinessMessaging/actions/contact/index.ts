import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../operation';

import * as getAll from './getAll.operation';

/** The operations of this resource, by the value of its Operation field. */
export const operations: Record<string, Operation> = { getAll: getAll.operation };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['contact'] } },
		options: [
			{ name: 'Get Many', value: 'getAll', description: 'List contacts', action: 'Get many contacts' },
		],
		default: 'getAll',
	},
	...getAll.operation.description,
];
