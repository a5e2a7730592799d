import { itemParameter } from './itemParameter';
import type { RunState } from './runState';
import { normalizePhone } from './validation';

/** The recipient of an item of Send Text or Send Media, as parallel sending groups items by it. */
export function recipientOf(run: RunState, itemIndex: number): string {
	return normalizePhone(itemParameter(run, 'phone', itemIndex));
}
