import { sleep } from 'n8n-workflow';

/** Parallel sending (option Parallel Requests): items of different recipients at once, each recipient's in order. */

/**
 * Sends at once by default: a real service answers in tens of milliseconds, and n8n's HTTP Request
 * node sends all items at once. Per-recipient order and the shared 429 back-off keep it safe.
 */
export const DEFAULT_PARALLEL_REQUESTS = 50;
export const MAX_PARALLEL_REQUESTS = 200;

/** How long one step of reading ahead may hold n8n's thread before answers waiting there get their turn. */
const READ_AHEAD_STEP_MS = 2;

/**
 * Runs items on up to `parallel` lanes: a lane takes a recipient and sends its items one after another,
 * in item order, then takes the next recipient. Recipients are read as the lanes need them, so the first
 * messages leave at once instead of after every item's recipient was read (reading one means evaluating
 * its expression in n8n). While the lanes wait for the service, the rest is read ahead and `prepare`d
 * (the send pipeline evaluates each item's message then) in short steps. Stops starting items at the
 * first error and returns it.
 */
export async function runByRecipient(
	count: number,
	parallel: number,
	keyOf: (itemIndex: number) => string,
	runItem: (itemIndex: number) => Promise<void>,
	prepare: (itemIndex: number) => Promise<void> = async () => undefined,
): Promise<Error | undefined> {
	/** Items read but not started, by recipient; a recipient is here only while it has a lane or waits for one. */
	const pending = new Map<string, number[]>();
	/** Recipients with items and no lane, in the order their first item was read. */
	const waiting: string[] = [];
	let read = 0;
	let firstError: Error | undefined;
	const readNext = () => {
		const itemIndex = read++;
		let key: string;
		try {
			key = keyOf(itemIndex);
		} catch {
			key = `#item-${itemIndex}`; // Its own run reports the error.
		}
		const queue = pending.get(key);
		if (queue) queue.push(itemIndex);
		else {
			pending.set(key, [itemIndex]);
			waiting.push(key);
		}
		return itemIndex;
	};
	const lane = async () => {
		for (;;) {
			while (waiting.length === 0 && read < count) readNext();
			const key = waiting.shift();
			if (key === undefined || firstError) return;
			const queue = pending.get(key)!;
			// Items of this recipient read while it is sent to join its queue, so they follow in order.
			for (let itemIndex = queue.shift(); itemIndex !== undefined && !firstError; itemIndex = queue.shift()) {
				await runItem(itemIndex).catch((error: Error) => {
					firstError ??= error;
				});
			}
			pending.delete(key);
		}
	};
	const readAhead = async () => {
		while (read < count && !firstError) {
			await sleep(0);
			const stepStart = Date.now();
			// One item at a time, so reading ahead holds at most one item's work (a file being hashed) at once.
			while (read < count && Date.now() - stepStart < READ_AHEAD_STEP_MS) await prepare(readNext());
		}
	};
	const lanes = Array.from({ length: Math.max(1, Math.min(parallel, count)) }, lane);
	await Promise.all([...lanes, readAhead()]);
	return firstError;
}
