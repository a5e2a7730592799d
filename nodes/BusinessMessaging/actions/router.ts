import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import * as contact from './contact';
import * as message from './message';
import * as order from './order';
import * as template from './template';
import * as webhook from './webhook';
import { DEFAULT_PARALLEL_REQUESTS, MAX_PARALLEL_REQUESTS } from './common.descriptions';
import { checkAllowedRecipient, operationRefusal, runsAsAgentTool } from '../helpers/agentLimits';
import { type MessageOf, startSendGuard } from '../helpers/sendOnce';

type Operation = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject | IDataObject[]>;

const resources: Record<string, Record<string, unknown>> = { contact, message, order, template, webhook };

interface OperationModule {
	execute?: Operation;
	/** Operations that handle all items at once (Send and Wait: the whole execution waits). */
	executeAll?: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;
	/** Present on operations that may run items in parallel: items with the same key keep their order. */
	recipientOf?: (this: IExecuteFunctions, itemIndex: number) => string;
	/** Present on message sends: what an item sends, so a retry or a repeat is not sent again. */
	messageOf?: MessageOf;
}

/**
 * The one item loop: dispatch each item to its operation, keep pairedItem, honour Continue On Fail.
 * Message sends may run several recipients at once (option Parallel Requests); output stays in item order.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const module = resources[resource]?.[operation] as OperationModule | undefined;
	const asAgentTool = runsAsAgentTool(this);
	const refusal = asAgentTool ? operationRefusal(resource, operation) : undefined;
	if (refusal) return [items.map((_, item) => ({ json: refusal, pairedItem: { item } }))];
	if (module?.executeAll) return await module.executeAll.call(this);
	const run = module?.execute;
	if (!run) {
		const named = operation ? `"${operation}"` : '(none set)';
		throw new NodeOperationError(this.getNode(), `The operation ${named} of "${resource}" is not supported`);
	}
	const outputs: INodeExecutionData[][] = new Array(items.length);
	// As an AI agent's tool a failed item is the tool's answer: AI Agent 1.x-2.2 (LangChain's
	// AgentExecutor) gives the model an empty result for a tool that throws, so the model could not
	// read what to correct. The item carries the same message a user sees in the editor.
	const keepGoing = this.continueOnFail() || asAgentTool;
	const guard = module.messageOf ? await startSendGuard(this, items.length, module.messageOf) : undefined;
	const runItem = async (itemIndex: number) => {
		try {
			// An agent's sends stay within the author's Allowed Recipients.
			if (asAgentTool && module.recipientOf) checkAllowedRecipient(this, itemIndex);
			const output = guard
				? await guard.send(itemIndex, async () => (await run.call(this, itemIndex)) as IDataObject)
				: await run.call(this, itemIndex);
			outputs[itemIndex] = this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(output), {
				itemData: { item: itemIndex },
			});
		} catch (error) {
			if (!keepGoing) throw asNodeError(this, error, itemIndex);
			const json: IDataObject = { error: error.message };
			if (error.description) json.description = error.description;
			if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
			outputs[itemIndex] = [{ json, pairedItem: { item: itemIndex } }];
		}
	};
	const parallel = module.recipientOf
		? Math.min(
				Math.max(Math.floor(this.getNodeParameter('options.parallelRequests', 0, DEFAULT_PARALLEL_REQUESTS) as number), 1),
				MAX_PARALLEL_REQUESTS,
			)
		: 1;
	try {
		if (parallel === 1) {
			for (let itemIndex = 0; itemIndex < items.length; itemIndex++) await runItem(itemIndex);
		} else {
			const error = await runInParallel(groupBy(items.length, (i) => module.recipientOf!.call(this, i)), parallel, runItem);
			if (error) throw asNodeError(this, error);
		}
	} finally {
		await guard?.finish();
	}
	return [outputs.flat()];
}

/** Both constructors hand back an error that already is of their kind. */
function asNodeError(ctx: IExecuteFunctions, error: Error, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError) return new NodeApiError(ctx.getNode(), error as unknown as JsonObject);
	return new NodeOperationError(ctx.getNode(), error, { itemIndex });
}

/** Item indexes grouped by key, groups and items in first-seen order. */
function groupBy(count: number, keyOf: (itemIndex: number) => string): number[][] {
	const groups = new Map<string, number[]>();
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		let key: string;
		try {
			key = keyOf(itemIndex);
		} catch {
			key = `#item-${itemIndex}`; // Its own run will report the error.
		}
		const group = groups.get(key) ?? [];
		group.push(itemIndex);
		groups.set(key, group);
	}
	return [...groups.values()];
}

/** Runs groups on `parallel` workers; a group's items run one after another. Stops at the first error and returns it. */
async function runInParallel(
	groups: number[][],
	parallel: number,
	runItem: (itemIndex: number) => Promise<void>,
): Promise<Error | undefined> {
	let next = 0;
	let firstError: Error | undefined;
	const worker = async () => {
		while (!firstError && next < groups.length) {
			for (const itemIndex of groups[next++]) {
				if (firstError) return;
				await runItem(itemIndex).catch((error: Error) => {
					firstError ??= error;
				});
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(parallel, groups.length) }, worker));
	return firstError;
}
