import { randomBytes } from 'node:crypto';

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
