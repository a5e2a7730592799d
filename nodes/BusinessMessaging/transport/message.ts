import type { IDataObject } from 'n8n-workflow';

import { isMessagePath, type MessagePath } from './path';
import { type AnyConnection, request, type RequestOptions, signOnly } from './request';

/** A declared message path that leaves the message endpoints once resolved (`/w/message/../../orders/1`) is no message. */
function checkedMessagePath(path: MessagePath): MessagePath {
	if (!isMessagePath(path)) throw new Error(`${path} is not a message endpoint once its dot segments are resolved: write the endpoint plainly`);
	return path;
}

/**
 * The only way to a message endpoint, for the send pipeline alone (actions/send.ts; the dependency
 * rules in .dependency-cruiser.cjs refuse any other importer). Retried only when the service cannot have
 * sent it (`retry: 'send'`).
 */
export async function postMessage(
	run: AnyConnection,
	path: MessagePath,
	options: Omit<RequestOptions, 'retry'>,
): Promise<IDataObject> {
	return await request(run, 'POST', checkedMessagePath(path), { ...options, retry: 'send' });
}

/** Test Mode's dry run: the message request signed as it would be sent, and not sent. */
export async function signMessageOnly(
	run: AnyConnection,
	path: MessagePath,
	options: Omit<RequestOptions, 'retry' | 'beforeAttempt'>,
): Promise<IDataObject> {
	return await signOnly(run, 'POST', checkedMessagePath(path), options);
}
