/**
 * Options → Limit Wait Time → Amount as the editor offers it for an operation that waits: the smallest
 * value its number field lets a user enter (n8n's input stops at `minValue`), read from the node's description.
 */
import type { INodeProperties } from 'n8n-workflow';

import { BusinessMessaging } from '../../nodes/BusinessMessaging/BusinessMessaging.node';

export function smallestAmountOffered(operation: string): number {
	const options = new BusinessMessaging().description.properties.find(
		(p) => p.name === 'options' && (p.displayOptions?.show?.operation ?? []).includes(operation),
	);
	const limit = (options?.options as INodeProperties[] | undefined)?.find((o) => o.name === 'limitWaitTime');
	const values = (limit?.options as Array<{ values: INodeProperties[] }> | undefined)?.[0]?.values ?? [];
	const amount = values.find((v) => v.name === 'resumeAmount');
	if (!amount) throw new Error(`${operation}: no Options → Limit Wait Time → Amount`);
	const min = amount.typeOptions?.minValue;
	if (typeof min !== 'number') throw new Error(`${operation}: Amount has no minValue, so the editor offers every number`);
	return min;
}
