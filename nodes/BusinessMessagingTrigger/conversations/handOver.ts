import { sleep, type IDataObject, type IHttpRequestOptions, type IWebhookFunctions } from 'n8n-workflow';

import { SIGNATURE_HEADER, signatureHeaders, TIMESTAMP_HEADER } from '../../../credentials/webhookSignature';
import type { ReplyOutcome } from '../../shared/conversation';
import { webhookSecret } from '../../shared/webhookSecret';
import { deliveryKey } from '../deliveryStore';
import { waitsScope } from './endpoint';
import { type Wait, Waits } from './waits';

/**
 * A customer's message, handed to the run waiting for it (Resume Waiting Runs): the service's body and
 * signature headers unchanged, POSTed to the run's resume address, where the asking node checks the
 * signature itself and decides. The trigger answers the service 2xx only once n8n holds the run with the
 * reply (nothing acknowledged is lost), and answers 503 when it could not hand it over (the service retries).
 */

export const REPLY_EVENT = 'message.received';

/**
 * The trigger's switch, read as n8n reads it to register the waits webhook (endpoint.ts): the node's own
 * parameter, `true` only. Read raw, not through getNodeParameter: this runs for every event of every trigger.
 */
export function resumesWaitingRuns(context: IWebhookFunctions): boolean {
	return context.getNode().parameters.resumeWaitingRuns === true;
}

/**
 * Rule 1 of waits.ts for every request of a trigger that resumes waiting runs: whatever else this
 * request makes n8n save, the registrations this process received go with it.
 */
export function keepReplyWaits(context: IWebhookFunctions): void {
	if (!resumesWaitingRuns(context)) return;
	new Waits(waitsScope(context), context.getWorkflowStaticData('node'), Date.now()).writeBack();
}

const RESUME_TIMEOUT_MS = 30_000;
/** n8n 1.x and 2.x before 2.41 answer the resume before they write it: how long to wait until they have. */
const HELD_WITHIN_MS = 15_000;

type Attempt = { outcome: ReplyOutcome } | { outcome: 'gone' } | { outcome: 'failed'; reason: string };

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

function outcomeOf(body: unknown): unknown {
	if (Buffer.isBuffer(body)) body = body.toString('utf8');
	if (typeof body === 'string') {
		try {
			body = JSON.parse(body);
		} catch {
			return undefined;
		}
	}
	return typeof body === 'object' && body !== null ? (body as IDataObject).outcome : undefined;
}

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

async function handTo(context: IWebhookFunctions, wait: Wait, rawBody: Buffer): Promise<Attempt> {
	const headers = context.getHeaderData();
	let res: { statusCode: number; body: unknown };
	try {
		res = await request(context, wait.resumeUrl, {
			body: rawBody,
			json: false,
			headers: {
				'content-type': 'application/json',
				[SIGNATURE_HEADER]: String(headers[SIGNATURE_HEADER] ?? ''),
				[TIMESTAMP_HEADER]: String(headers[TIMESTAMP_HEADER] ?? ''),
			},
		});
	} catch (error) {
		return { outcome: 'failed', reason: (error as Error).message };
	}
	const outcome = outcomeOf(res.body);
	// n8n itself: 404 the execution is gone, 409 it runs or has finished (it waits no more).
	if (res.statusCode === 404 || res.statusCode === 409) return { outcome: 'gone' };
	if (res.statusCode === 200 && (outcome === 'resumed' || outcome === 'waiting')) {
		if (outcome === 'waiting') return { outcome };
		try {
			return (await heldByN8n(context, wait.resumeUrl)) ? { outcome } : { outcome: 'failed', reason: 'n8n did not take up the resumed run' };
		} catch (error) {
			return { outcome: 'failed', reason: (error as Error).message };
		}
	}
	if (res.statusCode === 422 && outcome === 'other') return { outcome: 'other' };
	if (res.statusCode === 401) return { outcome: 'failed', reason: 'the waiting node refused the signature (another Webhook Secret?)' };
	return { outcome: 'failed', reason: `answered ${res.statusCode}` };
}

/**
 * Hand-overs to one run, one after another in this process: n8n before 2.3 does not claim a waiting run
 * atomically, so two replies handed over at the same moment could both resume it; the second one now
 * finds it running (409) and goes on to the workflow.
 */
const handing = new Map<string, Promise<unknown>>();

async function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
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
 * the workflow with `extra`.
 */
export type HandOver = { answer: { status: number; body: IDataObject } } | { extra: IDataObject };

const TAKEN: HandOver = { answer: { status: 200, body: { received: true, resumedWaitingRun: true } } };

/**
 * Hands a reply to the newest run waiting for this customer and sender number. A run that no longer
 * waits is passed over (and its wait marked done); a reply the run did not take (not an expected answer)
 * goes on to the workflow like any other message.
 */
export async function handOverReply(context: IWebhookFunctions, delivery: Delivery): Promise<HandOver> {
	const { data } = delivery;
	if (delivery.event !== REPLY_EVENT || !resumesWaitingRuns(context) || typeof data.from !== 'string' || typeof data.to !== 'string') {
		return { extra: {} };
	}
	const waits = new Waits(waitsScope(context), context.getWorkflowStaticData('node'), Date.now());
	const by = deliveryKey(delivery.rawBody).slice(0, 16);
	try {
		// The service's retry of a reply a run took (its first answer did not reach the service in time).
		if (waits.resumedBy(by)) return TAKEN;
		for (const wait of waits.for(data.from, data.to)) {
			const attempt = await oneAtATime(wait.resumeUrl, async () => await handTo(context, wait, delivery.rawBody));
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
