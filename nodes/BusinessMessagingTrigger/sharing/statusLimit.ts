import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { signatureHeaders } from '../../../credentials/webhookSignature';
import { LIMIT_FALLBACK_MS, STATUS_SUMMARY_TYPE, WAITS_MESSAGE_TYPE } from '../../shared/sharing';
import { webhookSecret } from '../../shared/webhookSecret';
import { type Attempt, handToRun, oneAtATime } from './handOver';
import { askOwnWaitsWebhook } from './ownWaitsWebhook';
import { doLater, isPending, type Later } from './later';
import { processMemory } from './registry';
import { triggerScope } from './scope';
import { AT_LIMIT, StatusBook, type StatusWait, type StatusWatch } from './statusWaits';

/**
 * Limit Wait Time of a status wait, kept by the trigger: when it passes, the trigger hands the run what it counted
 * by then, so the run goes on with the latest statuses (`reached: false` for the messages that did not reach the
 * wanted one). Every process of n8n that takes a request of the trigger's waits webhook, or any of the service's
 * events, keeps in memory the limits of the live waits it saw; at a limit it asks the waits webhook (any process
 * takes it), which hands the run the saved tally and ends the wait, so a second process asking finds it ended.
 * When no process kept the limit (n8n restarted, and the trigger took no event or request since), n8n resumes
 * the run itself LIMIT_FALLBACK_MS later with what the node knew when it began to wait.
 */

/** A hand-over that could not be made (n8n busy, restarting) is tried again after this, until shortly before n8n's own resume. */
const RETRY_MS = 5000;
const LAST_TRY_BEFORE_FALLBACK_MS = 20_000;

/** Limits this process acted on, with when: not kept again when a later request still shows the wait live. */
const actedOn = processMemory<number>();

/**
 * Keeps the limits of the live waits of `book` that this process does not keep yet (any request of the waits
 * webhook): at each, it asks the waits webhook to hand the run what was counted (`statusLimit` below).
 */
export function keepStatusLimits(context: IWebhookFunctions, scope: string, book: StatusBook): void {
	const now = Date.now();
	for (const [key, at] of actedOn) if (now - at > 2 * LIMIT_FALLBACK_MS) actedOn.delete(key);
	for (const watch of book.watches.live()) {
		const wait = book.waits.get(watch.wait);
		const key = `limit ${scope}/${watch.id}`;
		if (!wait || isPending(key) || actedOn.has(key)) continue;
		// Read now: n8n evaluates the address with what the request holds (endpoint.ts, WAITS_WEBHOOK).
		const url = context.getNodeWebhookUrl('setup');
		if (!url) return;
		const giveUpAt = wait.until + LIMIT_FALLBACK_MS - LAST_TRY_BEFORE_FALLBACK_MS;
		const atLimit = (at: number): Later => ({
			at,
			logger: context.logger,
			what: 'hand a run the statuses counted at its Limit Wait Time',
			run: async () => {
				actedOn.set(key, Date.now());
				const failed = await askAtLimit(context, url, watch.id);
				if (failed === undefined) return;
				if (Date.now() + RETRY_MS < giveUpAt) return doLater(key, atLimit(Date.now() + RETRY_MS));
				context.logger.warn(`Business Messaging Trigger: could not hand a run the statuses counted at its Limit Wait Time (${failed}); n8n resumes it itself, with what was known when it began to wait`);
			},
		});
		doLater(key, atLimit(wait.until));
	}
}

/** How often a process looks for limits to keep when the service's events come (keepStatusLimitsOnEvent). */
const ON_EVENTS_EVERY_MS = 60_000;
/** When this process last looked, per trigger. */
const lookedOnEvent = processMemory<number>();

/**
 * A genuine event of the service at the sharing trigger: keeps the limits of the live waits this process does
 * not keep yet, at most once a minute. After a restart the limits are gone from memory, and the waits webhook
 * may take its next request only with the next status of a waited message, while the service's other events
 * (customers' messages, other messages' statuses) keep coming. Never fails the event: what it throws is logged.
 */
export async function keepStatusLimitsOnEvent(context: IWebhookFunctions): Promise<void> {
	const scope = triggerScope(context);
	const now = Date.now();
	if (now - (lookedOnEvent.get(scope) ?? 0) < ON_EVENTS_EVERY_MS) return;
	lookedOnEvent.set(scope, now);
	try {
		// Without a Webhook Secret the trigger can ask its waits webhook nothing.
		if ((await webhookSecret(context)) !== '') keepStatusLimits(context, scope, new StatusBook(scope, context.getWorkflowStaticData('node'), now));
	} catch (error) {
		context.logger.warn(`Business Messaging Trigger: could not keep the limits of status waits (${(error as Error).message})`);
	}
}

/** Asks the waits webhook to hand over at the limit; why it could not, or undefined when done. */
async function askAtLimit(context: IWebhookFunctions, url: string, watchId: string): Promise<string | undefined> {
	try {
		const answer = await askOwnWaitsWebhook(context, url, { type: WAITS_MESSAGE_TYPE, action: 'statusLimit', id: watchId });
		return answer.retry === true ? String(answer.reason ?? 'the run could not take it yet') : undefined;
	} catch (error) {
		return (error as Error).message;
	}
}

/**
 * At the waits webhook: a wait's limit passed. The run is handed the tally of the saved copy, signed with the
 * Webhook Secret, and the wait ends; `retry` when the run could not be reached (the process at the limit asks again).
 */
export async function statusLimit(context: IWebhookFunctions, book: StatusBook, watchId: string): Promise<IDataObject> {
	const watch = book.watches.get(watchId);
	const wait = watch && book.waits.get(watch.wait);
	// Ended already: resumed by its last status, or by another process at the limit.
	if (!watch || !wait) return { handed: false };
	const attempt = await handSavedTally(context, book, watch, wait);
	if (attempt.outcome === 'failed') return { handed: false, retry: true, reason: attempt.reason };
	// Statuses that come after it flow to the trigger's workflows (nobody waits for them).
	book.end(wait, watch, attempt.outcome === 'resumed' ? AT_LIMIT : 'not waiting');
	return { handed: attempt.outcome === 'resumed' };
}

/** At the waits webhook: hands the run the saved tally of its wait, signed with the Webhook Secret. */
export async function handSavedTally(context: IWebhookFunctions, book: StatusBook, watch: StatusWatch, wait: StatusWait): Promise<Attempt> {
	const { statuses } = book.tally(watch, wait);
	const secret = await webhookSecret(context);
	const body = Buffer.from(JSON.stringify({ type: STATUS_SUMMARY_TYPE, wait: wait.id, statuses }));
	return await oneAtATime(wait.resumeUrl, async () => await handToRun(context, wait.resumeUrl, body, signatureHeaders(secret, body)));
}
