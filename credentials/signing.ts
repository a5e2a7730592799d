/**
 * The service's request signing, in one place: the credential signs every request of n8n with it
 * (`authenticate`), and the node's transport signs a dry run with it. It sits beside the credential,
 * so the credential file that n8n loads on its own finds it in its own folder.
 */
import { createHmac } from 'node:crypto';
import type { ICredentialDataDecryptedObject, IDataObject, IHttpRequestOptions } from 'n8n-workflow';

/**
 * How a multipart body is signed. The spec does not say (docs/assumptions.md); this is the one
 * place that decides it.
 */
export type MultipartSigning = 'rawBody' | 'queryString' | 'timestampOnly';

/** The spec's rule: lowercase hex HMAC-SHA256 over the timestamp immediately followed by the payload. */
export function signPayload(
	clientSecret: string,
	timestamp: string,
	payload: string | Buffer,
): string {
	return createHmac('sha256', clientSecret).update(timestamp).update(payload).digest('hex');
}

/**
 * Query string as it is sent and signed: keys and values percent-encoded as RFC 3986 asks (spaces as
 * %20, and !'()* escaped too, so the URL class leaves the text alone).
 */
export function encodeQuery(qs: IDataObject | undefined): string {
	const encode = (text: string) =>
		encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
	const pairs: string[] = [];
	for (const [key, value] of Object.entries(qs ?? {})) {
		if (value === undefined || value === null) continue;
		const values = Array.isArray(value) ? value : [value];
		for (const item of values) {
			const text = typeof item === 'object' ? JSON.stringify(item) : String(item);
			pairs.push(`${encode(key)}=${encode(text)}`);
		}
	}
	return pairs.join('&');
}

/** Request options arrive in two shapes: `url` (httpRequest) and `uri` (the HTTP Request node's legacy path). */
type AnyRequestOptions = IHttpRequestOptions & {
	uri?: string;
	formData?: unknown;
	json?: boolean;
};

function headerValue(headers: IDataObject, name: string): string | undefined {
	const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
	return typeof entry?.[1] === 'string' ? entry[1] : undefined;
}

function withoutHeaders(headers: IDataObject, pattern: RegExp): IDataObject {
	return Object.fromEntries(Object.entries(headers).filter(([name]) => !pattern.test(name)));
}

function isMultipart(options: AnyRequestOptions): boolean {
	const contentType = headerValue(options.headers ?? {}, 'content-type') ?? '';
	return (
		contentType.toLowerCase().startsWith('multipart/form-data') ||
		options.formData !== undefined ||
		(typeof FormData !== 'undefined' && options.body instanceof FormData)
	);
}

/** Puts `qs` into the URL itself; the query string signed is the one the final URL holds. */
function resolveUrl(options: AnyRequestOptions): { url: URL; query: string } {
	const raw = options.uri ?? options.url;
	const base = options.baseURL;
	const joined =
		base && !/^https?:\/\//i.test(raw) ? `${base.replace(/\/+$/, '')}/${raw.replace(/^\/+/, '')}` : raw;
	const url = new URL(joined);
	const query = [url.search.replace(/^\?/, ''), encodeQuery(options.qs)].filter(Boolean).join('&');
	url.search = query ? `?${query}` : '';
	return { url, query: url.search.replace(/^\?/, '') };
}

function multipartPayload(
	options: AnyRequestOptions,
	query: string,
	multipartSigning: MultipartSigning,
): string | Buffer {
	if (multipartSigning === 'timestampOnly') return '';
	if (multipartSigning === 'queryString') return query;
	if (Buffer.isBuffer(options.body)) return options.body;
	throw new Error(
		'This multipart request cannot be signed over its raw body, because n8n builds that body after signing. ' +
			'Send media with the Business Messaging node, or change "Multipart Signing" in the credential.',
	);
}

function isEmptyBody(body: unknown): boolean {
	return (
		body === undefined ||
		body === null ||
		body === '' ||
		(typeof body === 'object' && !Buffer.isBuffer(body) && Object.keys(body).length === 0)
	);
}

/**
 * Signs a request as the spec's Authentication part says. Every request through this credential
 * comes here, so the bytes signed are made the bytes sent: the query string goes into the URL, and a
 * body goes out as the exact Buffer that was signed (HTTP clients re-encode strings and objects).
 */
export async function signRequest(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
	now: () => number = Date.now,
): Promise<IHttpRequestOptions> {
	const options = { ...requestOptions } as AnyRequestOptions;
	const { url, query } = resolveUrl(options);
	const method = (options.method ?? 'GET').toUpperCase();
	let headers = withoutHeaders(
		options.headers ?? {},
		/^(accept|x-service-signature-256|x-timestamp|x-domain|x-client-id)$/i,
	);
	let payload: string | Buffer;
	if (isMultipart(options)) {
		payload = multipartPayload(options, query, (credentials.multipartSigning as MultipartSigning) ?? 'rawBody');
	} else if (method === 'GET' || method === 'HEAD' || isEmptyBody(options.body)) {
		payload = query;
		delete options.body;
	} else {
		const body = options.body;
		const contentType = headerValue(headers, 'content-type');
		const formEncoded = contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded') ?? false;
		const text =
			typeof body === 'string' || Buffer.isBuffer(body)
				? body
				: formEncoded
					? encodeQuery(body as IDataObject)
					: JSON.stringify(body);
		payload = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
		options.body = payload;
		if (!contentType || (typeof body === 'object' && !Buffer.isBuffer(body) && !formEncoded)) {
			headers = { ...withoutHeaders(headers, /^content-type$/i), 'Content-Type': 'application/json' };
		}
	}
	const timestamp = String(Math.floor(now() / 1000));

	if (options.uri !== undefined) options.uri = url.href;
	else options.url = url.href;
	delete options.qs;
	delete options.baseURL;
	options.headers = {
		...headers,
		Accept: 'application/json',
		'X-Service-Signature-256': `sha256=${signPayload(String(credentials.clientSecret ?? ''), timestamp, payload)}`,
		'X-Timestamp': timestamp,
		'X-Domain': String(credentials.domain ?? ''),
		'X-Client-ID': String(credentials.clientId ?? ''),
	};
	return options;
}
