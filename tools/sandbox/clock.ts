/**
 * Clocks for webhook retry scheduling. Scheduling time is kept apart from the wall clock that signs
 * requests, so a test can squeeze the seven-hour retry plan into milliseconds while every signature it
 * sends still carries a real Unix time that a real receiver accepts.
 */
import { setTimeout as delay } from 'node:timers/promises';

export interface Clock {
	/** Milliseconds on this clock's own time line. */
	now(): number;
	/** Resolve after `ms` of this clock's time. An aborted signal ends the wait early (by rejecting). */
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Real time. */
export const realClock: Clock = {
	now: () => Date.now(),
	sleep: (ms, signal) => delay(Math.max(0, ms), undefined, { signal }),
};

/** Virtual time running `scale` times faster than real time: a 60 000 ms sleep takes 60 000 / scale real ms. */
export function scaledClock(scale: number): Clock {
	if (!(scale > 0) || !Number.isFinite(scale)) throw new Error(`timeScale must be a positive number, got ${scale}`);
	const start = Date.now();
	return {
		now: () => start + (Date.now() - start) * scale,
		sleep: (ms, signal) => delay(Math.max(0, ms) / scale, undefined, { signal }),
	};
}

interface Timer {
	at: number;
	resolve: () => void;
}

/**
 * Time that moves only when a test says so. `nextSleep()` waits until something is sleeping, then
 * `advance()` or `runNext()` moves time forward and wakes whatever is due.
 */
export class ManualClock implements Clock {
	private t = 0;
	private timers: Timer[] = [];
	private waiters: Array<() => void> = [];

	constructor(start = 0) {
		this.t = start;
	}

	now(): number {
		return this.t;
	}

	sleep(ms: number, signal?: AbortSignal): Promise<void> {
		return new Promise((resolve, reject) => {
			if (signal?.aborted) return reject(signal.reason);
			const timer: Timer = { at: this.t + Math.max(0, ms), resolve };
			signal?.addEventListener('abort', () => {
				this.timers = this.timers.filter((x) => x !== timer);
				reject(signal.reason);
			}, { once: true });
			this.timers.push(timer);
			this.timers.sort((a, b) => a.at - b.at);
			const waiters = this.waiters;
			this.waiters = [];
			for (const w of waiters) w();
		});
	}

	/** How many sleeps are waiting. */
	get pending(): number {
		return this.timers.length;
	}

	/** Resolve with the ms until the earliest sleep ends, once at least one sleep is waiting. */
	async nextSleep(): Promise<number> {
		while (this.timers.length === 0) await new Promise<void>((r) => this.waiters.push(r));
		return this.timers[0].at - this.t;
	}

	/** Move time forward and wake every sleep that is due. */
	advance(ms: number): void {
		this.t += ms;
		const due = this.timers.filter((x) => x.at <= this.t);
		this.timers = this.timers.filter((x) => x.at > this.t);
		for (const x of due) x.resolve();
	}

	/** Wait for the next sleep, jump exactly to its end, wake it; returns how far time moved. */
	async runNext(): Promise<number> {
		const ms = await this.nextSleep();
		this.advance(ms);
		return ms;
	}
}
