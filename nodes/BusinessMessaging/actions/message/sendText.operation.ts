import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { allowedRecipientsField, filledByModel } from '../../helpers/agentLimits';
import { itemParameter } from '../../helpers/itemParameter';
import { getSender } from '../../helpers/sender';
import { checkNotEmpty, checkPhone } from '../../helpers/validation';
import type { OutgoingMessage } from '../../helpers/sendOnce';
import { renderItemTemplate } from '../../helpers/templates';
import { deliveryPhone, testModeOf } from '../../helpers/testMode';
import { recipientOf } from '../../helpers/recipient';
import { apiRequest, getCredential } from '../../transport';
import {
	placeholderValuesField,
	RECIPIENT_HINT,
	recipientField,
	sendOptionsField,
	senderField,
	templateField,
} from '../common.descriptions';
import type { Operation } from '../operation';

const properties: INodeProperties[] = [
	{ ...senderField },
	...filledByModel(recipientField, RECIPIENT_HINT),
	allowedRecipientsField,
	{
		displayName: 'Message',
		name: 'textSource',
		type: 'options',
		default: 'text',
		options: [
			{ name: 'Text', value: 'text', description: 'Send the text you enter' },
			{
				name: 'From Template',
				value: 'template',
				description: 'Send the body of an approved template, its placeholders filled',
			},
		],
	},
	{ ...templateField, displayOptions: { show: { textSource: ['template'] } } },
	{ ...placeholderValuesField, displayOptions: { show: { textSource: ['template'] } } },
	...filledByModel(
		{
			displayName: 'Text',
			name: 'text',
			type: 'string',
			required: true,
			typeOptions: { rows: 4 },
			default: '',
			description: 'The message the recipient receives, as plain text',
			displayOptions: { show: { textSource: ['text'] } },
		},
		'The message to send to the customer, as plain text',
	),
	sendOptionsField,
];

const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendText'] } },
	properties,
);

async function messageOf(this: IExecuteFunctions, itemIndex: number): Promise<OutgoingMessage> {
	const phone = checkPhone(this, { label: 'Recipient Phone', itemIndex }, itemParameter(this, 'phone', itemIndex));
	if (this.getNodeParameter('textSource', itemIndex, 'text') === 'template') {
		const { template, rendered } = await renderItemTemplate.call(this, itemIndex);
		return { phone, content: rendered.body, template: { id: template.id, name: template.name } };
	}
	const text = checkNotEmpty(this, { label: 'Text', itemIndex }, itemParameter(this, 'text', itemIndex));
	return { phone, content: text };
}

async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const { phone, content: text, template } = await messageOf.call(this, itemIndex);
	const sender = await getSender.call(this, itemIndex, true);
	const response = await apiRequest.call(this, 'POST', '/w/message/text', {
		qs: { phone_number_id: sender },
		body: { phone: deliveryPhone(testModeOf(this, await getCredential.call(this)), phone), body: text },
		itemIndex,
		retry: 'send',
		message: true,
	});
	const sent = (response.data as IDataObject) ?? response;
	// From a template, the text that went out is shown too: the service's answer does not repeat it.
	return template ? { ...sent, template, body: text } : sent;
}

export const operation: Operation = { kind: 'send', description, execute, recipientOf, messageOf };
