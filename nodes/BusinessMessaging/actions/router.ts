import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IWebhookFunctions,
	IWebhookResponseData,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import * as contact from './contact';
import * as message from './message';
import type { Operation, SendAndWaitOperation } from './operation';
import * as order from './order';
import * as template from './template';
import * as webhook from './webhook';
import { operationRefusal, runsAsAgentTool } from '../helpers/agentLimits';
import { RunState } from '../helpers/runState';
import { type RunItem, sendAndWait, sendEach } from './send';
import { endStatusWait, prepareStatusWait, waitForStatuses } from './statusWait';
import { statusWaitWebhook, waitsForStatusHere } from './statusWaitWebhook';

/** Every operation of the node, by resource and then by the value of its Operation field. */
export const operationsByResource: Record<string, Record<string, Operation>> = {
	contact: contact.operations,
	message: message.operations,
	order: order.operations,
	template: template.operations,
	webhook: webhook.operations,
};

/** Each resource's Operation field and its operations' fields, in the order the node shows them. */
export const operationFields: INodeProperties[] = [
	...contact.description,
	...message.description,
	...order.description,
	...template.description,
	...webhook.description,
];

/** The answer link of Send and Wait for Response: n8n's waiting webhook, answered by `routeWebhook`. */
export { WAITING_WEBHOOKS } from './message/sendAndWait.operation';

function operationOf(resource: string, operation: string): Operation | undefined {
	return Object.hasOwn(operationsByResource, resource) && Object.hasOwn(operationsByResource[resource], operation)
		? operationsByResource[resource][operation]
		: undefined;
}

/**
 * The one item loop: dispatch each item to its operation, keep pairedItem, honour Continue On Fail.
 * Operations that send go through the send pipeline (actions/send.ts), which may run several recipients
 * at once; output stays in item order.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const chosen = operationOf(resource, operation);
	const asAgentTool = runsAsAgentTool(this);
	const refusal = asAgentTool ? operationRefusal(resource, operation) : undefined;
	if (refusal) return [items.map((_, item) => ({ json: refusal, pairedItem: { item } }))];
	if (!chosen) {
		const named = operation ? `"${operation}"` : '(none set)';
		throw new NodeOperationError(this.getNode(), `The operation ${named} of "${resource}" is not supported`);
	}
	// One state per execution of the node: credentials, back-off, pacing, templates and item values.
	const run = new RunState(this);
	if (chosen.kind === 'sendAndWait') return await sendAndWait(run, chosen);
	const outputs: INodeExecutionData[][] = new Array(items.length);
	// As an AI agent's tool a failed item is the tool's answer: AI Agent 1.x-2.2 (LangChain's
	// AgentExecutor) gives the model an empty result for a tool that throws, so the model could not
	// read what to correct. The item carries the same message a user sees in the editor.
	const keepGoing = this.continueOnFail() || asAgentTool;
	const runItem: RunItem = async (itemIndex, work) => {
		try {
			outputs[itemIndex] = this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(await work()), {
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
	if (chosen.kind === 'send') {
		// Wait for Status: checked, and registered with the trigger, before anything is sent.
		const statusWait = await prepareStatusWait(run);
		const error = await sendEach(run, chosen, items.length, runItem);
		if (error && statusWait) await endStatusWait(run, statusWait);
		if (error) throw asNodeError(this, error);
		if (statusWait) return await waitForStatuses(run, statusWait, outputs.flat());
	} else {
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			await runItem(itemIndex, async () => await chosen.execute(run, itemIndex));
		}
	}
	return [outputs.flat()];
}

/** Both constructors hand back an error that already is of their kind. */
function asNodeError(ctx: IExecuteFunctions, error: Error, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError) return new NodeApiError(ctx.getNode(), error as unknown as JsonObject);
	return new NodeOperationError(ctx.getNode(), error, { itemIndex });
}

/**
 * The node's webhook: the resume address of the operation the execution waits for. Ask and Wait for
 * Chat Reply says so from what it kept when it asked (`waitsHere`); every other request goes to Send and
 * Wait for Response's answer link, as before: not looked up by the node's own Operation, since any answer
 * link that reaches this node type is answered by it (n8n's human-review tool resumes through it too),
 * and the link itself says which question it answers (helpers/waitingQuestion.ts).
 */
export async function routeWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	// One state per request: what the execution kept is read once, for the choice and the operation.
	const run = new RunState(this);
	// A send's Wait for Status says so from what it kept when it sent.
	if (waitsForStatusHere(run)) return await statusWaitWebhook(run);
	const waiting = waitingOperations.find((operation) => operation.waitsHere?.(run)) ?? answerLinkOperation;
	return await waiting.webhook!(run);
}

const waitingOperations = Object.values(operationsByResource)
	.flatMap((byName) => Object.values(byName))
	.filter((operation): operation is SendAndWaitOperation => operation.kind === 'sendAndWait' && operation.webhook !== undefined);

/** The answer link: the waiting operation with a webhook of its own and no other way to tell its waits. */
const answerLinkOperation = waitingOperations.find((operation) => !operation.waitsHere)!;
