/**
 * Whether a Values field's label shows its placeholder and the template's sample value as the editor has
 * room for (nodes/BusinessMessaging/methods/resourceMapping.ts): "Body {{1}} (ORD-0042)", or the sample's
 * beginning and "…" when the whole would not fit; never wider than LABEL_PX. The browser suite measures the
 * real width (test/ui/issue33.ts).
 */
import { drawnWidth } from '../../nodes/BusinessMessaging/helpers/editorWidth';
import { LABEL_PX } from '../../nodes/BusinessMessaging/methods/resourceMapping';

export function labelProblem(displayName: string, id: string, sample: string | undefined): string | undefined {
	if (drawnWidth(displayName) > LABEL_PX) return `"${displayName}" is wider than ${LABEL_PX} px`;
	if (sample === undefined) return displayName === id ? undefined : `"${displayName}" is not "${id}"`;
	const shown = displayName.startsWith(`${id} (`) && displayName.endsWith(')') ? displayName.slice(id.length + 2, -1) : undefined;
	if (shown === undefined) return `"${displayName}" is not "${id} (<sample>)"`;
	if (shown === sample) return undefined;
	if (shown.endsWith('…') && shown.length >= 4 && sample.startsWith(shown.slice(0, -1))) return undefined;
	return `"${displayName}" does not show the sample "${sample}"`;
}
