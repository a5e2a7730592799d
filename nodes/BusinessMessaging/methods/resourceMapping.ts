import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { RunState } from '../helpers/runState';
import { placeholderFieldsOf } from '../helpers/templates';

/** The longest sample shown in a field's label. */
const SAMPLE_CHARS = 30;

/**
 * One field per {{n}} of the chosen template, labelled by component (e.g. "Body {{2}}"), all required.
 * n8n's resource mapper has no per-field hint or placeholder, so the template's sample value goes into
 * the label ("Body {{2}} (e.g. #1042)"); the id, which n8n's own messages name, is the label without it.
 */
export async function getTemplatePlaceholders(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const { fields, notice } = await placeholderFieldsOf(new RunState(this));
	return {
		fields: fields.map(({ label, sample }) => ({
			id: label,
			displayName: sample === undefined ? label : `${label} (e.g. ${sample.length > SAMPLE_CHARS ? `${sample.slice(0, SAMPLE_CHARS - 1)}…` : sample})`,
			required: true,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: 'string',
		})),
		emptyFieldsNotice: notice,
	};
}
