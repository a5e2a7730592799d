import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { RunState } from '../helpers/runState';
import { placeholderFieldsOf } from '../helpers/templates';

/**
 * The longest label: at n8n's default panel width a Values label has about 150 px and n8n cuts the rest,
 * with no tooltip of the node's own (docs/action-node.md, "Templates"). So the sample is shortened to fit.
 */
export const LABEL_CHARS = 24;

/** "Body {{2}} (#1042)": the placeholder, then the template's sample value, shortened to fit LABEL_CHARS. */
export function placeholderLabel(label: string, sample: string | undefined): string {
	const room = LABEL_CHARS - label.length - ' ()'.length;
	if (sample === undefined || room < 4) return label;
	return `${label} (${sample.length > room ? `${sample.slice(0, room - 1).trimEnd()}…` : sample})`;
}

/**
 * One field per {{n}} of the chosen template, labelled by component (e.g. "Body {{2}}"), all required.
 * n8n's resource mapper has no per-field hint or placeholder, so the template's sample value goes into
 * the label; the id, which n8n's own messages name, is the label without it.
 */
export async function getTemplatePlaceholders(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const { fields, notice } = await placeholderFieldsOf(new RunState(this));
	return {
		fields: fields.map(({ label, sample }) => ({
			id: label,
			displayName: placeholderLabel(label, sample),
			required: true,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: 'string',
		})),
		emptyFieldsNotice: notice,
	};
}
