import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { filledByModel } from '../../helpers/agentLimits';
import { getSender } from '../../helpers/sender';
import { checkDate, checkOneOf, checkPositiveInteger, ORDER_STATUSES, PAYMENT_STATUSES } from '../../helpers/validation';
import { apiRequest } from '../../transport';
import { optionsField, orderStatusOptions, senderField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Operation } from '../operation';

const properties: INodeProperties[] = [
	{ ...senderField },
	...filledByModel(
		{
			displayName: 'Order ID',
			name: 'orderId',
			// A text field, so it starts empty: a number field would start at 0, which is no order.
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. 12',
			description: 'The order’s numeric identifier (a whole number from 1)',
		},
		'The order’s ID, a whole number',
	),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Only the fields added here are sent',
		options: [
			{
				displayName: 'Admin Notes',
				name: 'adminNotes',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
			},
			{
				displayName: 'Branch ID',
				name: 'branchId',
				type: 'string',
				default: '',
			},
			{
				displayName: 'Delivery Date',
				name: 'deliveryDate',
				type: 'string',
				default: '',
				placeholder: 'YYYY-MM-DD',
				description: 'Usually set when the status becomes Delivered',
			},
			{
				displayName: 'Payment Status',
				name: 'paymentStatus',
				type: 'options',
				default: 'paid',
				options: [
					{ name: 'Paid', value: 'paid' },
					{ name: 'Unpaid', value: 'unpaid' },
				],
				description:
					'Sent only when added here. The service documents "unpaid" as this field’s default, so it may mark an order unpaid when an update leaves it out: add it to keep a paid order paid.',
			},
			{
				displayName: 'Shipping Date',
				name: 'shippingDate',
				type: 'string',
				default: '',
				placeholder: 'YYYY-MM-DD',
				description: 'Usually set when the status becomes Shipped',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'accepted',
				options: orderStatusOptions,
				description:
					'Orders move one step at a time: Pending → Accepted → Shipped → Delivered → Completed',
			},
		],
	},
	optionsField,
];

const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['update'] } },
	properties,
);

async function execute(run: RunState, itemIndex: number): Promise<IDataObject> {
	const orderId = checkPositiveInteger(
		run.ctx,
		{ label: 'Order ID', itemIndex },
		run.ctx.getNodeParameter('orderId', itemIndex),
	);
	const fields = run.ctx.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = {};
	if (fields.status !== undefined) {
		body.status = checkOneOf(run.ctx, { label: 'Status', itemIndex }, fields.status, ORDER_STATUSES);
	}
	if (fields.paymentStatus !== undefined) {
		body.payment_status = checkOneOf(
			run.ctx,
			{ label: 'Payment Status', itemIndex },
			fields.paymentStatus,
			PAYMENT_STATUSES,
		);
	}
	if (fields.shippingDate !== undefined) {
		body.shipping_date = checkDate(run.ctx, { label: 'Shipping Date', itemIndex }, fields.shippingDate);
	}
	if (fields.deliveryDate !== undefined) {
		body.delivery_date = checkDate(run.ctx, { label: 'Delivery Date', itemIndex }, fields.deliveryDate);
	}
	if (fields.adminNotes !== undefined) body.admin_notes = String(fields.adminNotes);
	if (fields.branchId !== undefined) body.branch_id = String(fields.branchId);
	if (Object.keys(body).length === 0) {
		throw new NodeOperationError(run.ctx.getNode(), 'Update Fields: add at least one field to update', {
			itemIndex,
		});
	}
	const sender = await getSender(run, itemIndex, true);
	const response = await apiRequest(run, 'PUT', `/orders/${orderId}`, {
		qs: { phone_number_id: sender },
		body,
		itemIndex,
		// The update sets absolute values, so sending it again after a lost answer changes nothing.
		retry: 'idempotent',
	});
	return (response.data as IDataObject) ?? response;
}

export const operation: Operation = { kind: 'request', description, execute };
