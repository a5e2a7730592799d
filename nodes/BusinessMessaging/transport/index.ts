import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { signRequest } from '../../../credentials/signing';
import { waitForSlot } from '../helpers/pacing';
import type { RunState } from '../helpers/runState';
import { testModeOf } from '../helpers/testMode';

export const CREDENTIAL_TYPE = 'businessMessagingApi';

/** The spec's default and, since no maximum is shown, the largest page this package asks for. */
export const PAGE_SIZE = 100;

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

type Context = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;

/**
 * When the service answers 429, every request of the same node run waits until the back-off is over,
 * not just the one that was refused: parallel sends slow down together instead of hammering on.
 */
async function waitForBackOff(run: RunState<Context>): Promise<void> {
	const wait = run.backOffUntil - Date.now();
	if (wait > 0) await sleep(wait);
}

/**
 * The credential, read once per node run and handed to `httpRequestWithAuthentication`, which would
 * read it again otherwise. A failed read is not kept, so the next item tries again as before.
 */
export async function getCredential(run: RunState<Context>): Promise<ICredentialDataDecryptedObject> {
	if (run.credentials === undefined) {
		const credentials = run.ctx.getCredentials(CREDENTIAL_TYPE);
		run.credentials = credentials;
		credentials.catch(() => {
			if (run.credentials === credentials) run.credentials = undefined;
		});
	}
	return await run.credentials;
}

export interface RequestOptions {
	qs?: IDataObject;
	body?: IDataObject | Buffer;
	headers?: IDataObject;
	itemIndex?: number;
	retry?: RetryPolicy;
	/** A message to a customer: the credential's Test Mode applies. */
	message?: boolean;
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

/** The one function every request of the action node goes through. */
export async function apiRequest(
	run: RunState<Context>,
	method: IHttpRequestMethods,
	path: string,
	{ qs, body, headers, itemIndex, retry = method === 'GET' ? 'idempotent' : 'send', message }: RequestOptions = {},
): Promise<IDataObject> {
	const ctx = run.ctx;
	const credentials = await getCredential(run);
	const reference = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
	const timeoutSeconds =
		itemIndex === undefined
			? DEFAULT_TIMEOUT_SECONDS
			: ((ctx as IExecuteFunctions).getNodeParameter('options.timeout', itemIndex, DEFAULT_TIMEOUT_SECONDS) as number);
	const timeoutMs = Math.round(timeoutSeconds * 1000);
	const baseUrl = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
	const options: IHttpRequestOptions = {
		method,
		url: `${baseUrl}${path}`,
		qs,
		body,
		headers,
		json: !Buffer.isBuffer(body),
		timeout: timeoutMs,
	};
	if (message && testModeOf(ctx as IExecuteFunctions, credentials).mode === 'dryRun') {
		// Signed as it would be sent, so a dry run also proves the credential can sign it.
		const signed = await signRequest(credentials, { ...options });
		const bytes = Buffer.isBuffer(signed.body) ? signed.body.length : 0;
		return { request: { method, url: signed.url, bytes, signed: Boolean(signed.headers?.['X-Service-Signature-256']) } };
	}
	const perSecond =
		message && itemIndex !== undefined
			? Number((ctx as IExecuteFunctions).getNodeParameter('options.maxMessagesPerSecond', 0, 0))
			: 0;
	for (let attempt = 1; ; attempt++) {
		await waitForBackOff(run);
		await waitForSlot(run.pacing, perSecond);
		try {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				{ ...options },
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

export interface Page {
	items: IDataObject[];
	lastPage?: number;
}

/** Reads one page of a list endpoint: `{ data: [...], meta: { last_page } }` (the template list's shape). */
export async function getPage(
	run: RunState<Context>,
	path: string,
	qs: IDataObject,
	page: number,
	limit: number,
	itemIndex?: number,
): Promise<Page> {
	const response = await apiRequest(run, 'GET', path, { qs: { ...qs, page, limit }, itemIndex });
	const items = Array.isArray(response.data) ? (response.data as IDataObject[]) : [];
	const meta = response.meta as IDataObject | undefined;
	const lastPage = typeof meta?.last_page === 'number' ? meta.last_page : undefined;
	return { items, lastPage };
}

/** The most items a list operation returns (fields Return All and Limit): undefined for Return All. */
export function listLimit(run: RunState, itemIndex: number): number | undefined {
	const { ctx } = run;
	return ctx.getNodeParameter('returnAll', itemIndex) ? undefined : (ctx.getNodeParameter('limit', itemIndex) as number);
}

/**
 * All items of a list endpoint, or the first `max`. Follows `meta.last_page` when the service sends it;
 * without it, stops at the first short page (docs/assumptions.md).
 */
export async function getList(
	run: RunState<Context>,
	path: string,
	qs: IDataObject,
	max: number | undefined,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const results: IDataObject[] = [];
	// The page size stays the same on every page: page numbers count in units of it.
	const limit = max === undefined ? PAGE_SIZE : Math.min(PAGE_SIZE, max);
	for (let page = 1; ; page++) {
		const { items, lastPage } = await getPage(run, path, qs, page, limit, itemIndex);
		results.push(...items);
		const done =
			(max !== undefined && results.length >= max) ||
			items.length === 0 ||
			(lastPage !== undefined ? page >= lastPage : items.length < limit);
		if (done) return max === undefined ? results : results.slice(0, max);
	}
}
