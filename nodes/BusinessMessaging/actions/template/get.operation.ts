import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getTemplate, withPlaceholderCounts } from '../../helpers/templates';
import { filledByModel } from '../../helpers/agentLimits';
import { optionsField, templateField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Operation } from '../operation';

const properties: INodeProperties[] = [
	...filledByModel(templateField, 'The template’s ID, a whole number (Get Many Templates lists them)'),
	optionsField,
];

const description = updateDisplayOptions(
	{ show: { resource: ['template'], operation: ['get'] } },
	properties,
);

async function execute(run: RunState, itemIndex: number): Promise<IDataObject> {
	return withPlaceholderCounts(await getTemplate(run, itemIndex));
}

export const operation: Operation = { kind: 'request', description, execute };
