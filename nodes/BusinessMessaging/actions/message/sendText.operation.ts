import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { allowedRecipientsField, filledByModel } from '../../helpers/agentLimits';
import { itemParameter } from '../../helpers/itemParameter';
import { phoneFieldRecipient } from '../../helpers/recipient';
import { renderItemTemplate } from '../../helpers/templates';
import { checkNotEmpty } from '../../helpers/validation';
import { messageSourceFields, RECIPIENT_HINT, recipientField, sendOptionsField, senderField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Message, Operation } from '../operation';
import { statusWaitFields } from '../statusWait';

const properties: INodeProperties[] = [
	{ ...senderField },
	...filledByModel(recipientField, RECIPIENT_HINT),
	allowedRecipientsField,
	...messageSourceFields({
		text: 'Send the text you enter',
		template: 'Send the body of an approved template, its placeholders filled',
	}),
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
	...statusWaitFields,
	sendOptionsField,
];

const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendText'] } },
	properties,
);

async function messageOf(run: RunState, itemIndex: number): Promise<Message> {
	if (run.ctx.getNodeParameter('textSource', itemIndex, 'text') === 'template') {
		const { template, rendered } = await renderItemTemplate(run, itemIndex);
		// The text that went out is shown too: the service's answer does not repeat it.
		const shown = { template: { id: template.id, name: template.name }, body: rendered.body };
		return { path: '/w/message/text', fields: { body: rendered.body }, shown };
	}
	const body = checkNotEmpty(run.ctx, { label: 'Text', itemIndex }, itemParameter(run, 'text', itemIndex));
	return { path: '/w/message/text', fields: { body } };
}

export const operation: Operation = { kind: 'send', description, recipientOf: phoneFieldRecipient, messageOf };
