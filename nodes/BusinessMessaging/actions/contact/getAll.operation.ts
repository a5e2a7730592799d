import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getList } from '../../transport';
import { listFields, listLimit, optionsField } from '../common.descriptions';
import type { Operation } from '../operation';

const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['getAll'] } },
	[...listFields('contacts'), optionsField] as INodeProperties[],
);

async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await getList.call(this, '/contacts', {}, listLimit.call(this, itemIndex), itemIndex);
}

export const operation: Operation = { kind: 'request', description, execute };
