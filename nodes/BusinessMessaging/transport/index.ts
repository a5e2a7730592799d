import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import { isMessagePath, type MessagePath } from './path';
import { type AnyConnection, type Connection, request, type RequestOptions } from './request';

export { type AnyConnection, type Connection, DEFAULT_TIMEOUT_SECONDS, getCredential, type RetryPolicy } from './request';
export { isMessagePath, MESSAGE_PATH_PREFIX, type MessagePath, normalPath } from './path';

/** The spec's default and, since no maximum is shown, the largest page this package asks for. */
export const PAGE_SIZE = 100;

/**
 * A path written out that is a message endpoint, or that is not written plainly (a dot segment, an
 * escape, a backslash, a repeated slash), is refused by the type checker here, with what to do instead.
 */
type PlainRequestPath<Path extends string> = Path extends MessagePath
	? 'a message endpoint: declare the operation kind send (ARCHITECTURE.md, "How to add a send")'
	: Path extends `${string}${'/.' | '%' | '\\' | '//'}${string}`
		? 'a path with a dot segment, escape, backslash or repeated slash: write it plainly'
		: Path;

/**
 * A request that sends nothing to a customer: reads, the order update, the webhook test. A message
 * cannot go out through here: declare the operation `kind: 'send'` and the send pipeline
 * (actions/send.ts) sends it with every safety rule. Refused by the type checker for a literal path,
 * and when the request is made, before anything is sent, for a path built at run time: decided on the
 * path as it goes out (`normalPath`), so `/./w/message/text` or `/w/%2e%2e/w/message/text` is refused too.
 */
export async function apiRequest<Path extends string>(
	run: AnyConnection,
	method: IHttpRequestMethods,
	path: PlainRequestPath<Path>,
	options: Omit<RequestOptions, 'beforeAttempt'> = {},
): Promise<IDataObject> {
	if (isMessagePath(path)) {
		throw new Error(
			`${path} sends a message: only the send pipeline may call it (declare the operation kind 'send', see ARCHITECTURE.md)`,
		);
	}
	return await request(run, method, path, options);
}
export interface Page {
	items: IDataObject[];
	lastPage?: number;
}

/** Reads one page of a list endpoint: `{ data: [...], meta: { last_page } }` (the template list's shape). */
export async function getPage(
	run: AnyConnection,
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
export function listLimit(run: Connection, itemIndex: number): number | undefined {
	const { ctx } = run;
	return ctx.getNodeParameter('returnAll', itemIndex) ? undefined : (ctx.getNodeParameter('limit', itemIndex) as number);
}

/**
 * All items of a list endpoint, or the first `max`. Follows `meta.last_page` when the service sends it;
 * without it, stops at the first short page (docs/assumptions.md).
 */
export async function getList(
	run: AnyConnection,
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
