import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INodeCredentialsDetails,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../../credentials/credentialType';
import { signRequest } from '../../../credentials/signing';
import { normalPath } from './path';

/**
 * What the transport keeps for one execution of the node (helpers/runState.ts holds it, with more): the
 * context, the credential read once, and the 429 back-off every request of the run shares.
 */
export interface Connection<Context extends IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions = IExecuteFunctions> {
	readonly ctx: Context;
	/**
	 * The credential, read once: n8n loads and decrypts it on every `getCredentials` call, which cost more
	 * than the request itself against a nearby service. Unset again when the read fails (`getCredential`).
	 */
	credentials?: Promise<ICredentialDataDecryptedObject>;
	/** After a 429, every request of the run waits until then (ms), so parallel sends slow down together. */
	backOffUntil: number;
	/** The node's credential (id and name), read once (`credentialReference`); null when the node names none. */
	credentialReference?: INodeCredentialsDetails | null;
}

/**
 * Whether a failed request may be sent again (docs/action-node.md, "Retries").
 * - `idempotent`: reads and the order update (it sets absolute values): retried after 429, 5xx,
 *   timeouts and dropped connections.
 * - `send`: message sends. Retried only when the service cannot have acted on it: 429, 503 with
 *   Retry-After, or a connection that was refused before the request went out. Never after a timeout
 *   or another 5xx, because the customer could get the message twice.
 */
export type RetryPolicy = 'idempotent' | 'send';

export const DEFAULT_TIMEOUT_SECONDS = 60;
const MAX_ATTEMPTS = 4;
const BACKOFF_MS = [500, 1000, 2000];
const MAX_RETRY_AFTER_MS = 60_000;

/** A waiting node's webhook sends too: Ask and Wait for Chat Reply's re-ask (actions/send.ts). */
type Context = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;
export type AnyConnection = Connection<Context>;

/**
 * When the service answers 429, every request of the same node run waits until the back-off is over,
 * not just the one that was refused: parallel sends slow down together instead of hammering on.
 */
async function waitForBackOff(run: AnyConnection): Promise<void> {
	const wait = run.backOffUntil - Date.now();
	if (wait > 0) await sleep(wait);
}

/**
 * The credential, read once per node run and handed to `httpRequestWithAuthentication`, which would
 * read it again otherwise. A failed read is not kept, so the next item tries again as before.
 */
export async function getCredential(run: AnyConnection): Promise<ICredentialDataDecryptedObject> {
	if (run.credentials === undefined) {
		const credentials = run.ctx.getCredentials(CREDENTIAL_TYPE);
		run.credentials = credentials;
		credentials.catch(() => {
			if (run.credentials === credentials) run.credentials = undefined;
		});
	}
	return await run.credentials;
}

/** The node's credential (id and name), read once per run: n8n's `getNode()` copies the whole node. */
function credentialReference(run: AnyConnection): INodeCredentialsDetails | undefined {
	if (run.credentialReference === undefined) run.credentialReference = run.ctx.getNode().credentials?.[CREDENTIAL_TYPE] ?? null;
	return run.credentialReference ?? undefined;
}

export interface RequestOptions {
	qs?: IDataObject;
	body?: IDataObject | Buffer;
	headers?: IDataObject;
	itemIndex?: number;
	retry?: RetryPolicy;
	/**
	 * Waited for before every attempt, after any 429 back-off: the send pipeline's pacing gate
	 * (option Max Messages per Second), so that a retried message waits its turn too.
	 */
	beforeAttempt?: () => Promise<void>;
}

interface FailedResponse {
	status?: number;
	body?: unknown;
	retryAfterMs?: number;
	code?: string;
	message: string;
}

function parseRetryAfter(value: unknown): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const seconds = Number(value);
	const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(String(value)) - Date.now();
	return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}

/** What went wrong, read from n8n's wrapped HTTP error without keeping the request (and its headers). */
function describeFailure(error: unknown): FailedResponse {
	const wrapped = error as { cause?: unknown; message?: string };
	const cause = (wrapped.cause ?? error) as {
		code?: string;
		message?: string;
		response?: { status?: number; data?: unknown; headers?: Record<string, unknown> };
	};
	const response = cause.response;
	return {
		status: response?.status,
		body: response?.data,
		retryAfterMs: parseRetryAfter(response?.headers?.['retry-after']),
		code: cause.code,
		message: cause.message ?? wrapped.message ?? 'Request failed',
	};
}

// Plain words for network failures (without the code: NodeApiError rewrites messages that name one).
const NETWORK_MESSAGES: Record<string, string> = {
	ECONNREFUSED: 'The service refused the connection',
	ECONNRESET: 'The connection to the service closed before it answered',
	EPIPE: 'The connection to the service closed before it answered',
	ENOTFOUND: 'The service’s host name was not found',
	EAI_AGAIN: 'The service’s host name could not be looked up',
};

function isTimeout(code: string | undefined): boolean {
	return code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT';
}

/** How long to wait before the next attempt, or undefined when this failure must not be retried. */
function retryDelay(failure: FailedResponse, policy: RetryPolicy, attempt: number): number | undefined {
	if (attempt >= MAX_ATTEMPTS) return undefined;
	const backoff = BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)];
	const { status, code, retryAfterMs } = failure;
	if (status === 429) return retryAfterMs ?? backoff;
	if (status === 503 && retryAfterMs !== undefined) return retryAfterMs;
	if (status === undefined && code === 'ECONNREFUSED') return backoff;
	if (policy === 'send') return undefined;
	if (status !== undefined && status >= 500) return backoff;
	if (status === undefined && (isTimeout(code) || code === 'ECONNRESET' || code === 'EPIPE')) return backoff;
	return undefined;
}

/** The service's own words for an error, from the body shape the spec leaves open (docs/assumptions.md). */
function serviceMessage(body: unknown): { message?: string; details?: string } {
	if (typeof body === 'string') {
		const text = body.trim();
		return { message: text ? text.slice(0, 500) : undefined };
	}
	if (!body || typeof body !== 'object') return {};
	const record = body as IDataObject;
	const message = [record.message, record.error, record.detail].find((value) => typeof value === 'string') as
		| string
		| undefined;
	let details: string | undefined;
	if (record.errors && typeof record.errors === 'object') {
		details = Object.entries(record.errors as IDataObject)
			.map(([field, reasons]) => `${field}: ${Array.isArray(reasons) ? reasons.join(' ') : String(reasons)}`)
			.join('; ');
	}
	return { message, details };
}

function toNodeApiError(
	ctx: Context,
	failure: FailedResponse,
	timeoutMs: number,
	itemIndex?: number,
): NodeApiError {
	const { status, body } = failure;
	const { message, details } = serviceMessage(body);
	// Not `code`: NodeApiError would swap our message for its generic one for that code.
	const errorResponse = { httpCode: status ?? null, networkError: failure.code ?? null, body: (body ?? null) as never };
	if (status === undefined && failure.code === undefined) {
		// Failed before anything was sent, e.g. a request the credential cannot sign.
		return new NodeApiError(ctx.getNode(), errorResponse as JsonObject, { message: failure.message, itemIndex });
	}
	if (status === undefined) {
		return new NodeApiError(ctx.getNode(), errorResponse as JsonObject, {
			message: isTimeout(failure.code)
				? `The service did not answer within ${timeoutMs / 1000} seconds`
				: (NETWORK_MESSAGES[failure.code ?? ''] ?? 'Could not reach the service'),
			description: `${failure.code}: check the credential’s Base URL and that the service is reachable from n8n.`,
			itemIndex,
		});
	}
	return new NodeApiError(ctx.getNode(), errorResponse as JsonObject, {
		message: `The service answered ${status}: ${message ?? 'no error message'}`,
		description: details,
		httpCode: String(status),
		itemIndex,
	});
}

/** The request as n8n's HTTP helper takes it, the timeout from the item's option Timeout. */
function requestOptions(
	ctx: Context,
	credentials: ICredentialDataDecryptedObject,
	method: IHttpRequestMethods,
	path: string,
	{ qs, body, headers, itemIndex }: RequestOptions,
): IHttpRequestOptions {
	const timeoutSeconds =
		itemIndex === undefined
			? DEFAULT_TIMEOUT_SECONDS
			: ((ctx as IExecuteFunctions).getNodeParameter('options.timeout', itemIndex, DEFAULT_TIMEOUT_SECONDS) as number);
	const baseUrl = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
	return {
		method,
		// The path as the guards decided on it (transport/path.ts), never a form the client would resolve again.
		url: `${baseUrl}${normalPath(path)}`,
		qs,
		body,
		headers,
		json: !Buffer.isBuffer(body),
		timeout: Math.round(timeoutSeconds * 1000),
	};
}

/**
 * What a request would be, signed as it would be sent but not sent (Test Mode's dry run): this also
 * proves the credential can sign it.
 */
export async function signOnly(
	run: AnyConnection,
	method: IHttpRequestMethods,
	path: string,
	options: RequestOptions,
): Promise<IDataObject> {
	const credentials = await getCredential(run);
	const signed = await signRequest(credentials, requestOptions(run.ctx, credentials, method, path, options));
	const bytes = Buffer.isBuffer(signed.body) ? signed.body.length : 0;
	return { request: { method, url: signed.url, bytes, signed: Boolean(signed.headers?.['X-Service-Signature-256']) } };
}

/**
 * The one function every request of the action node goes through: the credential, timeouts, retries
 * by the request's policy, the shared 429 back-off and the service's own error message. Reached
 * through `apiRequest` (transport/index.ts) and, for messages, `postMessage` (transport/message.ts).
 */
export async function request(
	run: AnyConnection,
	method: IHttpRequestMethods,
	path: string,
	options: RequestOptions = {},
): Promise<IDataObject> {
	const { itemIndex, retry = method === 'GET' ? 'idempotent' : 'send', beforeAttempt } = options;
	const ctx = run.ctx;
	const credentials = await getCredential(run);
	const reference = credentialReference(run);
	const prepared = requestOptions(ctx, credentials, method, path, options);
	const timeoutMs = prepared.timeout!;
	for (let attempt = 1; ; attempt++) {
		await waitForBackOff(run);
		await beforeAttempt?.();
		try {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				{ ...prepared },
				{
					credentialsDecrypted: {
						id: reference?.id ?? '',
						name: reference?.name ?? '',
						type: CREDENTIAL_TYPE,
						data: { ...credentials },
					},
				},
			)) as unknown;
			// An empty answer is a success with nothing to say; other text is not what the spec promises.
			if (response === undefined || response === null || response === '') return {};
			if (typeof response !== 'object') {
				throw new NodeApiError(ctx.getNode(), { body: String(response ?? '') } as JsonObject, {
					message: 'The service answered with something that is not JSON',
					description: String(response ?? '').slice(0, 300),
					itemIndex,
				});
			}
			return response as IDataObject;
		} catch (error) {
			// Our own errors (built from a plain object) carry no cause and are final.
			if (error instanceof NodeApiError && !error.cause) {
				throw new NodeApiError(ctx.getNode(), error as unknown as JsonObject);
			}
			const failure = describeFailure(error);
			const delay = retryDelay(failure, retry, attempt);
			if (delay === undefined) throw toNodeApiError(ctx, failure, timeoutMs, itemIndex);
			if (failure.status === 429) {
				run.backOffUntil = Math.max(run.backOffUntil, Date.now() + delay);
			}
			await sleep(delay);
		}
	}
}
