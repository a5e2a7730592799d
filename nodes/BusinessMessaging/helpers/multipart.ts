import { createHash, randomBytes } from 'node:crypto';
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

export interface FilePart {
	field: string;
	fileName: string;
	contentType: string;
}

function quoted(value: string): string {
	return value.replace(/[\r\n"]/g, (c) => (c === '"' ? '%22' : ' '));
}

export interface MultipartFrame {
	/** Everything before the file's bytes: the fields and the file part's headers. */
	head: Buffer;
	/** Everything after the file's bytes. */
	tail: Buffer;
	contentType: string;
}

/**
 * The multipart/form-data bytes around one file: the body is head + file bytes + tail, built by the
 * caller as one Buffer so the credential can sign exactly the bytes that are sent (no form library is
 * available to community nodes at run time).
 */
export function multipartFrame(
	fields: Record<string, string>,
	file: FilePart,
): MultipartFrame {
	const boundary = `----BusinessMessaging${randomBytes(12).toString('hex')}`;
	const head = Object.entries(fields)
		.map(
			([name, value]) =>
				`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`,
		)
		.join('');
	const fileHead =
		`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.fileName)}"\r\n` +
		`Content-Type: ${file.contentType}\r\n\r\n`;
	return {
		head: Buffer.from(head + fileHead, 'utf8'),
		tail: Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
		contentType: `multipart/form-data; boundary=${boundary}`,
	};
}

/** A file of the item's binary data, sent as one part of a multipart message. */
export interface BinaryFile {
	/** The form field the service reads the file from. */
	field: string;
	/** The item's binary field holding it. */
	binaryPropertyName: string;
	binary: IBinaryData;
}

const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * The whole multipart body in one Buffer (the credential signs exactly these bytes), with the file read
 * straight into its place. n8n keeps binary data in its store (disk, database or S3); reading it whole
 * and then copying it into the body held the file twice in memory. When the stored size does not match
 * what the store hands out, the file is read whole as before.
 */
export async function multipartBody(
	ctx: IExecuteFunctions,
	itemIndex: number,
	fields: Record<string, unknown>,
	file: BinaryFile,
): Promise<{ body: Buffer; contentType: string }> {
	const { binary, binaryPropertyName } = file;
	// A form field is text: a value that is not a string (a number, a list) goes as its JSON.
	const text = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
	const frame = multipartFrame(text, {
		field: file.field,
		fileName: binary.fileName ?? `${binaryPropertyName}.${binary.fileExtension ?? 'bin'}`,
		contentType: binary.mimeType || 'application/octet-stream',
	});
	const framed = (body: Buffer) => ({ body, contentType: frame.contentType });
	if (binary.id) {
		const { fileSize } = await ctx.helpers.getBinaryMetadata(binary.id);
		if (Number.isSafeInteger(fileSize) && fileSize >= 0) {
			const end = frame.head.length + fileSize;
			const body = Buffer.allocUnsafe(end + frame.tail.length);
			let offset = frame.head.copy(body, 0);
			let fits = true;
			const stream = await ctx.helpers.getBinaryStream(binary.id, READ_CHUNK_BYTES);
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
				return framed(body);
			}
		}
	}
	const data = await ctx.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
	return framed(Buffer.concat([frame.head, data, frame.tail]));
}

/** A hash of the file's bytes, read in chunks: how the send guard recognises the same file again. */
export async function fileHash(ctx: IExecuteFunctions, itemIndex: number, file: Omit<BinaryFile, 'field'>): Promise<string> {
	const hash = createHash('sha256');
	if (file.binary.id) {
		const stream = await ctx.helpers.getBinaryStream(file.binary.id, READ_CHUNK_BYTES);
		for await (const chunk of stream as AsyncIterable<Buffer>) hash.update(chunk);
	} else {
		hash.update(await ctx.helpers.getBinaryDataBuffer(itemIndex, file.binaryPropertyName));
	}
	return hash.digest('hex');
}
