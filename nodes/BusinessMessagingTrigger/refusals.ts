import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

/**
 * Why a delivery was refused, said so that the person setting up can act on it. Each explanation
 * names the check that failed, never the expected value (no signature, no secret, no hint a forger
 * could use); the answer to the sender stays the short reason.
 */
export interface Refusal {
	/** HTTP status answered to the sender. */
	status: number;
	/** The short reason answered to the sender and logged. */
	reason: string;
}

const WHAT_TO_CHECK: Record<string, { check: string; whatToCheck: string }> = {
	'webhook secret not configured': {
		check: 'Webhook Secret present',
		whatToCheck:
			'The credential has no Webhook Secret. Copy the webhook secret from the service’s dashboard (webhook settings) into the credential.',
	},
	'missing signature': {
		check: 'signature header present',
		whatToCheck:
			'The request has no X-Service-Webhook-Signature header. The service signs every event; a request without it did not come from the service (or a proxy removed the header).',
	},
	'missing timestamp': {
		check: 'timestamp header present',
		whatToCheck:
			'The request has no X-Service-Webhook-Timestamp header. The service sends it with every event; a request without it did not come from the service (or a proxy removed the header).',
	},
	'invalid timestamp': {
		check: 'timestamp header form',
		whatToCheck: 'The X-Service-Webhook-Timestamp header is not whole Unix seconds. It did not come from the service.',
	},
	'timestamp outside tolerance': {
		check: 'timestamp within 300 seconds',
		whatToCheck:
			'The signature’s timestamp is more than 300 seconds away from this n8n server’s clock. If the service sent it, check the server’s clock (NTP) and that no proxy holds requests back; an old request sent again is refused on purpose.',
	},
	'invalid signature': {
		check: 'signature matches the body',
		whatToCheck:
			'The signature does not match the body signed with the credential’s Webhook Secret. If the service sent this (for example after Webhook → Send Test Event), the credential’s Webhook Secret differs from the one in the service’s dashboard: copy it again, also after every rotation. A proxy that changes the body also breaks the signature.',
	},
	'body is not a JSON object': {
		check: 'body is a JSON object',
		whatToCheck:
			'The signature is valid but the body is not a JSON object. Check that nothing between the service and n8n rewrites the body.',
	},
};

const ENVELOPE = {
	check: 'event fields present',
	whatToCheck: 'The body is signed JSON but lacks the event’s `event`, `timestamp` or `data`. Check that the URL receives only the service’s events.',
};

/** Which check failed and what to do about it. */
export function explain(refusal: Refusal): { check: string; whatToCheck: string } {
	return WHAT_TO_CHECK[refusal.reason] ?? ENVELOPE;
}

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
