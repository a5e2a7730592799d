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

/**
 * Keys are stored as their first 32 hex digits (128 bits): collisions stay out of reach, and the static
 * data n8n reads and writes with every request is half the size.
 */
const STORED_KEY_LENGTH = 32;

function remembered(store: IDataObject): Remembered {
	const deliveries = store.deliveries;
	if (typeof deliveries !== 'object' || deliveries === null || Array.isArray(deliveries)) return {};
	return deliveries as Remembered;
}

/** Whether this body was accepted within the last REMEMBER_FOR_SECONDS. */
export function wasDelivered(store: IDataObject, key: string, nowSeconds: number): boolean {
	const acceptedAt = remembered(store)[key.slice(0, STORED_KEY_LENGTH)];
	return typeof acceptedAt === 'number' && nowSeconds - acceptedAt <= REMEMBER_FOR_SECONDS;
}

/**
 * Records an accepted body. Entries are kept in the order they were accepted (oldest first), so only
 * the front is visited: expired entries and those beyond the cap are dropped there, in one pass, which
 * matters because this runs on every accepted event (a full store sorted and rebuilt took ~3 ms).
 * Assigns the object again at the end: n8n notices (and saves) changes to static data only when a
 * property of the node's own object is set.
 */
export function rememberDelivery(store: IDataObject, key: string, nowSeconds: number): void {
	const storedKey = key.slice(0, STORED_KEY_LENGTH);
	const deliveries = remembered(store);
	delete deliveries[storedKey];
	const keys = Object.keys(deliveries);
	let excess = keys.length - (MAX_REMEMBERED_DELIVERIES - 1);
	for (const oldest of keys) {
		const acceptedAt = deliveries[oldest];
		const expired = typeof acceptedAt !== 'number' || nowSeconds - acceptedAt > REMEMBER_FOR_SECONDS;
		if (!expired && excess <= 0) break;
		delete deliveries[oldest];
		excess--;
	}
	deliveries[storedKey] = nowSeconds;
	store.deliveries = deliveries;
}
