import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { itemParameter } from '../../helpers/itemParameter';
import { checkNotEmpty, checkPhone, getSender } from '../../helpers/validation';
import type { OutgoingMessage } from '../../helpers/sendOnce';
import { deliveryPhone, testModeOf } from '../../helpers/testMode';
import { apiRequest, getCredential } from '../../transport';
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
	},
	sendOptionsField,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendText'] } },
	properties,
);

export async function messageOf(this: IExecuteFunctions, itemIndex: number): Promise<OutgoingMessage> {
	const phone = checkPhone(this, { label: 'Recipient Phone', itemIndex }, itemParameter(this, 'phone', itemIndex));
	const text = checkNotEmpty(this, { label: 'Text', itemIndex }, itemParameter(this, 'text', itemIndex));
	return { phone, content: text };
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const { phone, content: text } = await messageOf.call(this, itemIndex);
	const sender = await getSender.call(this, itemIndex, true);
	const response = await apiRequest.call(this, 'POST', '/w/message/text', {
		qs: { phone_number_id: sender },
		body: { phone: deliveryPhone(testModeOf(this, await getCredential.call(this)), phone), body: text },
		itemIndex,
		retry: 'send',
		message: true,
	});
	return (response.data as IDataObject) ?? response;
}


export { recipientOf };
