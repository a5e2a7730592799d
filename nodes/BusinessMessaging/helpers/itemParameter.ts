import type { RunState } from './runState';

/**
 * A node parameter of one item, read from n8n once per node run. Sending in parallel reads the
 * recipient first to group the items, then again to send; an expression costs a trip into n8n's
 * expression sandbox each time. Failures are not kept: the next read reports them itself.
 */
export function itemParameter(run: RunState, name: string, itemIndex: number): unknown {
	const key = `${itemIndex}:${name}`;
	if (run.itemValues.has(key)) return run.itemValues.get(key);
	const value = run.ctx.getNodeParameter(name, itemIndex);
	run.itemValues.set(key, value);
	return value;
}
