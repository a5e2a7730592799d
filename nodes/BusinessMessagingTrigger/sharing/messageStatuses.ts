import type { IDataObject } from 'n8n-workflow';

import { MESSAGE_STATUSES, type MessageStatusSummary, statusRank } from '../../shared/sharing';
import { processMemory, PROTECT_MS } from './registry';

/**
 * The statuses the sharing trigger took in for messages a run waits for (statusWaits.ts), in its workflow's
 * static data: per message the furthest status and the first time of `delivered` and of `read`. Taking a
 * status in is a merge that order and repeats do not change (the furthest status, each status's earliest
 * time), so a status out of order or twice counts once, and any two copies merge into the same tally.
 *
 * n8n saves the whole static data after a request the trigger answers itself, last write winning, and nothing
 * after one that starts a run (a status kept for a watch still to come does that). So, as registry.ts's rule 1
 * for registrations, every request of this trigger writes back what it loaded merged with the statuses this
 * process took in during the last PROTECT_MS.
 */

/** A message's tally as stored: [furthest status's rank, delivered at ms or 0, read at ms or 0, last taken in at ms]. */
type Tally = [number, number, number, number];

/** How long a status is kept for a watch still to come (a fast service reports before the node names its messages). */
export const KEEP_UNWATCHED_MS = 10 * 60_000;
/** Most messages kept; those no watch has, then the oldest, dropped first. About 60 bytes each. */
export const MAX_MESSAGE_STATUSES = 5000;

const FIELD = 'messageStatuses';

/** Statuses this process took in, per trigger, each with when to stop putting it back. */
const takenHere = processMemory<Map<string, { tally: Tally; keepUntil: number }>>();

const earliest = (a: number, b: number) => (a && b ? Math.min(a, b) : a || b);

function merged(a: Tally | undefined, b: Tally): Tally {
	if (!a) return [...b];
	return [Math.max(a[0], b[0]), earliest(a[1], b[1]), earliest(a[2], b[2]), Math.max(a[3], b[3])];
}

/** Takes counts as `known` gives them into `into`, merged as the trigger merges them (for one request that carries several). */
export function mergeCounts(into: Record<string, number[]>, counts: Record<string, number[]>): void {
	for (const [id, value] of Object.entries(counts)) {
		const tally = tallyOf(value);
		if (tally) into[id] = merged(tallyOf(into[id]), tally);
	}
}

function tallyOf(value: unknown): Tally | undefined {
	if (!Array.isArray(value) || value.length !== 4 || !value.every((n) => typeof n === 'number')) return undefined;
	return value as Tally;
}

const iso = (ms: number) => (ms ? new Date(ms).toISOString() : null);

export class MessageStatuses {
	private readonly tallies = new Map<string, Tally>();
	/** The tallies as loaded from the saved copy, before this process put back what it took in. */
	private readonly loaded = new Map<string, Tally>();
	private readonly mine: Map<string, { tally: Tally; keepUntil: number }>;

	constructor(
		scope: string,
		private readonly store: IDataObject,
		private readonly nowMs: number,
	) {
		const raw = store[FIELD];
		if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
			for (const [id, value] of Object.entries(raw)) {
				const tally = tallyOf(value);
				if (tally) this.tallies.set(id, tally);
				if (tally) this.loaded.set(id, tally);
			}
		}
		let mine = takenHere.get(scope);
		if (!mine) takenHere.set(scope, (mine = new Map()));
		this.mine = mine;
		this.mergeMine();
	}

	/** What this process took in (other requests too, since this one loaded): put back into this request's tallies. */
	private mergeMine(): void {
		for (const [id, { tally, keepUntil }] of this.mine) {
			if (this.nowMs > keepUntil) this.mine.delete(id);
			else this.tallies.set(id, merged(this.tallies.get(id), tally));
		}
	}

	/** Takes a status in (`at`: the service's time of it, ms). Not a status of the service's: nothing. */
	take(messageId: string, status: unknown, at: number): void {
		const rank = statusRank(status);
		if (rank === 0) return;
		this.merge(messageId, [rank, status === 'delivered' ? at : 0, status === 'read' ? at : 0, this.nowMs]);
	}

	/** The stored tallies of these messages (those known), as another request takes them in (`merge`). */
	known(messageIds: string[]): Record<string, number[]> {
		return Object.fromEntries(messageIds.flatMap((id) => (this.tallies.has(id) ? [[id, [...this.tallies.get(id)!]]] : [])));
	}

	/** Takes in a tally as `known` gives it (another request's count); not one: nothing. */
	merge(messageId: string, value: unknown): void {
		const tally = tallyOf(value);
		if (!tally || statusRank(MESSAGE_STATUSES[tally[0] - 1]) === 0) return;
		this.tallies.set(messageId, merged(this.tallies.get(messageId), tally));
		const kept = this.mine.get(messageId);
		this.mine.set(messageId, { tally: merged(kept?.tally, tally), keepUntil: this.nowMs + PROTECT_MS });
	}

	/** Whether the saved copy held a tally as `known` gives it (nothing to add to it) when this request loaded it. */
	wasSaved(messageId: string, value: unknown): boolean {
		const tally = tallyOf(value);
		const saved = this.loaded.get(messageId);
		return tally !== undefined && saved !== undefined && JSON.stringify(merged(saved, tally)) === JSON.stringify(saved);
	}

	/** The furthest status taken in for the message, as statusRank gives it (0: none). */
	rank(messageId: string): number {
		return this.tallies.get(messageId)?.[0] ?? 0;
	}

	summary(messageId: string): MessageStatusSummary {
		const tally = this.tallies.get(messageId);
		return { status: tally ? MESSAGE_STATUSES[tally[0] - 1] : null, deliveredAt: iso(tally?.[1] ?? 0), readAt: iso(tally?.[2] ?? 0) };
	}

	/**
	 * Hands n8n what to save: the statuses of messages a watch has (`watched`), and those taken in the last
	 * KEEP_UNWATCHED_MS while a watch may still come for them (`waiting`: a wait has no watch yet); at most
	 * MAX_MESSAGE_STATUSES.
	 */
	writeBack(watched: Set<string>, waiting: boolean): void {
		// A request can take seconds (a hand-over): statuses other requests of this process took in meanwhile go too.
		this.mergeMine();
		const kept = [...this.tallies.entries()].filter(([id, t]) => watched.has(id) || (waiting && this.nowMs - t[3] <= KEEP_UNWATCHED_MS));
		kept.sort(([a, x], [b, y]) => Number(watched.has(b)) - Number(watched.has(a)) || y[3] - x[3]);
		const out: IDataObject = {};
		for (const [id, tally] of kept.slice(0, MAX_MESSAGE_STATUSES)) out[id] = tally;
		// What this process took in stays in its memory until PROTECT_MS passed, also when this request leaves it out:
		// a request that does not know the watch yet (registered at another process) must not make the process forget it.
		// n8n saves a changed object only: a trigger whose runs wait for no status keeps its static data as it was.
		if (JSON.stringify(out) !== JSON.stringify(this.store[FIELD] ?? {})) this.store[FIELD] = out;
	}
}
