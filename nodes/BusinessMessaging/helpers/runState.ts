import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INodeCredentialsDetails,
	IWebhookFunctions,
} from 'n8n-workflow';

import type { Connection } from '../transport';
import { type Gate, newGate } from './pacing';

/**
 * What one execution of the node shares between its items, created by the router for each execution
 * and each webhook request (and by listSearch and resourceMapping for theirs). It ends with the execution:
 * nothing here outlives it, and nothing of one execution is kept anywhere else (test/tools/architecture.test.ts).
 */
export class RunState<Context extends IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions = IExecuteFunctions>
	implements Connection<Context>
{
	credentials?: Promise<ICredentialDataDecryptedObject>;

	backOffUntil = 0;

	credentialReference?: INodeCredentialsDetails | null;

	/** Option Max Messages per Second: every message of the run passes this gate (actions/send.ts). */
	readonly pacing: Gate = newGate();

	/** Templates read in this run, by ID: items using the same template share one request. */
	readonly templates = new Map<number, Promise<IDataObject>>();

	/** Parameter values of items already read, by `item:name` (helpers/itemParameter.ts). */
	readonly itemValues = new Map<string, unknown>();

	/** What a waiting node kept in the execution, read back once per webhook request, by field (helpers/nodeContext.ts). */
	readonly kept = new Map<string, unknown>();

	constructor(readonly ctx: Context) {}
}
