import { randomBytes } from 'node:crypto';

export interface FilePart {
	field: string;
	fileName: string;
	contentType: string;
	data: Buffer;
}

function quoted(value: string): string {
	return value.replace(/[\r\n"]/g, (c) => (c === '"' ? '%22' : ' '));
}

/**
 * Builds a multipart/form-data body as one Buffer, so the credential can sign exactly the bytes that
 * are sent (no form library is available to community nodes at run time).
 */
export function buildMultipart(
	fields: Record<string, string>,
	file: FilePart,
): { body: Buffer; contentType: string } {
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
	const body = Buffer.concat([
		Buffer.from(head + fileHead, 'utf8'),
		file.data,
		Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
	]);
	return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
