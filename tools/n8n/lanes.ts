/**
 * Suites that run several n8n deployments or versions side by side (the fault suite, the version smoke): much
 * of a run is waiting (n8n's start, imports, polling), so two at a time save minutes on two cores.
 */

/** How many runs go side by side: the environment variable `name` (a whole number from 1; 1 for anything else), else `fallback` when unset. */
export function lanesFromEnv(name: string, fallback: number): number {
	return Math.max(1, Number(process.env[name] ?? fallback) || 1);
}

/** Runs `run` on every item, `lanes` at a time: a lane that finishes takes the next item, in the items' order. */
export async function inLanes<T>(items: readonly T[], lanes: number, run: (item: T, index: number) => Promise<void>): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(lanes, items.length) }, async () => {
			while (next < items.length) {
				const index = next++;
				await run(items[index], index);
			}
		}),
	);
}
