import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withPlaceholderCounts } from '../../helpers/templates';
import { getSender } from '../../helpers/sender';
import { getList, listLimit } from '../../transport';
import { listFields, optionsField, senderField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Operation } from '../operation';

const properties: INodeProperties[] = [
	{ ...senderField },
	...listFields('templates'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Search Term',
				name: 'searchTerm',
				type: 'string',
				default: '',
				description: 'Only templates whose name contains this text',
			},
		],
	},
	optionsField,
];

const description = updateDisplayOptions(
	{ show: { resource: ['template'], operation: ['getAll'] } },
	properties,
);

async function execute(run: RunState, itemIndex: number): Promise<IDataObject[]> {
	const filters = run.ctx.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const qs: IDataObject = {};
	const searchTerm = String(filters.searchTerm ?? '').trim();
	if (searchTerm) qs.searchTerm = searchTerm;
	const sender = await getSender(run, itemIndex, false);
	if (sender) qs.phone_number_id = sender;
	const templates = await getList(run, '/templates', qs, listLimit(run, itemIndex), itemIndex);
	return templates.map(withPlaceholderCounts);
}

export const operation: Operation = { kind: 'request', description, execute };
