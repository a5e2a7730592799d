import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, ILoadOptionsFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { Connection } from '../transport';
import { type Gate, newGate } from './pacing';

/**
 * What one execution of the node shares between its items, created by the router for each execution
 * (and by listSearch, resourceMapping and a waiting node's webhook for theirs). It ends with the execution: nothing here outlives it.
 */
export class RunState<Context extends IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions = IExecuteFunctions>
	implements Connection<Context>
{
	credentials?: Promise<ICredentialDataDecryptedObject>;

	backOffUntil = 0;

	/** Option Max Messages per Second: every message of the run passes this gate (actions/send.ts). */
	readonly pacing: Gate = newGate();

	/** Templates read in this run, by ID: items using the same template share one request. */
	readonly templates = new Map<number, Promise<IDataObject>>();

	/** Parameter values of items already read, by `item:name` (helpers/itemParameter.ts). */
	readonly itemValues = new Map<string, unknown>();

	constructor(readonly ctx: Context) {}
}
