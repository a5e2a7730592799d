/**
 * PROPOSAL for nodes/BusinessMessagingTrigger/deliveryStore.ts (not used by the package): rememberDelivery in one pass
 * instead of sort + rebuild. Same contents and order as the current code (checked over random sequences, clock going
 * back included); measured side by side with it in table 2b. As a patch: trigger-duplicate-store-one-pass.patch.
 */
import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

/** The service retries a failed delivery after 1 min, 5 min, 15 min, 1 h and 6 h (spec, Events). */
export const RETRY_DELAYS_SECONDS = [60, 300, 900, 3600, 21600];

/** 7 h 21 min: the last retry comes this long after the first attempt, plus the time attempts take. */
export const RETRY_HORIZON_SECONDS = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0);

/**
 * How long an accepted body is remembered: the retry horizon plus an hour, for slow or queued
 * attempts on the service's side and the 300 s signature window.
 */
export const REMEMBER_FOR_SECONDS = RETRY_HORIZON_SECONDS + 3600;

/**
 * Most bodies remembered at once; beyond it the oldest are forgotten first. Each costs about 80 bytes
 * of the workflow's static data, which n8n writes to its database whenever an event is accepted.
 */
export const MAX_REMEMBERED_DELIVERIES = 2000;

/**
 * Identifies one event across retries. The spec shows no event ID, and a retry re-signs the same body
 * with a new timestamp, so the body bytes are what stays the same.
 */
export function deliveryKey(rawBody: Buffer): string {
	return createHash('sha256').update(rawBody).digest('hex');
}

type Remembered = Record<string, number>;

function remembered(store: IDataObject): Remembered {
	const deliveries = store.deliveries;
	if (typeof deliveries !== 'object' || deliveries === null || Array.isArray(deliveries)) return {};
	return deliveries as Remembered;
}

/** Whether this body was accepted within the last REMEMBER_FOR_SECONDS. */
export function wasDelivered(store: IDataObject, key: string, nowSeconds: number): boolean {
	const acceptedAt = remembered(store)[key];
	return typeof acceptedAt === 'number' && nowSeconds - acceptedAt <= REMEMBER_FOR_SECONDS;
}

/**
 * Records an accepted body, dropping entries past their time and the oldest beyond the cap.
 * Assigns the object again each time: n8n notices (and saves) changes to static data only when a
 * property of the node's own object is set, not when an object nested inside it is edited.
 *
 * Runs on every accepted event with up to MAX_REMEMBERED_DELIVERIES entries, so it edits the store in
 * one pass: entries are kept in the order they were accepted, which is oldest first unless the clock
 * went back; only then is the store sorted and rebuilt.
 */
export function rememberDelivery(store: IDataObject, key: string, nowSeconds: number): void {
	const deliveries = remembered(store);
	const keys = Object.keys(deliveries);
	const drop: string[] = [];
	let kept = 0;
	let previous = -Infinity;
	let inOrder = true;
	for (const storedKey of keys) {
		const acceptedAt = deliveries[storedKey];
		if (storedKey === key || typeof acceptedAt !== 'number' || nowSeconds - acceptedAt > REMEMBER_FOR_SECONDS) {
			drop.push(storedKey);
			continue;
		}
		if (acceptedAt < previous) inOrder = false;
		previous = acceptedAt;
		kept++;
	}
	if (!inOrder) {
		const dropped = new Set(drop);
		const sorted = Object.entries(deliveries)
			.filter(([storedKey]) => !dropped.has(storedKey))
			.sort(([, a], [, b]) => a - b)
			.slice(-(MAX_REMEMBERED_DELIVERIES - 1));
		store.deliveries = Object.fromEntries([...sorted, [key, nowSeconds]]);
		return;
	}
	for (const storedKey of drop) delete deliveries[storedKey];
	let excess = kept - (MAX_REMEMBERED_DELIVERIES - 1);
	for (let i = 0; excess > 0 && i < keys.length; i++) {
		if (keys[i] in deliveries) {
			delete deliveries[keys[i]];
			excess--;
		}
	}
	deliveries[key] = nowSeconds;
	store.deliveries = deliveries;
}
