import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { placeholderFieldsOf } from '../helpers/templates';

/** One field per {{n}} of the chosen template, labelled by component (e.g. "Body {{2}}"), all required. */
export async function getTemplatePlaceholders(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const { fields, notice } = await placeholderFieldsOf.call(this);
	return {
		fields: fields.map(({ key, label }) => ({
			id: key,
			displayName: label,
			required: true,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: 'string',
		})),
		emptyFieldsNotice: notice,
	};
}
