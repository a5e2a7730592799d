/** Parallel sending (option Parallel Requests): items of different recipients at once, each recipient's in order. */

/**
 * Sends at once by default: a real service answers in tens of milliseconds, and n8n's HTTP Request
 * node sends all items at once. Per-recipient order and the shared 429 back-off keep it safe.
 */
export const DEFAULT_PARALLEL_REQUESTS = 50;
export const MAX_PARALLEL_REQUESTS = 200;

/** Item indexes grouped by key, groups and items in first-seen order. */
export function groupBy(count: number, keyOf: (itemIndex: number) => string): number[][] {
	const groups = new Map<string, number[]>();
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		let key: string;
		try {
			key = keyOf(itemIndex);
		} catch {
			key = `#item-${itemIndex}`; // Its own run will report the error.
		}
		const group = groups.get(key) ?? [];
		group.push(itemIndex);
		groups.set(key, group);
	}
	return [...groups.values()];
}

/** Runs groups on `parallel` workers; a group's items run one after another. Stops at the first error and returns it. */
export async function runInParallel(
	groups: number[][],
	parallel: number,
	runItem: (itemIndex: number) => Promise<void>,
): Promise<Error | undefined> {
	let next = 0;
	let firstError: Error | undefined;
	const worker = async () => {
		while (!firstError && next < groups.length) {
			for (const itemIndex of groups[next++]) {
				if (firstError) return;
				await runItem(itemIndex).catch((error: Error) => {
					firstError ??= error;
				});
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(parallel, groups.length) }, worker));
	return firstError;
}
