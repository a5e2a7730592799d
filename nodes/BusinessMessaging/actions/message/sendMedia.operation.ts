import { createHash } from 'node:crypto';
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { allowedRecipientsField, filledByModel } from '../../helpers/agentLimits';
import { itemParameter } from '../../helpers/itemParameter';
import { multipartFrame, type MultipartFrame } from '../../helpers/multipart';
import { getSender } from '../../helpers/sender';
import { checkOneOf, checkPhone, MEDIA_TYPES } from '../../helpers/validation';
import type { OutgoingMessage } from '../../helpers/sendOnce';
import { deliveryPhone, testModeOf } from '../../helpers/testMode';
import { recipientOf } from '../../helpers/recipient';
import { apiRequest, getCredential } from '../../transport';
import { RECIPIENT_HINT, recipientField, sendOptionsField, senderField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Operation } from '../operation';

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
	sendOptionsField,
];

const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendMedia'] } },
	properties,
);

const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * The whole multipart body in one Buffer (the credential signs exactly these bytes), with the file read
 * straight into its place. n8n keeps binary data in its store (disk, database or S3); reading it whole
 * and then copying it into the body held the file twice in memory. When the stored size does not match
 * what the store hands out, the file is read whole as before.
 */
async function multipartBody(
	this: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
	binary: IBinaryData,
	frame: MultipartFrame,
): Promise<Buffer> {
	if (binary.id) {
		const { fileSize } = await this.helpers.getBinaryMetadata(binary.id);
		if (Number.isSafeInteger(fileSize) && fileSize >= 0) {
			const end = frame.head.length + fileSize;
			const body = Buffer.allocUnsafe(end + frame.tail.length);
			let offset = frame.head.copy(body, 0);
			let fits = true;
			const stream = await this.helpers.getBinaryStream(binary.id, READ_CHUNK_BYTES);
			for await (const chunk of stream as AsyncIterable<Buffer>) {
				if (offset + chunk.length > end) {
					fits = false;
					stream.destroy();
					break;
				}
				offset += chunk.copy(body, offset);
			}
			if (fits && offset === end) {
				frame.tail.copy(body, end);
				return body;
			}
		}
	}
	const data = await this.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
	return Buffer.concat([frame.head, data, frame.tail]);
}

interface MediaItem {
	phone: string;
	type: string;
	caption: string;
	binaryPropertyName: string;
	binary: IBinaryData;
}

/** The item's fields, checked, and its file's entry in n8n's binary data. */
function mediaItem(run: RunState, itemIndex: number): MediaItem {
	const ctx = run.ctx;
	const phone = checkPhone(ctx, { label: 'Recipient Phone', itemIndex }, itemParameter(run, 'phone', itemIndex));
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
	return { phone, type, caption, binaryPropertyName, binary };
}

/** The message for recognising it again: the file by a hash of its bytes, read in chunks. */
async function messageOf(run: RunState, itemIndex: number): Promise<OutgoingMessage> {
	const { phone, type, caption, binaryPropertyName, binary } = mediaItem(run, itemIndex);
	const hash = createHash('sha256');
	if (binary.id) {
		const stream = await run.ctx.helpers.getBinaryStream(binary.id, READ_CHUNK_BYTES);
		for await (const chunk of stream as AsyncIterable<Buffer>) hash.update(chunk);
	} else {
		hash.update(await run.ctx.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName));
	}
	return { phone, content: `${type}\n${caption}\n${hash.digest('hex')}` };
}

async function execute(run: RunState, itemIndex: number): Promise<IDataObject> {
	const { phone, type, caption, binaryPropertyName, binary } = mediaItem(run, itemIndex);
	const sender = await getSender(run, itemIndex, true);
	const to = deliveryPhone(testModeOf(run.ctx, await getCredential(run)), phone);
	const fields: Record<string, string> = { phone: to, type };
	if (caption) fields.caption = caption;
	const frame = multipartFrame(fields, {
		field: 'media',
		fileName: binary.fileName ?? `${binaryPropertyName}.${binary.fileExtension ?? 'bin'}`,
		contentType: binary.mimeType || 'application/octet-stream',
	});
	const body = await multipartBody.call(run.ctx, itemIndex, binaryPropertyName, binary, frame);
	const response = await apiRequest(run, 'POST', '/w/message/media', {
		qs: { phone_number_id: sender },
		body,
		headers: { 'Content-Type': frame.contentType },
		itemIndex,
		retry: 'send',
		message: true,
	});
	return (response.data as IDataObject) ?? response;
}

export const operation: Operation = { kind: 'send', description, execute, recipientOf, messageOf };
