import type { IDataObject, INodeProperties } from 'n8n-workflow';
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
import type { RunState } from '../../helpers/runState';
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

async function messageOf(run: RunState, itemIndex: number): Promise<OutgoingMessage> {
	const phone = checkPhone(run.ctx, { label: 'Recipient Phone', itemIndex }, itemParameter(run, 'phone', itemIndex));
	if (run.ctx.getNodeParameter('textSource', itemIndex, 'text') === 'template') {
		const { template, rendered } = await renderItemTemplate(run, itemIndex);
		return { phone, content: rendered.body, template: { id: template.id, name: template.name } };
	}
	const text = checkNotEmpty(run.ctx, { label: 'Text', itemIndex }, itemParameter(run, 'text', itemIndex));
	return { phone, content: text };
}

async function execute(run: RunState, itemIndex: number): Promise<IDataObject> {
	const { phone, content: text, template } = await messageOf(run, itemIndex);
	const sender = await getSender(run, itemIndex, true);
	const response = await apiRequest(run, 'POST', '/w/message/text', {
		qs: { phone_number_id: sender },
		body: { phone: deliveryPhone(testModeOf(run.ctx, await getCredential(run)), phone), body: text },
		itemIndex,
		retry: 'send',
		message: true,
	});
	const sent = (response.data as IDataObject) ?? response;
	// From a template, the text that went out is shown too: the service's answer does not repeat it.
	return template ? { ...sent, template, body: text } : sent;
}

export const operation: Operation = { kind: 'send', description, execute, recipientOf, messageOf };
