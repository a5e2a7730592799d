import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { itemParameter } from '../../helpers/itemParameter';
import { buildMultipart } from '../../helpers/multipart';
import { checkOneOf, checkPhone, getSender, MEDIA_TYPES } from '../../helpers/validation';
import { apiRequest } from '../../transport';
import { recipientField, recipientOf, sendOptionsField, senderField } from '../common.descriptions';

const properties: INodeProperties[] = [
	{ ...senderField },
	recipientField,
	{
		displayName: 'Media Type',
		name: 'mediaType',
		type: 'options',
		default: 'image',
		options: MEDIA_TYPES.map((type) => ({ name: type.charAt(0).toUpperCase() + type.slice(1), value: type })),
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
	},
	sendOptionsField,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendMedia'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const phone = checkPhone(this, { label: 'Recipient Phone', itemIndex }, itemParameter(this, 'phone', itemIndex));
	const type = checkOneOf(
		this,
		{ label: 'Media Type', itemIndex },
		this.getNodeParameter('mediaType', itemIndex),
		MEDIA_TYPES,
	);
	const binaryPropertyName = String(this.getNodeParameter('binaryPropertyName', itemIndex)).trim();
	const caption = String(this.getNodeParameter('caption', itemIndex, '') ?? '');
	const binary = this.getInputData()[itemIndex].binary?.[binaryPropertyName];
	if (!binary) {
		throw new NodeOperationError(
			this.getNode(),
			`Input Binary Field: the input item has no binary field "${binaryPropertyName}"`,
			{
				itemIndex,
				description:
					'Put the file on the item first (for example with Read/Write Files from Disk or HTTP Request), and enter that binary field’s name here.',
			},
		);
	}
	const sender = await getSender.call(this, itemIndex, true);
	const data = await this.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
	const fields: Record<string, string> = { phone, type };
	if (caption) fields.caption = caption;
	const multipart = buildMultipart(fields, {
		field: 'media',
		fileName: binary.fileName ?? `${binaryPropertyName}.${binary.fileExtension ?? 'bin'}`,
		contentType: binary.mimeType || 'application/octet-stream',
		data,
	});
	const response = await apiRequest.call(this, 'POST', '/w/message/media', {
		qs: { phone_number_id: sender },
		body: multipart.body,
		headers: { 'Content-Type': multipart.contentType },
		itemIndex,
		retry: 'send',
	});
	return (response.data as IDataObject) ?? response;
}


export { recipientOf };
