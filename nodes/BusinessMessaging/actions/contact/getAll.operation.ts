import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getList, listLimit } from '../../transport';
import { listFields, optionsField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Operation } from '../operation';

const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['getAll'] } },
	[...listFields('contacts'), optionsField] as INodeProperties[],
);

async function execute(run: RunState, itemIndex: number): Promise<IDataObject[]> {
	return await getList(run, '/contacts', {}, listLimit(run, itemIndex), itemIndex);
}

export const operation: Operation = { kind: 'request', description, execute };
