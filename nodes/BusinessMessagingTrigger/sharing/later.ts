import { type Logger, sleep } from 'n8n-workflow';

import { processMemory } from './registry';

/**
 * Work this process does at a time of its own, after the request that asked for it ended (a status wait's limit,
 * the follow-up counts of a burst): one loop per process runs each piece when due. Nothing awaits the work, so
 * what it throws is logged here (a rejection nobody catches would end n8n). Kept in memory only: a restart
 * forgets it (tests: forgetRegistrations).
 */
export interface Later {
	/** When (ms since the epoch). */
	at: number;
	run: () => Promise<void>;
	logger: Logger;
	/** What it does, for the warning when it fails: "could not <what> (<error>)". */
	what: string;
}

/** The loop sleeps at most this long, so work due sooner than the next wake-up is late by at most this. */
const LONGEST_SLEEP_MS = 1000;

const pending = processMemory<Later>();
let looping = false;

/** Runs `work` at `work.at`, in place of what `key` was to run. */
export function doLater(key: string, work: Later): void {
	pending.set(key, work);
	if (!looping) void loop();
}

export function isPending(key: string): boolean {
	return pending.has(key);
}

/** One loop per process, while work is pending: it ends with the last one. */
async function loop(): Promise<void> {
	looping = true;
	try {
		while (pending.size > 0) {
			const now = Date.now();
			for (const [key, work] of pending) {
				if (work.at > now) continue;
				pending.delete(key);
				void work.run().catch((error: unknown) => {
					work.logger.warn(`Business Messaging Trigger: could not ${work.what} (${(error as Error).message})`);
				});
			}
			if (pending.size === 0) break;
			const next = Math.min(...Array.from(pending.values(), (work) => work.at));
			await sleep(Math.min(LONGEST_SLEEP_MS, Math.max(0, next - Date.now())));
		}
	} finally {
		looping = false;
	}
}
