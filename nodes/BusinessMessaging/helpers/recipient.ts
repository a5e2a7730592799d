import { itemParameter } from './itemParameter';
import type { RunState } from './runState';
import { checkPhone } from './validation';

/**
 * The recipient of an item whose Recipient Phone field is `phone` (Send Text, Send Media, Send and Wait),
 * checked: the send pipeline groups items by it, checks it against Allowed Recipients and sends to it.
 */
export function phoneFieldRecipient(run: RunState, itemIndex: number): string {
	return checkPhone(run.ctx, { label: 'Recipient Phone', itemIndex }, itemParameter(run, 'phone', itemIndex));
}
