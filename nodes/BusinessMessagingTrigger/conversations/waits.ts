import type { IDataObject } from 'n8n-workflow';

import { phoneKey, type WaitRegistration } from '../../shared/conversation';
import { REMEMBER_FOR_SECONDS } from '../deliveryStore';

/**
 * The runs waiting for a chat reply, kept by the trigger that has Resume Waiting Runs on, in its
 * workflow's static data: the one place every n8n process (queue mode too) reaches from a webhook.
 *
 * n8n loads static data afresh for every request and saves the whole of it afterwards, last write
 * winning. So a request that loaded before a registration was saved, and saves after it, would drop
 * the registration. Two rules keep it:
 * 1. every request of this trigger writes back what it loaded plus the registrations this process
 *    received in the last PROTECT_MS, unless the loaded copy marks them done;
 * 2. a wait is never removed by a reply: it is marked done, with the delivery that resumed it (kept as
 *    long as the service may retry that delivery, so rule 1 does not bring it back and a retry of the
 *    reply is known as one), and removed when its limit has passed. n8n saves no static data for a
 *    request that starts a run (acknowledgement.ts), so a process also puts the done marks it made into
 *    every later save of its own, until the saved copy holds them.
 * The asking node checks after a pause that its registration is in the saved copy (endpoint.ts).
 */

/** How long a process puts a registration it received back into every save: longer than any request takes. */
export const PROTECT_MS = 10 * 60_000;
/** How long a done wait is kept: longer than PROTECT_MS, and as long as the service may retry the reply. */
const DONE_KEEP_MS = REMEMBER_FOR_SECONDS * 1000;
/** A wait is dropped this long after its limit (n8n ends the run at the limit, give or take a minute). */
const GRACE_MS = 10 * 60_000;
/** Most waits kept; the oldest questions are dropped first. Each costs about 200 bytes of static data. */
export const MAX_WAITS = 1000;

const FIELD = 'replyWaits';

/**
 * One wait as stored: [customer digits, sender digits or '', resume URL ('' once done), until ms or 0,
 * asked at ms, done at ms or 0, the delivery that resumed it or ''].
 */
type Stored = [string, string, string, number, number, number, string];

/** A registration as kept: its phones as digits (`phoneKey`). */
export interface Wait extends WaitRegistration {
	done: number;
	/** The first 16 hex digits of the delivery key of the reply that resumed it. */
	by: string;
}

function parse(store: IDataObject): Map<string, Wait> {
	const waits = new Map<string, Wait>();
	const raw = store[FIELD];
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return waits;
	for (const [id, value] of Object.entries(raw)) {
		if (!Array.isArray(value) || value.length < 6) continue;
		const [customer, sender, resumeUrl, until, askedAt, done, by] = value as Stored;
		if (typeof customer !== 'string' || typeof resumeUrl !== 'string') continue;
		waits.set(id, { id, customer, sender: String(sender ?? ''), resumeUrl, until: Number(until) || 0, askedAt: Number(askedAt) || 0, done: Number(done) || 0, by: String(by ?? '') });
	}
	return waits;
}

function serialize(waits: Map<string, Wait>): IDataObject {
	const out: IDataObject = {};
	for (const w of waits.values()) out[w.id] = [w.customer, w.sender, w.resumeUrl, w.until, w.askedAt, w.done, w.by];
	return out;
}

function expired(wait: Wait, nowMs: number): boolean {
	if (wait.done) return nowMs - wait.done > DONE_KEEP_MS;
	return wait.until > 0 && nowMs > wait.until + GRACE_MS;
}

/** Registrations this process received, per trigger (`workflowId/nodeId`), each with when to stop putting it back. */
const received = new Map<string, Map<string, { wait: Wait; keepUntil: number }>>();

/** Done marks this process made, per trigger, kept until a saved copy holds them (rule 2). */
const doneHere = new Map<string, Map<string, { done: number; by: string }>>();

/** Forgets what this process received and marked, as a restart does (tests). */
export function forgetReceivedWaits(): void {
	received.clear();
	doneHere.clear();
}

function doneBy(scope: string) {
	let marks = doneHere.get(scope);
	if (!marks) doneHere.set(scope, (marks = new Map()));
	return marks;
}

function receivedBy(scope: string) {
	let waits = received.get(scope);
	if (!waits) received.set(scope, (waits = new Map()));
	return waits;
}

/** The waits of one request: the loaded copy, what this process received, and the write back. */
export class Waits {
	private readonly waits: Map<string, Wait>;
	private changed = false;

	constructor(
		private readonly scope: string,
		private readonly store: IDataObject,
		private readonly nowMs: number,
	) {
		this.waits = parse(store);
		this.savedDone = new Set([...this.waits.values()].filter((w) => w.done).map((w) => w.id));
	}

	/** The waits the loaded (saved) copy marks done. */
	private readonly savedDone: Set<string>;

	/** Whether the copy n8n loaded for this request (the saved one) holds the wait. */
	saved(id: string): boolean {
		return this.waits.has(id);
	}

	register(registration: WaitRegistration): void {
		const wait: Wait = {
			id: registration.id,
			customer: phoneKey(registration.customer),
			sender: phoneKey(registration.sender),
			resumeUrl: registration.resumeUrl,
			until: registration.until,
			askedAt: registration.askedAt,
			done: 0,
			by: '',
		};
		receivedBy(this.scope).set(wait.id, { wait, keepUntil: this.nowMs + PROTECT_MS });
		if (!this.waits.has(wait.id)) {
			this.waits.set(wait.id, wait);
			this.changed = true;
		}
	}

	/** Live waits for a reply from `from` to `to`, the newest question first. */
	for(from: string, to: string): Wait[] {
		this.mergeReceived();
		const customer = phoneKey(from);
		const sender = phoneKey(to);
		return [...this.waits.values()]
			.filter((w) => !w.done && !expired(w, this.nowMs) && w.customer === customer && (w.sender === '' || w.sender === sender))
			.sort((a, b) => b.askedAt - a.askedAt);
	}

	/** The run took the reply (`by` names the delivery), or no longer waits: the wait is done everywhere. */
	done(id: string, by = ''): void {
		const wait = this.waits.get(id);
		receivedBy(this.scope).delete(id);
		if (wait && !wait.done) doneBy(this.scope).set(id, { done: this.nowMs, by });
		if (wait && !wait.done) {
			Object.assign(wait, { done: this.nowMs, by, resumeUrl: '' });
			this.changed = true;
		}
	}

	/** Whether this delivery (`by`) already resumed a run: the service's retry of a reply n8n took. */
	resumedBy(by: string): boolean {
		this.mergeReceived();
		return [...this.waits.values()].some((w) => w.done && w.by === by && !expired(w, this.nowMs));
	}

	/** Rule 1 and the pruning: hands n8n what it should save with this request (n8n saves a changed object). */
	writeBack(): void {
		this.mergeReceived();
		for (const [id, wait] of this.waits) {
			if (expired(wait, this.nowMs)) {
				this.waits.delete(id);
				this.changed = true;
			}
		}
		if (this.waits.size > MAX_WAITS) {
			const oldest = [...this.waits.values()].sort((a, b) => a.askedAt - b.askedAt).slice(0, this.waits.size - MAX_WAITS);
			for (const wait of oldest) this.waits.delete(wait.id);
			this.changed = true;
		}
		if (this.changed) this.store[FIELD] = serialize(this.waits);
		this.changed = false;
	}

	private mergeReceived(): void {
		this.mergeDoneMarks();
		const mine = received.get(this.scope);
		if (!mine) return;
		for (const [id, { wait, keepUntil }] of mine) {
			if (this.nowMs > keepUntil) {
				mine.delete(id);
				continue;
			}
			const loaded = this.waits.get(id);
			if (loaded?.done) {
				mine.delete(id);
			} else if (!loaded) {
				this.waits.set(id, { ...wait });
				this.changed = true;
			}
		}
	}

	/** The done marks this process made and the loaded copy lacks: put back, until a saved copy has them. */
	private mergeDoneMarks(): void {
		const marks = doneHere.get(this.scope);
		if (!marks) return;
		for (const [id, mark] of marks) {
			const loaded = this.waits.get(id);
			if (!loaded || this.savedDone.has(id) || this.nowMs - mark.done > DONE_KEEP_MS) {
				marks.delete(id);
			} else if (!loaded.done) {
				Object.assign(loaded, { done: mark.done, by: mark.by, resumeUrl: '' });
				this.changed = true;
			}
		}
	}
}
