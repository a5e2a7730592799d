import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, ILoadOptionsFunctions, IWebhookFunctions } from 'n8n-workflow';

import { type Gate, newGate } from './pacing';

/**
 * What one execution of the node shares between its items, created by the router for each execution
 * (and by listSearch, resourceMapping and a waiting node's webhook for theirs). It ends with the execution: nothing here outlives it.
 */
export class RunState<Context extends IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions = IExecuteFunctions> {
	/**
	 * The credential, read once: n8n loads and decrypts it on every `getCredentials` call, which cost more
	 * than the request itself against a nearby service. Unset again when the read fails, so the next item
	 * tries again (transport, `getCredential`).
	 */
	credentials?: Promise<ICredentialDataDecryptedObject>;

	/** After a 429, every request of the run waits until then (ms), so parallel sends slow down together. */
	backOffUntil = 0;

	/** Option Max Messages per Second: every request of the run passes this gate. */
	readonly pacing: Gate = newGate();

	/** Templates read in this run, by ID: items using the same template share one request. */
	readonly templates = new Map<number, Promise<IDataObject>>();

	/** Parameter values of items already read, by `item:name` (helpers/itemParameter.ts). */
	readonly itemValues = new Map<string, unknown>();

	constructor(readonly ctx: Context) {}
}
