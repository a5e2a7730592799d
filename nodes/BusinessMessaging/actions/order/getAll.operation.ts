import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getSender } from '../../helpers/sender';
import { checkOneOf, ORDER_STATUSES } from '../../helpers/validation';
import { getList } from '../../transport';
import { listFields, listLimit, optionsField, orderStatusOptions, senderField } from '../common.descriptions';
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

async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const qs: IDataObject = {};
	if (filters.status !== undefined) {
		qs.status = checkOneOf(this, { label: 'Status', itemIndex }, filters.status, ORDER_STATUSES);
	}
	const sender = await getSender.call(this, itemIndex, false);
	if (sender) qs.phone_number_id = sender;
	return await getList.call(this, '/orders', qs, listLimit.call(this, itemIndex), itemIndex);
}

export const operation: Operation = { kind: 'request', description, execute };
