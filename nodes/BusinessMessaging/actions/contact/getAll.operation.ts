import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getList } from '../../transport';
import { listFields, optionsField } from '../common.descriptions';

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['getAll'] } },
	[...listFields('contacts'), optionsField] as INodeProperties[],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
	const max = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
	return await getList.call(this, '/contacts', {}, max, itemIndex);
}
