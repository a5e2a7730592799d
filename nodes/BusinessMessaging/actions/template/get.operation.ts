import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withPlaceholderCounts } from '../../helpers/templates';
import { checkPositiveInteger } from '../../helpers/validation';
import { apiRequest } from '../../transport';
import { optionsField } from '../common.descriptions';

const properties: INodeProperties[] = [
	{
		displayName: 'Template',
		name: 'templateId',
		type: 'resourceLocator',
		required: true,
		default: { mode: 'list', value: '' },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchTemplates', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 42',
				validation: [
					{
						type: 'regex',
						properties: { regex: '^\\s*[1-9][0-9]*\\s*$', errorMessage: 'Not a template ID (a whole number)' },
					},
				],
			},
		],
	},
	optionsField,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['template'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const templateId = checkPositiveInteger(
		this,
		{ label: 'Template', itemIndex },
		this.getNodeParameter('templateId', itemIndex, '', { extractValue: true }),
	);
	const response = await apiRequest.call(this, 'GET', `/templates/${templateId}`, { itemIndex });
	return withPlaceholderCounts((response.data as IDataObject) ?? response);
}
