import { sleep, type IDataObject, type IHttpRequestOptions, type IWebhookFunctions } from 'n8n-workflow';

import { SIGNATURE_HEADER, signatureHeaders, TIMESTAMP_HEADER } from '../../../credentials/webhookSignature';
import type { ReplyOutcome } from '../../shared/sharing';
import { jsonOf } from '../../shared/sharingRequest';
import { webhookSecret } from '../../shared/webhookSecret';
import { deliveryKey } from '../deliveryStore';
import { sharesWith, triggerScope } from './scope';
import { Subscriptions, type Subscription } from './subscriptions';
import { StatusBook } from './statusWaits';
import { Waits } from './waits';

/**
 * The one hand-over of an event the sharing trigger received: the service's body and signature headers
 * unchanged, POSTed to whoever registered for it (registry.ts), who checks the signature itself. A customer's
 * reply goes to the run waiting for it (its resume address, where the asking node decides); an event goes to
 * every trigger workflow whose Events select it (its own webhook, where that trigger starts its run). The
 * service is answered 2xx only once n8n holds every run (nothing acknowledged is lost), and 503 when one could
 * not be handed over (the service retries, and the retry starts runs only where none exists yet).
 */

export const REPLY_EVENT = 'message.received';

/**
 * The trigger's switch, read as n8n reads it to register the waits webhook (endpoint.ts): the node's own
 * parameters, read raw, not through getNodeParameter: this runs for every event of every trigger.
 */
export function sharesEvents(context: IWebhookFunctions): boolean {
	return sharesWith(context.getNode().parameters);
}

/**
 * Rule 1 of registry.ts for every request of a sharing trigger: whatever else this request makes n8n save,
 * the registrations this process received go with it.
 */
export function keepRegistrations(context: IWebhookFunctions): void {
	if (!sharesEvents(context)) return;
	const store = context.getWorkflowStaticData('node');
	new Waits(triggerScope(context), store, Date.now()).writeBack();
	new Subscriptions(triggerScope(context), store, Date.now()).writeBack();
	new StatusBook(triggerScope(context), store, Date.now()).writeBack();
}

const RESUME_TIMEOUT_MS = 30_000;
/** n8n 1.x and 2.x before 2.41 answer the resume before they write it: how long to wait until they have. */
const HELD_WITHIN_MS = 15_000;

/** What a hand-over to a waiting run came to (`gone`: n8n answered 404 or 409, the run waits no more). */
export type Attempt = { outcome: ReplyOutcome } | { outcome: 'gone'; statusCode: number } | { outcome: 'failed'; reason: string; statusCode?: number };

async function request(context: IWebhookFunctions, url: string, options: Partial<IHttpRequestOptions>) {
	return (await context.helpers.httpRequest({
		url,
		method: 'POST',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: RESUME_TIMEOUT_MS,
		...options,
	} as IHttpRequestOptions)) as { statusCode: number; body: unknown };
}

/** The service's signature headers, as the service sent them. */
function serviceSignature(context: IWebhookFunctions): Record<string, string> {
	const headers = context.getHeaderData();
	return { [SIGNATURE_HEADER]: String(headers[SIGNATURE_HEADER] ?? ''), [TIMESTAMP_HEADER]: String(headers[TIMESTAMP_HEADER] ?? '') };
}

/** A signed body to `url`: the service's, with its signature headers unless others are given. */
async function handOver(context: IWebhookFunctions, url: string, rawBody: Buffer, signature = serviceSignature(context)) {
	return await request(context, url, { body: rawBody, json: false, headers: { 'content-type': 'application/json', ...signature } });
}

/** The `outcome` the asking node answers with (undefined in n8n's own answers). */
const outcomeOf = (body: unknown): unknown => jsonOf(body).outcome;

/**
 * Whether n8n holds the resumed run: asked again without a body (signed), n8n answers 409 itself for a run that is
 * running or has finished, and the node answers `waiting` while the run still waits. n8n 2.41 answers the
 * resume only after it wrote the reply into the run; earlier versions answer first, so this asks until they
 * have, for HELD_WITHIN_MS of its own pauses: the clock would also count a stall of n8n's process (a blocked
 * event loop, a paused container), in which n8n could write nothing, and give up on a reply the run then takes.
 */
async function heldByN8n(context: IWebhookFunctions, url: string): Promise<boolean> {
	// The node answers only what is signed with the Webhook Secret, a GET too: the secret read a moment ago serves.
	const secret = await webhookSecret(context);
	let paused = 0;
	for (let pause = 20; ; pause = Math.min(pause * 2, 500)) {
		const res = await request(context, url, { method: 'GET', json: false, headers: signatureHeaders(secret, '') });
		if (res.statusCode !== 200 || outcomeOf(res.body) !== 'waiting') return res.statusCode === 409;
		if (paused >= HELD_WITHIN_MS) return false;
		await sleep(pause);
		paused += pause;
	}
}

/**
 * Hands a signed body to a waiting run's resume address (the service's reply, or the trigger's own status
 * summary with `signature`), and, when the node resumes the run, waits until n8n holds it.
 */
export async function handToRun(context: IWebhookFunctions, resumeUrl: string, rawBody: Buffer, signature?: Record<string, string>): Promise<Attempt> {
	let res: { statusCode: number; body: unknown };
	try {
		res = await handOver(context, resumeUrl, rawBody, signature);
	} catch (error) {
		return { outcome: 'failed', reason: (error as Error).message };
	}
	const outcome = outcomeOf(res.body);
	// n8n itself: 404 the execution is gone, 409 it runs or has finished (it waits no more).
	if (res.statusCode === 404 || res.statusCode === 409) return { outcome: 'gone', statusCode: res.statusCode };
	if (res.statusCode === 200 && (outcome === 'resumed' || outcome === 'waiting')) {
		if (outcome === 'waiting') return { outcome };
		try {
			return (await heldByN8n(context, resumeUrl)) ? { outcome } : { outcome: 'failed', reason: 'n8n did not take up the resumed run' };
		} catch (error) {
			return { outcome: 'failed', reason: (error as Error).message };
		}
	}
	if (res.statusCode === 422 && outcome === 'other') return { outcome: 'other' };
	if (res.statusCode === 401) return { outcome: 'failed', reason: 'the waiting node refused the signature (another Webhook Secret?)' };
	return { outcome: 'failed', reason: `answered ${res.statusCode}`, statusCode: res.statusCode };
}

/**
 * Hand-overs to one run, one after another in this process: n8n before 2.3 does not claim a waiting run
 * atomically, so two replies handed over at the same moment could both resume it; the second one now
 * finds it running (409) and goes on to the workflow.
 */
const handing = new Map<string, Promise<unknown>>();

export async function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
	const before = handing.get(key) ?? Promise.resolve();
	const mine = before.then(fn, fn);
	const settled = mine.catch(() => undefined);
	handing.set(key, settled);
	void settled.then(() => {
		if (handing.get(key) === settled) handing.delete(key);
	});
	return await mine;
}

export interface Delivery {
	rawBody: Buffer;
	event: string;
	data: IDataObject;
}

/**
 * What became of a message: answered by the trigger (taken by a run, or 503 to be sent again), or on to
 * the workflow with `extra`. `savesNothing`: what the answer stands for is saved already (through the trigger's
 * waits webhook), and n8n is to save nothing of this request (statusHandOver.ts).
 */
export type HandOver = { answer: { status: number; body: IDataObject }; savesNothing?: true } | { extra: IDataObject };

export const TAKEN: HandOver = { answer: { status: 200, body: { received: true, resumedWaitingRun: true } } };

/** The delivery as the waits record a reply that resumed a run: the first 16 hex digits of its key. */
const resumedBy = (delivery: Delivery) => deliveryKey(delivery.rawBody).slice(0, 16);

/** Whether this delivery is a reply that already resumed a run: a retry of it goes nowhere else. */
export function resumedAlready(context: IWebhookFunctions, delivery: Delivery): boolean {
	if (delivery.event !== REPLY_EVENT) return false;
	return new Waits(triggerScope(context), context.getWorkflowStaticData('node'), Date.now()).resumedBy(resumedBy(delivery));
}

/**
 * Hands a reply to the newest run waiting for this customer and sender number. A run that no longer
 * waits is passed over (and its wait marked done); a reply the run did not take (not an expected answer)
 * goes on to the workflow like any other message.
 */
export async function handOverReply(context: IWebhookFunctions, delivery: Delivery): Promise<HandOver> {
	const { data } = delivery;
	if (delivery.event !== REPLY_EVENT || !sharesEvents(context) || typeof data.from !== 'string' || typeof data.to !== 'string') {
		return { extra: {} };
	}
	const waits = new Waits(triggerScope(context), context.getWorkflowStaticData('node'), Date.now());
	const by = resumedBy(delivery);
	try {
		// The service's retry of a reply a run took (its first answer did not reach the service in time).
		if (waits.resumedBy(by)) return TAKEN;
		for (const wait of waits.for(data.from, data.to)) {
			const attempt = await oneAtATime(wait.resumeUrl, async () => await handToRun(context, wait.resumeUrl, delivery.rawBody));
			if (attempt.outcome === 'gone' || attempt.outcome === 'other') {
				waits.done(wait.id);
				continue;
			}
			if (attempt.outcome === 'failed') {
				context.logger.warn(`Business Messaging Trigger: could not hand a reply to the run waiting for it (${attempt.reason}); answered 503 so the service sends it again`);
				return { answer: { status: 503, body: { error: 'could not hand the reply to the waiting run' } } };
			}
			if (attempt.outcome === 'waiting') return { extra: { replyKeptWaiting: true } };
			waits.done(wait.id, by);
			if (context.getNodeParameter('alsoStartForReplies', false) === true) return { extra: { resumedWaitingRun: true } };
			return TAKEN;
		}
		return { extra: {} };
	} finally {
		waits.writeBack();
	}
}

/** What became of an event handed to the trigger workflows that receive through this one. */
export interface Handed {
	/** Every workflow holds its run (n8n created or queued it), or took the event without one (it ignored it, or had it already). */
	held: boolean;
	/** Why not, for the log: each workflow that could not take it, and how. */
	problems: string[];
}

/**
 * What a trigger workflow's answer means for the service's delivery: `held` (2xx: n8n holds the run, or the
 * trigger ignored the event or had it already); `gone` (404: n8n serves no such webhook, its workflow was
 * deactivated or deleted; 401 or 400: it refuses the event, its credential is now another account's): it no
 * longer receives, and never holds up the others; anything else, a failure the service's retry may get past.
 */
function verdict(statusCode: number): 'held' | 'gone' | 'failed' {
	if (statusCode >= 200 && statusCode < 300) return 'held';
	if (statusCode === 404 || statusCode === 401 || statusCode === 400) return 'gone';
	return 'failed';
}

/**
 * Hands an event to every trigger workflow whose Events select it, all at once. A trigger that no longer
 * receives is ended in the registry. A test listener (the editor's Execute step) never holds up the service:
 * its failures are logged only.
 */
export async function handOverToWorkflows(context: IWebhookFunctions, delivery: Delivery): Promise<Handed> {
	const subscriptions = new Subscriptions(triggerScope(context), context.getWorkflowStaticData('node'), Date.now());
	const targets = subscriptions.for(delivery.event, delivery.data);
	if (targets.length === 0) return { held: true, problems: [] };
	const attempts = await Promise.all(
		targets.map(async (s: Subscription) => {
			try {
				return { s, statusCode: (await handOver(context, s.url, delivery.rawBody)).statusCode, reason: '' };
			} catch (error) {
				return { s, statusCode: 0, reason: (error as Error).message };
			}
		}),
	);
	const problems: string[] = [];
	let held = true;
	for (const { s, statusCode, reason } of attempts) {
		const outcome = statusCode ? verdict(statusCode) : 'failed';
		if (outcome === 'held') continue;
		const what = `workflow "${s.workflow}" (${s.until ? 'listening for a test event' : 'active'}): ${reason || `answered ${statusCode}`}`;
		if (outcome === 'gone') subscriptions.done(s.id, `answered ${statusCode}`);
		if (outcome === 'failed' && !s.until) held = false;
		problems.push(outcome === 'gone' ? `${what}; it no longer receives through this trigger` : what);
	}
	subscriptions.writeBack();
	return { held, problems };
}
