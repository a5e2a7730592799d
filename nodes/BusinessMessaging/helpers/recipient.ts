import type { IExecuteFunctions } from 'n8n-workflow';

import { itemParameter } from './itemParameter';
import { normalizePhone } from './validation';

/** The recipient of an item of Send Text or Send Media, as parallel sending groups items by it. */
export function recipientOf(this: IExecuteFunctions, itemIndex: number): string {
	return normalizePhone(itemParameter(this, 'phone', itemIndex));
}
