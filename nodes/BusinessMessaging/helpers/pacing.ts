import { sleep } from 'n8n-workflow';

/**
 * Option Max Messages per Second: the requests of one node run pass one gate, one at a time, each at
 * least 1/rate seconds after the one before really passed it. The gap is measured from when the last
 * request went, not from a planned schedule: after n8n, the network or the service stalled, missed
 * turns are dropped, never caught up in a burst, so no second holds more than the rate (plus the one
 * request that was already on its way when the stall began).
 */
export interface Gate {
	/** When the last request passed the gate (ms). */
	lastPass: number;
	/** The tail of the queue of waiting requests. */
	queue: Promise<void>;
}

/** A gate nobody has passed yet: one per node run (helpers/runState.ts). */
export function newGate(): Gate {
	return { lastPass: -Infinity, queue: Promise.resolve() };
}

/** Waits for the next turn at the run's gate; `perSecond` 0 or less means no limit. */
export async function waitForSlot(gate: Gate, perSecond: number): Promise<void> {
	if (!(perSecond > 0)) return;
	const interval = 1000 / perSecond;
	const current = gate;
	const turn = current.queue.then(async () => {
		// Asked again after every sleep: a timer that fired late (a blocked event loop) must not count as on time.
		for (;;) {
			const wait = current.lastPass + interval - Date.now();
			if (wait <= 0) break;
			await sleep(wait);
		}
		current.lastPass = Date.now();
	});
	current.queue = turn;
	await turn;
}
