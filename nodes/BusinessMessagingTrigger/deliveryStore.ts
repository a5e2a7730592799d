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
 * Most bodies remembered at once; beyond it the oldest are forgotten first. Each costs 24 characters of
 * the workflow's static data, which n8n reads with every request and writes whenever an event is accepted.
 */
export const MAX_REMEMBERED_DELIVERIES = 2000;

/**
 * Identifies one event across retries. The spec shows no event ID, and a retry re-signs the same body
 * with a new timestamp, so the body bytes are what stays the same.
 */
export function deliveryKey(rawBody: Buffer): string {
	return createHash('sha256').update(rawBody).digest('hex');
}

/**
 * The static data holds the remembered deliveries as one string of fixed-width records, oldest first:
 * the key's first 16 hex digits (64 bits: a false match among 2,000 keys has a chance of about 1 in
 * 10^16) and the acceptance time in seconds as 8 hex digits. One string instead of an object with 2,000
 * properties: n8n parses it, wraps it in its change-tracking proxies and serializes it again with every
 * request, which for an object cost more than everything else the trigger does (docs/performance.md).
 */
const STORE_FIELD = 'accepted';
const KEY_DIGITS = 16;
const TIME_DIGITS = 8;
const RECORD_LENGTH = KEY_DIGITS + TIME_DIGITS;

/** Package version 0.1.0 stored `{ deliveries: { <32 hex digits>: seconds } }`; still read, replaced on the next write. */
const LEGACY_FIELD = 'deliveries';

type Accepted = Map<string, number>;

function parseStored(store: IDataObject): Accepted {
	const accepted: Accepted = new Map();
	const legacy = store[LEGACY_FIELD];
	if (typeof legacy === 'object' && legacy !== null && !Array.isArray(legacy)) {
		for (const [key, at] of Object.entries(legacy)) {
			if (typeof at === 'number') accepted.set(key.slice(0, KEY_DIGITS), at);
		}
	}
	const packed = store[STORE_FIELD];
	if (typeof packed === 'string') {
		for (let i = 0; i + RECORD_LENGTH <= packed.length; i += RECORD_LENGTH) {
			const at = parseInt(packed.slice(i + KEY_DIGITS, i + RECORD_LENGTH), 16);
			if (Number.isFinite(at)) accepted.set(packed.slice(i, i + KEY_DIGITS), at);
		}
	}
	return accepted;
}

function pack(accepted: Accepted): string {
	const records: string[] = [];
	for (const [key, at] of accepted) records.push(key + at.toString(16).padStart(TIME_DIGITS, '0'));
	return records.join('');
}

/**
 * What this n8n process accepted, per trigger node (`workflowId/nodeId`): the deliveries, oldest first,
 * and the string it last gave n8n to save. Static data alone cannot stop concurrent copies: n8n loads
 * it afresh for every request and saves the whole of it afterwards, last write wins, so requests running
 * at the same moment neither see each other's keys nor keep them. This memory is shared by all requests
 * of the process and checked and updated without an `await` in between, so exactly one copy of a
 * delivery is accepted; static data still carries the keys across restarts and to other processes.
 */
const acceptedInProcess = new Map<string, { accepted: Accepted; written: string | undefined }>();

/** Forgets what this process accepted, as a restart does (tests). */
export function forgetInProcessDeliveries(): void {
	acceptedInProcess.clear();
}

function isFresh(acceptedAt: number | undefined, nowSeconds: number): acceptedAt is number {
	return acceptedAt !== undefined && nowSeconds - acceptedAt <= REMEMBER_FOR_SECONDS;
}

/**
 * Brings saved keys this process does not know (saved before a restart, or by another process) into its
 * memory, ordered by acceptance time; says whether the saved data lacks a key the process accepted
 * (a concurrent request's save overwrote it).
 */
function reconcile(accepted: Accepted, saved: Accepted, nowSeconds: number): { accepted: Accepted; savedLacksOne: boolean } {
	let merged: Accepted | undefined;
	for (const [key, at] of saved) {
		if (accepted.has(key) || !isFresh(at, nowSeconds)) continue;
		merged ??= new Map(accepted);
		merged.set(key, at);
	}
	let savedLacksOne = false;
	for (const [key, at] of accepted) {
		if (isFresh(at, nowSeconds) && !saved.has(key)) {
			savedLacksOne = true;
			break;
		}
	}
	return { accepted: merged ? new Map([...merged].sort((a, b) => a[1] - b[1])) : accepted, savedLacksOne };
}

/**
 * Drops expired entries and those beyond the cap from the front (the oldest), in one pass: this runs on
 * every accepted event, and only the front is visited.
 */
function prune(accepted: Accepted, nowSeconds: number): void {
	let excess = accepted.size - MAX_REMEMBERED_DELIVERIES;
	for (const [key, at] of accepted) {
		if (isFresh(at, nowSeconds) && excess <= 0) break;
		accepted.delete(key);
		excess--;
	}
}

/**
 * Claims a delivery for one trigger node: true for the first copy of a body within REMEMBER_FOR_SECONDS
 * (the caller starts the run), false for every other copy, whether it arrives later or at the same
 * moment. Synchronous on purpose: the check and the record must not be split by an `await`.
 * `store` is the node's static data as n8n loaded it for this request. It is written whenever a key is
 * added, or when it lacks one this process accepted, so n8n saves every key the process knows.
 */
export function claimDelivery(scope: string, store: IDataObject, key: string, nowSeconds: number): boolean {
	const storedKey = key.slice(0, KEY_DIGITS);
	const memory = acceptedInProcess.get(scope) ?? { accepted: new Map<string, number>(), written: undefined };
	acceptedInProcess.set(scope, memory);
	// Usually the saved string is the one this process wrote last: nothing to reconcile.
	let rewrite = false;
	if (store[STORE_FIELD] !== memory.written || store[LEGACY_FIELD] !== undefined) {
		const result = reconcile(memory.accepted, parseStored(store), nowSeconds);
		memory.accepted = result.accepted;
		rewrite = result.savedLacksOne || store[LEGACY_FIELD] !== undefined;
	}

	const isNew = !isFresh(memory.accepted.get(storedKey), nowSeconds);
	if (isNew) {
		memory.accepted.delete(storedKey);
		memory.accepted.set(storedKey, nowSeconds);
		prune(memory.accepted, nowSeconds);
	}
	if (isNew || rewrite) {
		// Setting a property of the node's own object is what makes n8n save static data.
		memory.written = pack(memory.accepted);
		store[STORE_FIELD] = memory.written;
		delete store[LEGACY_FIELD];
	}
	return isNew;
}

/** How many deliveries the static data remembers (tests, benchmarks). */
export function storedDeliveryCount(store: IDataObject): number {
	return parseStored(store).size;
}
