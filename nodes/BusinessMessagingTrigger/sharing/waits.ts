import type { IDataObject } from 'n8n-workflow';

import { phoneKey, type WaitRegistration } from '../../shared/sharing';
import { REMEMBER_FOR_SECONDS } from '../deliveryStore';
import { type Entry, type Kind, Registry } from './registry';

/**
 * The runs waiting for a chat reply (Ask and Wait for Chat Reply), kept under the rules of registry.ts. A
 * wait is done when a reply resumed its run (`by`: the delivery, so a retry of that reply is known as one)
 * or its run no longer waits.
 */

/** How long a done wait is kept: longer than PROTECT_MS, and as long as the service may retry the reply. */
const DONE_KEEP_MS = REMEMBER_FOR_SECONDS * 1000;
/** A wait is dropped this long after its limit (n8n ends the run at the limit, give or take a minute). */
const GRACE_MS = 10 * 60_000;
/** Most waits kept; the oldest questions are dropped first. Each costs about 200 bytes of static data. */
export const MAX_WAITS = 1000;

/** A registration as kept: its phones as digits (`phoneKey`); `by` is the first 16 hex digits of the delivery key of the reply that resumed it. */
export interface Wait extends WaitRegistration, Entry {}

/**
 * One wait as stored (the form of package 0.2.0): [customer digits, sender digits or '', resume URL ('' once
 * done), until ms or 0, asked at ms, done at ms or 0, the delivery that resumed it or ''].
 */
const WAIT: Kind<Wait> = {
	field: 'replyWaits',
	encode: (w) => [w.customer, w.sender, w.resumeUrl, w.until, w.askedAt, w.done, w.by],
	decode(id, [customer, sender, resumeUrl, until, askedAt, done, by]) {
		if (typeof customer !== 'string' || typeof resumeUrl !== 'string') return undefined;
		return { id, customer, sender: String(sender ?? ''), resumeUrl, until: Number(until) || 0, askedAt: Number(askedAt) || 0, done: Number(done) || 0, by: String(by ?? '') };
	},
	ended: (w) => ({ ...w, resumeUrl: '' }),
	expired: (w, nowMs) => (w.done ? nowMs - w.done > DONE_KEEP_MS : w.until > 0 && nowMs > w.until + GRACE_MS),
	max: MAX_WAITS,
	oldestFirst: (a, b) => a.askedAt - b.askedAt,
};

export class Waits extends Registry<Wait> {
	constructor(scope: string, store: IDataObject, nowMs: number) {
		super(scope, WAIT, store, nowMs);
	}

	/** Keeps a run's registration (its phones as digits). */
	override register(registration: WaitRegistration): void {
		super.register({ ...registration, customer: phoneKey(registration.customer), sender: phoneKey(registration.sender), done: 0, by: '' });
	}

	/** Live waits for a reply from `from` to `to`, the newest question first. */
	for(from: string, to: string): Wait[] {
		const customer = phoneKey(from);
		const sender = phoneKey(to);
		return this.live()
			.filter((w) => w.customer === customer && (w.sender === '' || w.sender === sender))
			.sort((a, b) => b.askedAt - a.askedAt);
	}

	/** Whether this delivery (`by`) already resumed a run: the service's retry of a reply n8n took. */
	resumedBy(by: string): boolean {
		return this.ended().some((w) => w.by === by);
	}
}
