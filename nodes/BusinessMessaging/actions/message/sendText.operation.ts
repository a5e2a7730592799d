import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { itemParameter } from '../../helpers/itemParameter';
import { checkNotEmpty, checkPhone, getSender } from '../../helpers/validation';
import { apiRequest } from '../../transport';
import { recipientField, recipientOf, sendOptionsField, senderField } from '../common.descriptions';

const properties: INodeProperties[] = [
	{ ...senderField },
	recipientField,
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		required: true,
		typeOptions: { rows: 4 },
		default: '',
		description: 'The message the recipient receives, as plain text',
	},
	sendOptionsField,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendText'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const phone = checkPhone(this, { label: 'Recipient Phone', itemIndex }, itemParameter(this, 'phone', itemIndex));
	const text = checkNotEmpty(this, { label: 'Text', itemIndex }, this.getNodeParameter('text', itemIndex));
	const sender = await getSender.call(this, itemIndex, true);
	const response = await apiRequest.call(this, 'POST', '/w/message/text', {
		qs: { phone_number_id: sender },
		body: { phone, body: text },
		itemIndex,
		retry: 'send',
	});
	return (response.data as IDataObject) ?? response;
}


export { recipientOf };
