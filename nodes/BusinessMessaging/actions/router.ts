import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import * as contact from './contact';
import * as message from './message';
import * as order from './order';
import * as template from './template';
import * as webhook from './webhook';

type Operation = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject | IDataObject[]>;

const resources: Record<string, Record<string, unknown>> = { contact, message, order, template, webhook };

/** The one item loop: dispatch each item to its operation, keep pairedItem, honour Continue On Fail. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const run = (resources[resource]?.[operation] as { execute?: Operation } | undefined)?.execute;
	if (!run) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
	}
	const results: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const output = await run.call(this, itemIndex);
			results.push(
				...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(output), {
					itemData: { item: itemIndex },
				}),
			);
		} catch (error) {
			if (!this.continueOnFail()) {
				// Both constructors hand back an error that already is of their kind.
				if (error instanceof NodeApiError) throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
				throw new NodeOperationError(this.getNode(), error, { itemIndex });
			}
			const json: IDataObject = { error: error.message };
			if (error.description) json.description = error.description;
			if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
			results.push({ json, pairedItem: { item: itemIndex } });
		}
	}
	return [results];
}
