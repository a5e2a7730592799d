import type { IDataObject } from 'n8n-workflow';

/**
 * Who waits for what, kept by the trigger that shares this account's events, in its workflow's static data:
 * the one place every n8n process (queue mode too) reaches from a webhook. Two kinds of entry live here, each
 * in a field of its own: runs waiting for a chat reply (waits.ts) and trigger workflows that receive through
 * this trigger (subscriptions.ts). Both follow the rules below.
 *
 * n8n loads static data afresh for every request and saves the whole of it afterwards, last write winning.
 * So a request that loaded before a registration was saved, and saves after it, would drop the registration.
 * Two rules keep it:
 * 1. every request of this trigger writes back what it loaded plus the registrations this process received in
 *    the last PROTECT_MS, unless the loaded copy marks them done;
 * 2. an entry is never removed when it ends: it is marked done (with what ended it), kept DONE_KEEP_MS, so
 *    rule 1 does not bring it back, then removed. n8n saves no static data for a request that starts a run
 *    (acknowledgement.ts), and a request that loaded before a mark was saved can save after it, so a process
 *    puts the done entries it made into every later save of its own, for as long as the kind keeps them.
 * Whoever registers checks after a pause that its registration is in the saved copy (endpoint.ts).
 */

/** How long a process puts a registration it received back into every save: longer than any request takes. */
export const PROTECT_MS = 10 * 60_000;

/** What every entry has; each kind adds its own fields. */
export interface Entry {
	id: string;
	/** When it was done (ms), 0 while live. */
	done: number;
	/** What ended it (the kind says what: the delivery that resumed a wait), '' otherwise. */
	by: string;
}

/** How a kind of entry is kept: its field in the static data, its stored form, and when it goes. */
export interface Kind<E extends Entry> {
	field: string;
	encode(entry: E): unknown[];
	/** The entry from its stored form, or undefined when the form is not one. */
	decode(id: string, stored: unknown[]): E | undefined;
	/** The entry once done (what a done mark changes besides `done` and `by`). */
	ended(entry: E): E;
	/** Whether the entry is gone: past its limit, or done longer than the kind keeps done entries. */
	expired(entry: E, nowMs: number): boolean;
	/** Most entries kept; beyond it the first ones `oldestFirst` orders are dropped. */
	max: number;
	oldestFirst(a: E, b: E): number;
}

/** Every process memory forgetRegistrations clears. */
const memories: Array<Map<string, unknown>> = [];

/** Registrations this process received, per trigger and kind, each with when to stop putting it back. */
const received = processMemory<Map<string, { entry: Entry; keepUntil: number }>>();

/** Entries this process marked done, per trigger and kind, as marked: put back into its saves while kept (rule 2). */
const doneHere = processMemory<Map<string, Entry>>();

/** Forgets what this process received and marked, as a restart does (tests). */
export function forgetRegistrations(): void {
	for (const memory of memories) memory.clear();
}

/** Process memory kept beside the registrations (what this process took in), forgotten with them. */
export function processMemory<T>(): Map<string, T> {
	const memory = new Map<string, T>();
	memories.push(memory as Map<string, unknown>);
	return memory;
}

function mapFor<T>(maps: Map<string, Map<string, T>>, key: string): Map<string, T> {
	let map = maps.get(key);
	if (!map) maps.set(key, (map = new Map()));
	return map;
}

/** The entries of one kind as one request sees them: the loaded copy, what this process received, and the write back. */
export class Registry<E extends Entry> {
	protected readonly entries = new Map<string, E>();
	private changed = false;
	private readonly key: string;

	constructor(
		scope: string,
		private readonly kind: Kind<E>,
		private readonly store: IDataObject,
		protected readonly nowMs: number,
	) {
		this.key = `${scope}#${kind.field}`;
		const raw = store[kind.field];
		if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
			for (const [id, value] of Object.entries(raw)) {
				const entry = Array.isArray(value) ? kind.decode(id, value) : undefined;
				if (entry) this.entries.set(id, entry);
			}
		}
	}

	/** Whether the copy n8n loaded for this request (the saved one) holds the entry. */
	saved(id: string): boolean {
		return this.entries.has(id);
	}

	/** Adds an entry (an id already kept stays as it is) and puts it back into this process's saves (rule 1). */
	register(entry: E): void {
		mapFor(received, this.key).set(entry.id, { entry, keepUntil: this.nowMs + PROTECT_MS });
		if (!this.entries.has(entry.id)) {
			this.entries.set(entry.id, entry);
			this.changed = true;
		}
	}

	/** Ends an entry everywhere (`by` says what ended it). */
	done(id: string, by = ''): void {
		const entry = this.entries.get(id);
		mapFor(received, this.key).delete(id);
		if (!entry || entry.done) return;
		const ended = { ...this.kind.ended(entry), done: this.nowMs, by };
		mapFor(doneHere, this.key).set(id, ended);
		this.entries.set(id, ended);
		this.changed = true;
	}

	/** Every entry that is neither done nor expired, with what this process received. */
	live(): E[] {
		this.mergeReceived();
		return [...this.entries.values()].filter((e) => !e.done && !this.kind.expired(e, this.nowMs));
	}

	/** Every done entry not yet expired (what ended them, e.g. a reply's delivery). */
	ended(): E[] {
		this.mergeReceived();
		return [...this.entries.values()].filter((e) => e.done && !this.kind.expired(e, this.nowMs));
	}

	/** Rule 1 and the pruning: hands n8n what it should save with this request (n8n saves a changed object). */
	writeBack(): void {
		this.mergeReceived();
		for (const [id, entry] of this.entries) {
			if (this.kind.expired(entry, this.nowMs)) {
				this.entries.delete(id);
				this.changed = true;
			}
		}
		if (this.entries.size > this.kind.max) {
			const excess = [...this.entries.values()].sort(this.kind.oldestFirst).slice(0, this.entries.size - this.kind.max);
			for (const entry of excess) this.entries.delete(entry.id);
			this.changed = true;
		}
		if (!this.changed) return;
		const out: IDataObject = {};
		for (const entry of this.entries.values()) out[entry.id] = this.kind.encode(entry);
		this.store[this.kind.field] = out;
		this.changed = false;
	}

	private mergeReceived(): void {
		this.mergeDoneMarks();
		const mine = received.get(this.key);
		if (!mine) return;
		for (const [id, { entry, keepUntil }] of mine) {
			if (this.nowMs > keepUntil) {
				mine.delete(id);
				continue;
			}
			const loaded = this.entries.get(id);
			if (loaded?.done) {
				mine.delete(id);
			} else if (!loaded) {
				this.entries.set(id, { ...(entry as E) });
				this.changed = true;
			}
		}
	}

	/** The entries this process marked done that the loaded copy lacks, or holds live: put back while kept (rule 2). */
	private mergeDoneMarks(): void {
		const marks = doneHere.get(this.key) as Map<string, E> | undefined;
		if (!marks) return;
		for (const [id, ended] of marks) {
			if (this.kind.expired(ended, this.nowMs)) {
				marks.delete(id);
			} else if (!this.entries.get(id)?.done) {
				this.entries.set(id, { ...ended });
				this.changed = true;
			}
		}
	}
}
