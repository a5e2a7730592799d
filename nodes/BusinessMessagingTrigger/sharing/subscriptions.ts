import type { IDataObject } from 'n8n-workflow';

import type { SubscriptionRegistration } from '../../shared/sharing';
import { selects } from '../events';
import { type Entry, type Kind, PROTECT_MS, Registry } from './registry';

/**
 * The trigger workflows that receive this account's events through the sharing trigger, kept under the rules
 * of registry.ts. A trigger registers when its workflow is activated (and while the editor listens for a test
 * event, with its Test URL) and ends its registration when deactivated (subscriber.ts). Each registration has
 * an id of its own: a later one of the same trigger (`key`) ends the earlier ones, so a done mark of an
 * earlier activation never ends a later one.
 */

/** Done entries are kept a while past PROTECT_MS, so no save brings them back. */
const DONE_KEEP_MS = 2 * PROTECT_MS;
/** A test listener is dropped this long after its end (n8n stops listening after two minutes). */
const LISTEN_GRACE_MS = 60_000;
/** Most trigger workflows kept; the oldest registrations are dropped first. */
const MAX_SUBSCRIPTIONS = 500;

export interface Subscription extends SubscriptionRegistration, Entry {}

/** As stored: [key, url, events (comma-separated), ignored statuses (comma-separated), workflow name, registered at ms, until ms or 0, done at ms or 0, why it ended]. */
const SUBSCRIPTION: Kind<Subscription> = {
	field: 'subscribers',
	encode: (s) => [s.key, s.url, s.events.join(','), s.ignoreStatuses.join(','), s.workflow, s.registeredAt, s.until, s.done, s.by],
	decode(id, [key, url, events, ignoreStatuses, workflow, registeredAt, until, done, by]) {
		if (typeof key !== 'string' || typeof url !== 'string' || typeof events !== 'string') return undefined;
		const list = (text: unknown) => String(text ?? '').split(',').filter(Boolean);
		return { id, key, url, events: list(events), ignoreStatuses: list(ignoreStatuses), workflow: String(workflow ?? ''), registeredAt: Number(registeredAt) || 0, until: Number(until) || 0, done: Number(done) || 0, by: String(by ?? '') };
	},
	ended: (s) => s,
	expired: (s, nowMs) => (s.done ? nowMs - s.done > DONE_KEEP_MS : s.until > 0 && nowMs > s.until + LISTEN_GRACE_MS),
	max: MAX_SUBSCRIPTIONS,
	oldestFirst: (a, b) => a.registeredAt - b.registeredAt,
};

export class Subscriptions extends Registry<Subscription> {
	constructor(scope: string, store: IDataObject, nowMs: number) {
		super(scope, SUBSCRIPTION, store, nowMs);
	}

	/** Keeps a registration and ends the earlier ones of the same trigger. */
	override register(registration: SubscriptionRegistration): void {
		for (const earlier of this.live()) {
			if (earlier.key === registration.key && earlier.id !== registration.id) this.done(earlier.id, 'registered again');
		}
		super.register({ ...registration, done: 0, by: '' });
	}

	/** Ends every registration of a trigger (its workflow was deactivated, or it stopped listening). */
	end(key: string, why: string): void {
		for (const s of this.live()) if (s.key === key) this.done(s.id, why);
	}

	/** The trigger workflows whose Events select this event, each once (its newest registration). */
	for(event: string, data: IDataObject): Subscription[] {
		const newest = new Map<string, Subscription>();
		for (const s of this.live()) {
			const kept = newest.get(s.key);
			if (!kept || kept.registeredAt < s.registeredAt) newest.set(s.key, s);
		}
		return [...newest.values()].filter((s) => selects(s, event, data));
	}
}
