import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../operation';

import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as render from './render.operation';

/** The operations of this resource, by the value of its Operation field. */
export const operations: Record<string, Operation> = { get: get.operation, getAll: getAll.operation, render: render.operation };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['template'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Read one template with its components and placeholder count',
				action: 'Get a message template by ID',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List templates, optionally by name',
				action: 'Get many message templates',
			},
			{
				name: 'Render',
				value: 'render',
				description: 'Fill a template’s placeholders and check it can be sent',
				action: 'Fill in the placeholders of a message template',
			},
		],
		default: 'getAll',
	},
	...get.operation.description,
	...getAll.operation.description,
	...render.operation.description,
];
