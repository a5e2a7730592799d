import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getSender } from '../../helpers/sender';
import { checkOneOf, ORDER_STATUSES } from '../../helpers/validation';
import { getList, listLimit } from '../../transport';
import { listFields, optionsField, orderStatusOptions, senderField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Operation } from '../operation';

const properties: INodeProperties[] = [
	{ ...senderField },
	...listFields('orders'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'pending',
				options: orderStatusOptions,
			},
		],
	},
	optionsField,
];

const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['getAll'] } },
	properties,
);

async function execute(run: RunState, itemIndex: number): Promise<IDataObject[]> {
	const filters = run.ctx.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const qs: IDataObject = {};
	if (filters.status !== undefined) {
		qs.status = checkOneOf(run.ctx, { label: 'Status', itemIndex }, filters.status, ORDER_STATUSES);
	}
	const sender = await getSender(run, itemIndex, false);
	if (sender) qs.phone_number_id = sender;
	return await getList(run, '/orders', qs, listLimit(run, itemIndex), itemIndex);
}

export const operation: Operation = { kind: 'request', description, execute };
