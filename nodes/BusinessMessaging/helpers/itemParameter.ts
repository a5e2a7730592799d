import type { IExecuteFunctions } from 'n8n-workflow';

/** Parameter values already read in this node run, by name and item. */
const valuesOfRun = new WeakMap<object, Map<string, unknown>>();

/**
 * A node parameter of one item, read from n8n once per node run. Sending in parallel reads the
 * recipient first to group the items, then again to send; an expression costs a trip into n8n's
 * expression sandbox each time. Failures are not kept: the next read reports them itself.
 */
export function itemParameter(ctx: IExecuteFunctions, name: string, itemIndex: number): unknown {
	let values = valuesOfRun.get(ctx);
	if (values === undefined) {
		values = new Map();
		valuesOfRun.set(ctx, values);
	}
	const key = `${itemIndex}:${name}`;
	if (values.has(key)) return values.get(key);
	const value = ctx.getNodeParameter(name, itemIndex);
	values.set(key, value);
	return value;
}
