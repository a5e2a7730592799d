import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as render from './render.operation';

export { get, getAll, render };

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
	...get.description,
	...getAll.description,
	...render.description,
];
