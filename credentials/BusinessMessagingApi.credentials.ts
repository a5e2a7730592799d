import { createHmac } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

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

/** Shown under Base URL: what the bare connection error codes of the Test button mean. */
export const BASE_URL_CONNECTION_HINT =
	'Test says ECONNREFUSED, ENOTFOUND or ETIMEDOUT? Nothing answered at this address: check the host name, the port, and https:// or http://.';

export class BusinessMessagingApi implements ICredentialType {
	name = 'businessMessagingApi';

	displayName = 'Business Messaging API';

	icon = {
		light: 'file:../icons/businessMessaging.svg',
		dark: 'file:../icons/businessMessaging.dark.svg',
	} as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-business-messaging#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com/v1',
			description: 'The address every API path is relative to, as shown in your developer dashboard',
			// n8n's Test shows only the error code when nothing answers (its credentials tester returns
			// error.cause.code; response-code rules cannot match a connection that never got a response),
			// so the hint for those codes sits on the field they are about.
			hint: BASE_URL_CONNECTION_HINT,
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: 'Sent as X-Client-ID with every request',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Key that signs every request. It is never sent itself.',
		},
		{
			displayName: 'Workspace Domain',
			name: 'domain',
			type: 'string',
			default: '',
			required: true,
			description: 'Your workspace identifier, sent as X-Domain',
		},
		{
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Key the service signs webhook events with. The Business Messaging Trigger rejects every event while this is empty.',
		},
		{
			displayName: 'Default Sender (Phone Number ID)',
			name: 'phoneNumberId',
			type: 'string',
			default: '',
			description: 'Sender number used when a node leaves its Sender field empty',
		},
		{
			displayName: 'Multipart Signing',
			name: 'multipartSigning',
			type: 'options',
			default: 'rawBody',
			options: [
				{
					name: 'Raw Body (Default)',
					value: 'rawBody',
					description: 'Timestamp followed by the exact multipart bytes sent',
				},
				{
					name: 'Query String',
					value: 'queryString',
					description: 'Timestamp followed by the query string, as for requests without a JSON body',
				},
				{
					name: 'Timestamp Only',
					value: 'timestampOnly',
					description: 'Timestamp followed by nothing',
				},
			],
			description:
				'Advanced. How media uploads are signed: the service documentation does not say. Change only if media sends fail with 401 while other requests work.',
		},
		{
			displayName: 'Test Mode',
			name: 'testMode',
			type: 'options',
			default: 'off',
			options: [
				{ name: 'Off', value: 'off', description: 'Messages go to their real recipients' },
				{
					name: 'Send to Test Recipient',
					value: 'redirect',
					description: 'Every message goes to the Test Recipient below instead',
				},
				{
					name: 'Dry Run',
					value: 'dryRun',
					description: 'Every message is checked and signed, but not sent',
				},
			],
			description:
				'For building workflows: applies to every node using this credential. The output and the node’s output panel say when it is on.',
		},
		{
			displayName: 'Test Recipient',
			name: 'testRecipient',
			type: 'string',
			default: '',
			placeholder: '+4915112345678',
			description: 'Your own number: receives every message while Test Mode is Send to Test Recipient',
			displayOptions: { show: { testMode: ['redirect'] } },
		},
	];

	authenticate = signRequest;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/templates',
			method: 'GET',
			qs: { page: 1, limit: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The service rejected the signed request (401). Check the client ID, client secret and workspace domain, and that this machine’s clock is right.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'Nothing answers at this base URL (404). Check the base URL, including any version path.',
				},
			},
		],
	};
}
