import { createHash } from 'node:crypto';
import { sleep, type IDataObject } from 'n8n-workflow';

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
 * Most bodies remembered at once; beyond it the oldest are forgotten first. Each costs 12 characters of
 * the workflow's static data, which n8n reads with every request.
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
 * The static data holds the remembered deliveries as one string of fixed-width base64url records, oldest
 * first: 8 characters for the key (the first 48 bits of the body's SHA-256: a false match among 2,000 keys
 * has a chance of about 1 in 10^11 per event) and 4 for the minute it was acknowledged (counted from
 * 2026-01-01, good for 31 years). One short string: n8n reads the workflow's static data twice with every
 * request and copies it into its proxies, so its size is a cost per event (docs/performance.md).
 */
const STORE_FIELD = 'acknowledged';
const KEY_BYTES = 6;
const KEY_CHARS = 8;
const MINUTE_CHARS = 4;
const RECORD_LENGTH = KEY_CHARS + MINUTE_CHARS;
const FIRST_MINUTE = Date.UTC(2026, 0, 1) / 60_000;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LAST_MINUTE_OFFSET = 64 ** MINUTE_CHARS - 1;

/** Seconds as the 4-character minute of a record. */
function minuteChars(seconds: number): string {
	const offset = Math.min(Math.max(Math.floor(seconds / 60) - FIRST_MINUTE, 0), LAST_MINUTE_OFFSET);
	let chars = '';
	for (let shift = 6 * (MINUTE_CHARS - 1); shift >= 0; shift -= 6) chars += BASE64URL[Math.floor(offset / 2 ** shift) % 64];
	return chars;
}

/** A record's minute back in seconds, or NaN for characters that are not base64url. */
function secondsOf(chars: string): number {
	let offset = 0;
	for (const char of chars) {
		const digit = BASE64URL.indexOf(char);
		if (digit < 0) return NaN;
		offset = offset * 64 + digit;
	}
	return (FIRST_MINUTE + offset) * 60;
}

/**
 * Earlier forms, still read and replaced on the next write: package 0.1.0 stored
 * `{ deliveries: { <32 hex digits>: seconds } }`, development builds of 0.2.0 `accepted` (16 hex digits of
 * the key and 8 of the time in seconds per record).
 */
const LEGACY_FIELD = 'deliveries';
const HEX_FIELD = 'accepted';
const HEX_RECORD_LENGTH = 24;
/** An earlier form's key: at least the 12 hex digits the store keeps. */
const HEX_KEY = /^[0-9a-f]{12}/;

type Accepted = Map<string, number>;

/** The key as the store keeps it, from a delivery key or any earlier form's hex digits (at least 12). */
function storedKeyOf(hex: string): string {
	return Buffer.from(hex.slice(0, 2 * KEY_BYTES), 'hex').toString('base64url');
}

function parseStored(store: IDataObject): Accepted {
	const accepted: Accepted = new Map();
	const legacy = store[LEGACY_FIELD];
	if (typeof legacy === 'object' && legacy !== null && !Array.isArray(legacy)) {
		for (const [key, at] of Object.entries(legacy)) {
			if (typeof at === 'number' && HEX_KEY.test(key)) accepted.set(storedKeyOf(key), at);
		}
	}
	const hex = store[HEX_FIELD];
	if (typeof hex === 'string') {
		for (let i = 0; i + HEX_RECORD_LENGTH <= hex.length; i += HEX_RECORD_LENGTH) {
			const at = parseInt(hex.slice(i + 16, i + HEX_RECORD_LENGTH), 16);
			if (Number.isFinite(at) && HEX_KEY.test(hex.slice(i, i + 12))) accepted.set(storedKeyOf(hex.slice(i, i + 12)), at);
		}
	}
	const packed = store[STORE_FIELD];
	if (typeof packed === 'string') {
		for (let i = 0; i + RECORD_LENGTH <= packed.length; i += RECORD_LENGTH) {
			const at = secondsOf(packed.slice(i + KEY_CHARS, i + RECORD_LENGTH));
			if (Number.isFinite(at)) accepted.set(packed.slice(i, i + KEY_CHARS), at);
		}
	}
	return accepted;
}

function pack(accepted: Accepted): string {
	const records: string[] = [];
	for (const [key, at] of accepted) records.push(key + minuteChars(at));
	return records.join('');
}

/** Whether the static data still holds an earlier form, to be replaced on the next write. */
function holdsEarlierForm(store: IDataObject): boolean {
	return store[LEGACY_FIELD] !== undefined || store[HEX_FIELD] !== undefined;
}

/**
 * What this n8n process knows per trigger node (`workflowId/nodeId`):
 * - `acknowledged`: deliveries n8n answered 2xx (so their run exists), oldest first, with the saved ones
 *   learnt from static data;
 * - `inFlight`: deliveries whose run is being handed to n8n now, each with a promise of n8n's answer.
 * Static data alone cannot stop concurrent copies: n8n loads it afresh for every request and saves the
 * whole of it afterwards, last write wins. This memory is shared by all requests of the process and is
 * checked and updated without an `await` in between, so exactly one copy of a delivery is handed on.
 */
interface ProcessMemory {
	acknowledged: Accepted;
	inFlight: Map<string, Promise<boolean>>;
	/** `acknowledged` packed as the static data should hold it; made when next handed to n8n. */
	packed: string | undefined;
	/** The stored string last learnt from, so an unchanged one is not parsed again. */
	learnt: string | undefined;
}

const memoryOfTrigger = new Map<string, ProcessMemory>();

/** Forgets what this process accepted, as a restart does (tests). */
export function forgetInProcessDeliveries(): void {
	memoryOfTrigger.clear();
}

function isFresh(acceptedAt: number | undefined, nowSeconds: number): acceptedAt is number {
	return acceptedAt !== undefined && nowSeconds - acceptedAt <= REMEMBER_FOR_SECONDS;
}

/**
 * Drops expired entries and those beyond the cap from the front (the oldest), in one pass: only the
 * front is visited.
 */
function prune(accepted: Accepted, nowSeconds: number): void {
	let excess = accepted.size - MAX_REMEMBERED_DELIVERIES;
	for (const [key, at] of accepted) {
		if (isFresh(at, nowSeconds) && excess <= 0) break;
		accepted.delete(key);
		excess--;
	}
}

/** Brings saved keys this process does not know (saved before a restart, or by another process) into its memory. */
function learnSaved(memory: ProcessMemory, store: IDataObject, nowSeconds: number): void {
	const stored = store[STORE_FIELD];
	if (stored === memory.learnt && !holdsEarlierForm(store)) return;
	memory.learnt = typeof stored === 'string' ? stored : undefined;
	let merged = false;
	for (const [key, at] of parseStored(store)) {
		if (memory.acknowledged.has(key) || !isFresh(at, nowSeconds)) continue;
		memory.acknowledged.set(key, at);
		merged = true;
	}
	if (merged) memory.acknowledged = new Map([...memory.acknowledged].sort((a, b) => a[1] - b[1]));
	prune(memory.acknowledged, nowSeconds);
	memory.packed = undefined;
}

/**
 * Writes the acknowledged keys into the static data n8n loaded for this request, when it lacks any. Only
 * acknowledged keys are written, never one being claimed, so a saved key always belongs to a run n8n holds.
 */
function writeAcknowledged(memory: ProcessMemory, store: IDataObject, nowSeconds: number): void {
	if (memory.packed === undefined) {
		prune(memory.acknowledged, nowSeconds);
		memory.packed = pack(memory.acknowledged);
	}
	if ((store[STORE_FIELD] ?? '') === memory.packed && !holdsEarlierForm(store)) return;
	// Setting a property of the node's own object is what makes n8n save static data.
	store[STORE_FIELD] = memory.packed;
	delete store[LEGACY_FIELD];
	delete store[HEX_FIELD];
	// Once saved, the next request loads this string: nothing in it to learn.
	memory.learnt = memory.packed;
}

/**
 * Hands this process's acknowledged deliveries to n8n with a request the trigger answers itself (a repeat,
 * an ignored event or status, a refusal, the challenge): n8n saves the workflow's static data for such a
 * request on every supported version, and for no request that starts a run (the answer to those is sent
 * outside the callback that saves, see acknowledgement.ts). `store` is read only when this process has
 * something to hand over, so forged requests cost nothing here.
 */
export function handOverDeliveries(scope: string, store: () => IDataObject, nowSeconds: number): void {
	const memory = memoryOfTrigger.get(scope);
	if (memory === undefined || memory.acknowledged.size === 0) return;
	const loaded = store();
	learnSaved(memory, loaded, nowSeconds);
	writeAcknowledged(memory, loaded, nowSeconds);
}

/**
 * How long a copy waits for n8n's answer to an earlier copy being handed to n8n. n8n answers within
 * milliseconds unless it is far behind; then the copy is answered 503 and the service retries it later.
 */
export const IN_FLIGHT_WAIT_MS = 10_000;

/** A claimed delivery: start its run, then report n8n's answer with `settle`. */
export interface Claimed {
	outcome: 'claimed';
	/** `true` once n8n answered the request 2xx (the run exists); `false` frees the delivery for a retry. */
	settle(acknowledged: boolean): void;
}

/** `inFlight`: an earlier copy is still being handed to n8n after IN_FLIGHT_WAIT_MS; answer so that the service retries. */
export type Claim = Claimed | { outcome: 'duplicate' } | { outcome: 'inFlight' };

/**
 * Claims a delivery for one trigger node. The first copy of a body is `claimed`; a copy whose earlier
 * copy n8n acknowledged in the last REMEMBER_FOR_SECONDS is a `duplicate`; a copy arriving while an
 * earlier one is being handed to n8n waits for n8n's answer to it (at most IN_FLIGHT_WAIT_MS), and takes
 * over if that answer was not 2xx (nothing acknowledged is lost, nothing runs twice). `store` is the
 * node's static data as n8n loaded it for this request: keys saved there (before a restart, or by another
 * process) count as acknowledged. The trigger's answer to a duplicate hands the store over (handOverDeliveries).
 */
export async function claimDelivery(scope: string, store: IDataObject, key: string, nowSeconds: number): Promise<Claim> {
	const storedKey = storedKeyOf(key);
	let memory = memoryOfTrigger.get(scope);
	if (!memory) {
		memory = { acknowledged: new Map(), inFlight: new Map(), packed: undefined, learnt: undefined };
		memoryOfTrigger.set(scope, memory);
	}
	learnSaved(memory, store, nowSeconds);
	for (;;) {
		if (isFresh(memory.acknowledged.get(storedKey), nowSeconds)) return { outcome: 'duplicate' };
		const inFlight = memory.inFlight.get(storedKey);
		if (!inFlight) break;
		const answered = await Promise.race([inFlight.then(() => true), sleep(IN_FLIGHT_WAIT_MS).then(() => false)]);
		if (!answered) return { outcome: 'inFlight' };
	}
	let answered!: (acknowledged: boolean) => void;
	memory.inFlight.set(storedKey, new Promise<boolean>((resolve) => (answered = resolve)));
	const trigger = memory;
	return {
		outcome: 'claimed',
		settle(acknowledged) {
			if (trigger.inFlight.get(storedKey) === undefined) return;
			trigger.inFlight.delete(storedKey);
			if (acknowledged) {
				trigger.acknowledged.delete(storedKey);
				trigger.acknowledged.set(storedKey, nowSeconds);
				prune(trigger.acknowledged, nowSeconds);
				trigger.packed = undefined;
			}
			answered(acknowledged);
		},
	};
}

/** Static data that remembers these deliveries (`[deliveryKey, acceptedAt seconds]`, oldest first; tests, benchmarks). */
export function rememberedDeliveries(deliveries: Array<[string, number]>): IDataObject {
	return { [STORE_FIELD]: pack(new Map(deliveries.map(([key, at]) => [storedKeyOf(key), at]))) };
}

/** How many deliveries the static data remembers (tests, benchmarks). */
export function storedDeliveryCount(store: IDataObject): number {
	return parseStored(store).size;
}
