import type { ICheckProcessedOptions, IContextObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * The sends of every attempt of one retry chain (an execution, its retries, retries of those), so that
 * no attempt sends what another already sent, whichever failed execution the user retries.
 *
 * Each n8n Retry copies the data of the execution it retries, the node's ledger (`sentMessages`) with
 * it, so an attempt knows what its own ancestors sent, never what a sibling (another retry of the same
 * execution) sent. What siblings do share is a chain id, and n8n's processed-data store (in the
 * database, across executions, queue mode too) holds what each retry sent under it. A first execution
 * (not a retry) has no sibling and does not use the store.
 */

/** The node's processed-data store, shared with Skip Repeats Within (same mode and limit). */
export const PROCESSED: ICheckProcessedOptions = { mode: 'entries', maxEntries: 50_000 };

/**
 * The chain's id, kept in the node's context so retries copy it: the first execution's id, or, when
 * this node never ran before in the chain, when n8n established the first execution's runtime data
 * (`getExecutionContext()`, which n8n 1.123 to 2.41 also copies to every retry unchanged).
 */
function chainId(ctx: IExecuteFunctions, context: IContextObject): string {
	if (typeof context.retryChain === 'string') return context.retryChain;
	if (ctx.getMode() !== 'retry') return (context.retryChain = ctx.getExecutionId());
	const established = ctx.getExecutionContext?.();
	// Established by a retry: the first execution had none (older n8n), and siblings each got their own.
	if (!established?.establishedAt || established.source === 'retry') {
		throw new NodeOperationError(ctx.getNode(), 'Cannot tell what other retries of this execution already sent', {
			description:
				'This node did not run in the execution being retried, and n8n did not record when that execution started, so another retry of it may already have sent these messages. Nothing was sent. Start the workflow anew instead of retrying this execution.',
		});
	}
	return (context.retryChain = `established ${established.establishedAt}`);
}

export interface ChainPlan {
	/** Items another attempt of the chain sent. */
	sentElsewhere: Set<number>;
	/** Store key of each item this attempt may send, recorded as sent in advance. */
	reserved: Map<number, string>;
}

/**
 * In a retry, looks up and records in one call the keys of the items the ledger does not hold. Recorded before
 * sending: if n8n dies between the two, the message counts as sent and no later retry sends it.
 */
export async function planChain(
	ctx: IExecuteFunctions,
	context: IContextObject,
	entriesOf: () => Promise<Map<number, string>>,
): Promise<ChainPlan | undefined> {
	const chain = chainId(ctx, context);
	if (ctx.getMode() !== 'retry') return undefined;
	const entries = await entriesOf();
	if (entries.size === 0) return undefined;
	const keyOf = new Map([...entries].map(([itemIndex, entry]) => [itemIndex, `chain ${chain} ${entry}`]));
	const { processed } = await ctx.helpers.checkProcessedAndRecord([...keyOf.values()], 'node', PROCESSED);
	const seen = new Set(processed.map(String));
	const plan: ChainPlan = { sentElsewhere: new Set(), reserved: new Map() };
	for (const [itemIndex, key] of keyOf) {
		if (seen.has(key)) plan.sentElsewhere.add(itemIndex);
		else plan.reserved.set(itemIndex, key);
	}
	return plan;
}
