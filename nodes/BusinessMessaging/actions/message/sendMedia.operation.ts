import type { INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { allowedRecipientsField, filledByModel } from '../../helpers/agentLimits';
import type { BinaryFile } from '../../helpers/multipart';
import { phoneFieldRecipient } from '../../helpers/recipient';
import { checkOneOf, MEDIA_TYPES } from '../../helpers/validation';
import { RECIPIENT_HINT, recipientField, sendOptionsField, senderField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Message, Operation } from '../operation';
import { statusWaitFields } from '../statusWait';

const properties: INodeProperties[] = [
	{ ...senderField },
	...filledByModel(recipientField, RECIPIENT_HINT),
	allowedRecipientsField,
	{
		displayName: 'Media Type',
		name: 'mediaType',
		type: 'options',
		default: 'image',
		options: MEDIA_TYPES.map((type) => ({ name: type.charAt(0).toUpperCase() + type.slice(1), value: type })),
		description: 'What kind of file the message carries; sent to the service as the message type',
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the input field holding the file',
		description: 'The file is sent with its file name and MIME type from n8n’s binary data',
	},
	{
		displayName: 'Caption',
		name: 'caption',
		type: 'string',
		default: '',
		description: 'Text shown with the file in the recipient’s chat. Leave empty to send the file alone.',
	},
	...statusWaitFields,
	sendOptionsField,
];

const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendMedia'] } },
	properties,
);

/** The item's fields, checked, and its file from n8n's binary data, sent as multipart/form-data. */
function messageOf(run: RunState, itemIndex: number): Message {
	const ctx = run.ctx;
	const type = checkOneOf(
		ctx,
		{ label: 'Media Type', itemIndex },
		ctx.getNodeParameter('mediaType', itemIndex),
		MEDIA_TYPES,
	);
	const binaryPropertyName = String(ctx.getNodeParameter('binaryPropertyName', itemIndex)).trim();
	const caption = String(ctx.getNodeParameter('caption', itemIndex, '') ?? '');
	const binary = ctx.getInputData()[itemIndex].binary?.[binaryPropertyName];
	if (!binary) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Input Binary Field: the input item has no binary field "${binaryPropertyName}"`,
			{
				itemIndex,
				description:
					'Put the file on the item first (for example with Read/Write Files from Disk or HTTP Request), and enter that binary field’s name here.',
			},
		);
	}
	const file: BinaryFile = { field: 'media', binaryPropertyName, binary };
	return { path: '/w/message/media', fields: caption ? { type, caption } : { type }, file };
}

export const operation: Operation = { kind: 'send', description, recipientOf: phoneFieldRecipient, messageOf };
