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

/**
 * Deliveries accepted by this n8n process, per trigger node (`workflowId/nodeId`), oldest first.
 * Static data alone cannot stop concurrent copies: n8n loads it afresh for every request and saves the
 * whole of it afterwards, last write wins, so requests running at the same moment neither see each
 * other's keys nor keep them. This memory is shared by all requests of the process and checked and
 * updated without an `await` in between, so exactly one copy of a delivery is accepted; static data
 * still carries the keys across restarts and to other processes.
 */
const acceptedInProcess = new Map<string, Map<string, number>>();

/** Forgets what this process accepted, as a restart does (tests). */
export function forgetInProcessDeliveries(): void {
	acceptedInProcess.clear();
}

function remembered(store: IDataObject): Remembered {
	const deliveries = store.deliveries;
	if (typeof deliveries !== 'object' || deliveries === null || Array.isArray(deliveries)) return {};
	return deliveries as Remembered;
}

function isFresh(acceptedAt: unknown, nowSeconds: number): acceptedAt is number {
	return typeof acceptedAt === 'number' && nowSeconds - acceptedAt <= REMEMBER_FOR_SECONDS;
}

/**
 * Brings the saved keys this process does not know yet (saved before a restart, or by another process)
 * into its memory; keeps the memory ordered by acceptance time when any arrive.
 */
function mergeSaved(memory: Map<string, number>, saved: Remembered, nowSeconds: number): Map<string, number> {
	let merged: Map<string, number> | undefined;
	for (const [key, acceptedAt] of Object.entries(saved)) {
		if (memory.has(key) || !isFresh(acceptedAt, nowSeconds)) continue;
		merged ??= new Map(memory);
		merged.set(key, acceptedAt);
	}
	if (merged === undefined) return memory;
	return new Map([...merged].sort((a, b) => a[1] - b[1]));
}

/**
 * Drops expired entries and those beyond the cap from the front (the oldest), in one pass: this runs on
 * every accepted event, and only the front is visited.
 */
function prune(memory: Map<string, number>, nowSeconds: number): void {
	let excess = memory.size - MAX_REMEMBERED_DELIVERIES;
	for (const [key, acceptedAt] of memory) {
		if (isFresh(acceptedAt, nowSeconds) && excess <= 0) break;
		memory.delete(key);
		excess--;
	}
}

/**
 * Writes the process's memory into the static data. Assigns the object anew: n8n notices (and saves)
 * changes to static data only when a property of the node's own object is set.
 */
function save(store: IDataObject, memory: Map<string, number>): void {
	store.deliveries = Object.fromEntries(memory);
}

/** Whether the saved keys lack one this process accepted: a concurrent request's save overwrote it. */
function savedLacksAccepted(memory: Map<string, number>, saved: Remembered, nowSeconds: number): boolean {
	for (const [key, acceptedAt] of memory) {
		if (isFresh(acceptedAt, nowSeconds) && saved[key] === undefined) return true;
	}
	return false;
}

/**
 * Claims a delivery for one trigger node: true for the first copy of a body within REMEMBER_FOR_SECONDS
 * (the caller starts the run), false for every other copy, whether it arrives later or at the same
 * moment. Synchronous on purpose: the check and the record must not be split by an `await`.
 * `store` is the node's static data as n8n loaded it for this request; it is updated so that n8n saves
 * every key this process knows, which also repairs a key lost to a concurrent save.
 */
export function claimDelivery(scope: string, store: IDataObject, key: string, nowSeconds: number): boolean {
	const storedKey = key.slice(0, STORED_KEY_LENGTH);
	const saved = remembered(store);
	const memory = mergeSaved(acceptedInProcess.get(scope) ?? new Map<string, number>(), saved, nowSeconds);
	acceptedInProcess.set(scope, memory);

	if (isFresh(memory.get(storedKey), nowSeconds)) {
		if (savedLacksAccepted(memory, saved, nowSeconds)) save(store, memory);
		return false;
	}
	memory.delete(storedKey);
	memory.set(storedKey, nowSeconds);
	prune(memory, nowSeconds);
	save(store, memory);
	return true;
}
