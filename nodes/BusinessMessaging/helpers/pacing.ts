import { sleep } from 'n8n-workflow';

/**
 * Option Max Messages per Second: the requests of one node run take turns on one schedule, so a long
 * list goes out steadily however many are sent at once. Slots are counted from the schedule, not from
 * when a request finished, so waiting does not drift.
 */
const nextSlotOfRun = new WeakMap<object, number>();

/** Waits for the run's next free slot; `perSecond` 0 or less means no limit. */
export async function waitForSlot(run: object, perSecond: number): Promise<void> {
	if (!(perSecond > 0)) return;
	const start = Date.now();
	const slot = Math.max(start, nextSlotOfRun.get(run) ?? 0);
	nextSlotOfRun.set(run, slot + 1000 / perSecond);
	if (slot > start) await sleep(slot - start);
}
