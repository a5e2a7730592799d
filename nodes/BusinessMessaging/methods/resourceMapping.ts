import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { RunState } from '../helpers/runState';
import { fitWidth } from '../helpers/editorWidth';
import { placeholderFieldsOf } from '../helpers/templates';

/**
 * At n8n's default panel width a Values label gets 154 px at 12 px, and n8n cuts the rest without a
 * tooltip of the node's own (docs/action-node.md, "Templates"); a little less keeps a margin.
 */
export const LABEL_PX = 150;

/** "Body {{2}} (#1042)": the placeholder, then the template's sample value, its beginning when it would not fit. */
export function placeholderLabel(label: string, sample: string | undefined): string {
	if (sample === undefined) return label;
	return fitWidth(`${label} (${sample})`, sample, (beginning) => `${label} (${beginning})`, LABEL_PX) ?? label;
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
