import type { IDataObject } from 'n8n-workflow';

import { MESSAGE_STATUSES, type MessageStatus, type MessageStatusSummary, type StatusWaitRegistration, type StatusWatchRegistration, statusRank } from '../../shared/sharing';
import { MessageStatuses } from './messageStatuses';
import { type Entry, type Kind, PROTECT_MS, Registry } from './registry';

/**
 * The runs waiting for the statuses of the messages they sent (a send's Wait for Status), kept under the rules
 * of registry.ts in two kinds: the wait, registered before the send (so statuses that come before the node
 * names its messages are kept: messageStatuses.ts), and its watch, the `message_id`s of the items sent,
 * registered after it. Both are registrations that never change once made, as registry.ts needs: the statuses
 * themselves are counted in messageStatuses.ts. A wait and its watch are done once the run was resumed (or no
 * longer waits).
 */

/** Done entries are kept a while past PROTECT_MS, so no save brings them back. */
const DONE_KEEP_MS = 2 * PROTECT_MS;
/** A wait is dropped this long after its limit (n8n ends the run at the limit, give or take a minute). */
const GRACE_MS = 10 * 60_000;
/** Most waits (and watches) kept; the oldest dropped first. */
const MAX_STATUS_WAITS = 1000;

export interface StatusWait extends StatusWaitRegistration, Entry {}

/** As stored: [resume URL ('' once done), until ms, wanted status, registered at ms, done at ms or 0, what ended it]. */
const STATUS_WAIT: Kind<StatusWait> = {
	field: 'statusWaits',
	encode: (w) => [w.resumeUrl, w.until, w.wanted, w.askedAt, w.done, w.by],
	decode(id, [resumeUrl, until, wanted, askedAt, done, by]) {
		if (typeof resumeUrl !== 'string' || !MESSAGE_STATUSES.includes(wanted as MessageStatus)) return undefined;
		return { id, resumeUrl, until: Number(until) || 0, wanted: wanted as MessageStatus, askedAt: Number(askedAt) || 0, done: Number(done) || 0, by: String(by ?? '') };
	},
	ended: (w) => ({ ...w, resumeUrl: '' }),
	expired: (w, nowMs) => (w.done ? nowMs - w.done > DONE_KEEP_MS : nowMs > w.until + GRACE_MS),
	max: MAX_STATUS_WAITS,
	oldestFirst: (a, b) => a.askedAt - b.askedAt,
};

export class StatusWaits extends Registry<StatusWait> {
	constructor(scope: string, store: IDataObject, nowMs: number) {
		super(scope, STATUS_WAIT, store, nowMs);
	}

	override register(registration: StatusWaitRegistration): void {
		super.register({ ...registration, done: 0, by: '' });
	}

	get(id: string): StatusWait | undefined {
		return this.live().find((w) => w.id === id);
	}
}

export interface StatusWatch extends StatusWatchRegistration, Entry {
	/** The wait's limit (ms), so the watch goes with it. */
	until: number;
	/** When the trigger took it (ms): a run that does not wait yet so soon after is about to. */
	registeredAt: number;
}

/** As stored: [wait id, message ids (space-separated), until ms, registered at ms, done at ms or 0, what ended it]. */
const STATUS_WATCH: Kind<StatusWatch> = {
	field: 'statusWatches',
	encode: (w) => [w.wait, w.messages.join(' '), w.until, w.registeredAt, w.done, w.by],
	decode(id, [wait, messages, until, registeredAt, done, by]) {
		if (typeof wait !== 'string' || typeof messages !== 'string') return undefined;
		return { id, wait, messages: messages.split(' ').filter(Boolean), until: Number(until) || 0, registeredAt: Number(registeredAt) || 0, done: Number(done) || 0, by: String(by ?? '') };
	},
	ended: (w) => w,
	expired: (w, nowMs) => (w.done ? nowMs - w.done > DONE_KEEP_MS : nowMs > w.until + GRACE_MS),
	max: MAX_STATUS_WAITS,
	oldestFirst: (a, b) => a.registeredAt - b.registeredAt,
};

export class StatusWatches extends Registry<StatusWatch> {
	constructor(scope: string, store: IDataObject, nowMs: number) {
		super(scope, STATUS_WATCH, store, nowMs);
	}

	/** Keeps the messages of a wait, with the wait's limit. */
	watch(registration: StatusWatchRegistration, wait: StatusWait): void {
		super.register({ ...registration, until: wait.until, registeredAt: this.nowMs, done: 0, by: '' });
	}

	get(id: string): StatusWatch | undefined {
		return this.live().find((w) => w.id === id);
	}

	/** The live watch of a wait. */
	of(waitId: string): StatusWatch | undefined {
		return this.live().find((w) => w.wait === waitId);
	}

	/** The live watch that has this message. */
	watching(messageId: string): StatusWatch | undefined {
		return this.live().find((w) => w.messages.includes(messageId));
	}

	/** Every message a watch has, live or ended while its end is kept (a late status of it is then known: wentOnWithout). */
	watched(): Set<string> {
		return new Set([...this.live(), ...this.ended()].flatMap((w) => w.messages));
	}
}

/** What each watched message reached so far. */
export function summaryOf(watch: StatusWatch, statuses: MessageStatuses): Record<string, MessageStatusSummary> {
	return Object.fromEntries(watch.messages.map((id) => [id, statuses.summary(id)]));
}

/** Whether every message reached the wanted status (`read` satisfies `delivered`). */
export function reachedAll(wanted: MessageStatus, summary: Record<string, MessageStatusSummary>): boolean {
	return Object.values(summary).every((s) => statusRank(s.status) >= statusRank(wanted));
}

/** What ends a wait whose run had every status it waited for: the trigger resumed it, or the node found them all when it named its messages. */
export const RESUMED = 'resumed';
export const COMPLETE_WHEN_WATCHED = 'complete when watched';
/** What ends a wait whose run the trigger handed, at Limit Wait Time, what it had counted (statusLimit.ts). */
export const AT_LIMIT = 'limit';
const WENT_ON = [RESUMED, COMPLETE_WHEN_WATCHED];

/** The waits, their watches and the statuses taken in, as one request of the sharing trigger sees them. */
export class StatusBook {
	readonly waits: StatusWaits;
	readonly watches: StatusWatches;
	readonly statuses: MessageStatuses;

	constructor(scope: string, store: IDataObject, nowMs: number) {
		this.waits = new StatusWaits(scope, store, nowMs);
		this.watches = new StatusWatches(scope, store, nowMs);
		this.statuses = new MessageStatuses(scope, store, nowMs);
	}

	/** Whether a wait has no watch yet: its messages are being sent, and their statuses may come first. */
	awaitingWatch(): boolean {
		return this.waits.live().some((w) => !this.watches.of(w.id));
	}

	/**
	 * Whether a wait that had this message went on without this status (while its end is kept): its run had every
	 * status it waited for, and this one (`rank`: statusRank, 0 for one the trigger does not count) is no further
	 * than what was counted or waited for (a retry, or a `delivered` after the `read`).
	 */
	wentOnWithout(messageId: string, rank: number): boolean {
		if (rank === 0) return false;
		const ended = new Map(this.waits.ended().map((w) => [w.id, w]));
		return this.watches.ended().some((watch) => {
			const wait = ended.get(watch.wait);
			return WENT_ON.includes(watch.by) && watch.messages.includes(messageId) && wait !== undefined && rank <= Math.max(statusRank(wait.wanted), this.statuses.rank(messageId));
		});
	}

	/** The summary of a watch's messages, and whether it is complete. */
	tally(watch: StatusWatch, wait: StatusWait): { complete: boolean; statuses: Record<string, MessageStatusSummary> } {
		const statuses = summaryOf(watch, this.statuses);
		return { complete: reachedAll(wait.wanted, statuses), statuses };
	}

	/** Ends a wait and its watch (`by`: what ended it). */
	end(wait: StatusWait, watch: StatusWatch, by: string): void {
		this.waits.done(wait.id, by);
		this.watches.done(watch.id, by);
	}

	writeBack(): void {
		const awaiting = this.awaitingWatch();
		this.waits.writeBack();
		this.watches.writeBack();
		this.statuses.writeBack(this.watches.watched(), awaiting);
	}
}
