import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

/**
 * Every reason the trigger refuses a delivery for, each naming one check, with the HTTP status the sender
 * gets and what to do about it, said so that the person setting up can act on it. The explanation names
 * the check that failed, never the expected value (no signature, no secret, no hint a forger could use);
 * the answer to the sender stays the short reason. The status decides what the service does (spec,
 * Delivery and retry): 503 is retried for about 7 hours, 400 and 401 are not.
 */
const REFUSALS = {
	// 503, not 401: the service retries 5xx answers, so events sent before the user fills in the secret
	// still arrive afterwards. A 401 would make it drop them for good.
	'webhook secret not configured': {
		status: 503,
		check: 'Webhook Secret present',
		whatToCheck:
			'The credential has no Webhook Secret. Copy the webhook secret from the service’s dashboard (webhook settings) into the credential.',
	},
	'missing signature': {
		status: 401,
		check: 'signature header present',
		whatToCheck:
			'The request has no X-Service-Webhook-Signature header. The service signs every event; a request without it did not come from the service (or a proxy removed the header).',
	},
	'missing timestamp': {
		status: 401,
		check: 'timestamp header present',
		whatToCheck:
			'The request has no X-Service-Webhook-Timestamp header. The service sends it with every event; a request without it did not come from the service (or a proxy removed the header).',
	},
	'invalid timestamp': {
		status: 401,
		check: 'timestamp header form',
		whatToCheck: 'The X-Service-Webhook-Timestamp header is not whole Unix seconds. It did not come from the service.',
	},
	'timestamp outside tolerance': {
		status: 401,
		check: 'timestamp within 300 seconds',
		whatToCheck:
			'The signature’s timestamp is more than 300 seconds away from this n8n server’s clock. If the service sent it, check the server’s clock (NTP) and that no proxy holds requests back; an old request sent again is refused on purpose.',
	},
	'invalid signature': {
		status: 401,
		check: 'signature matches the body',
		whatToCheck:
			'The signature does not match the body signed with the credential’s Webhook Secret. If the service sent this (for example after Webhook → Send Test Event), the credential’s Webhook Secret differs from the one in the service’s dashboard: copy it again, also after every rotation. A proxy that changes the body also breaks the signature.',
	},
	// 400 from here on: the body is signed, and resending the same body cannot fix it.
	'body is not a JSON object': {
		status: 400,
		check: 'body is a JSON object',
		whatToCheck:
			'The signature is valid but the body is not a JSON object. Check that nothing between the service and n8n rewrites the body.',
	},
	'missing event field': {
		status: 400,
		check: 'event field present',
		whatToCheck:
			'The body is signed JSON but has no `event` name. Check that the URL receives only the service’s events.',
	},
	'missing timestamp field': {
		status: 400,
		check: 'timestamp field present',
		whatToCheck:
			'The body is signed JSON but has no `timestamp` field (the event’s own time, not the X-Service-Webhook-Timestamp header, which was checked). Check that the URL receives only the service’s events.',
	},
	'missing data field': {
		status: 400,
		check: 'data field is an object',
		whatToCheck:
			'The body is signed JSON but its `data` is missing or not an object. Check that the URL receives only the service’s events.',
	},
} satisfies Record<string, { status: number; check: string; whatToCheck: string }>;

export type RefusalReason = keyof typeof REFUSALS;

/** Why a delivery was refused: the short reason answered to the sender and logged, and its HTTP status. */
export interface Refusal {
	status: number;
	reason: RefusalReason;
}

/** The refusal for `reason`, with its status. */
export function refusal(reason: RefusalReason): Refusal {
	return { status: REFUSALS[reason].status, reason };
}

/** Which check failed and what to do about it. */
export function explain(refusal: Refusal): { check: string; whatToCheck: string } {
	const { check, whatToCheck } = REFUSALS[refusal.reason];
	return { check, whatToCheck };
}

/** Every reason, in the order the checks run (tests, docs). */
export const REFUSAL_REASONS = Object.keys(REFUSALS) as RefusalReason[];

/** Errors made by `refusalError`: thrown on past the trigger's catch-all, which answers 500. */
const refusalErrors = new WeakSet<object>();

/**
 * The refusal as the editor shows it while listening for a test event (Execute step or Execute
 * workflow): n8n records an error thrown by a trigger's `webhook()` as that node's failure
 * (n8n/dist/webhooks/webhook-helpers.js, then n8n-core's `rethrowLastNodeError`), so the node is shown
 * failed with this message and the nodes after it do not run. A plain NodeOperationError, not a
 * subclass: n8n keeps the description only for errors named NodeOperationError or NodeApiError.
 */
export function refusalError(node: INode, refusal: Refusal): NodeOperationError {
	const { check, whatToCheck } = explain(refusal);
	const error = new NodeOperationError(node, `Delivery refused (${refusal.status}): ${refusal.reason}`, {
		description: `Failed check: ${check}. ${whatToCheck} The sender was answered ${refusal.status}. A refused delivery never reaches the nodes after the trigger; in production it starts no run.`,
	});
	refusalErrors.add(error);
	return error;
}

export function isRefusalError(error: unknown): error is NodeOperationError {
	return typeof error === 'object' && error !== null && refusalErrors.has(error);
}

interface Tally {
	total: number;
	/** Refusals not yet reported, by reason. */
	pending: Record<string, number>;
	pendingSince?: number;
	lastSummaryAt?: number;
}

// Per trigger node (workflow id + node id), in memory: counting must not write to the database for
// every forged request. Lost on restart, which at worst sends one summary early.
const tallies = new Map<string, Tally>();
const MAX_SCOPES = 1000;

/**
 * Counts a refusal. Returns the summary item to start one run with when a summary is due (the first
 * refusal, then at most one per `intervalMs`), else undefined. Without `intervalMs`, only counts.
 */
export function countRefusal(scope: string, reason: string, nowMs: number, intervalMs?: number): { total: number; summary?: IDataObject } {
	let tally = tallies.get(scope);
	if (!tally) {
		if (tallies.size >= MAX_SCOPES) tallies.delete(tallies.keys().next().value as string);
		tally = { total: 0, pending: {} };
		tallies.set(scope, tally);
	}
	tally.total++;
	tally.pending[reason] = (tally.pending[reason] ?? 0) + 1;
	tally.pendingSince ??= nowMs;
	if (intervalMs === undefined || (tally.lastSummaryAt !== undefined && nowMs - tally.lastSummaryAt < intervalMs)) {
		return { total: tally.total };
	}
	const refusals = Object.values(tally.pending).reduce((a, b) => a + b, 0);
	const summary: IDataObject = {
		event: REFUSAL_SUMMARY_EVENT,
		refusals,
		byReason: tally.pending,
		since: new Date(tally.pendingSince).toISOString(),
		until: new Date(nowMs).toISOString(),
		totalSinceStart: tally.total,
		note: 'Deliveries refused by this trigger (answered 401/400/503, no run started for them). Many "invalid signature" refusals after a secret rotation usually mean the credential’s Webhook Secret is out of date.',
	};
	tally.pending = {};
	tally.pendingSince = undefined;
	tally.lastSummaryAt = nowMs;
	return { total: tally.total, summary };
}

/** The `event` of a refusal summary item. */
export const REFUSAL_SUMMARY_EVENT = 'refusals.summary';
