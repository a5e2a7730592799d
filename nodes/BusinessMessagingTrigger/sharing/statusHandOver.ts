import type { IWebhookFunctions } from 'n8n-workflow';

import { signatureHeaders } from '../../../credentials/webhookSignature';
import { STATUS_SUMMARY_TYPE, type StatusSummary } from '../../shared/sharing';
import { webhookSecret } from '../../shared/webhookSecret';
import { triggerScope } from './endpoint';
import { type Delivery, type HandOver, handToRun, oneAtATime, sharesEvents } from './handOver';
import { processMemory } from './registry';
import { StatusBook, type StatusWait, type StatusWatch } from './statusWaits';

/**
 * A message status the sharing trigger received, for the runs waiting for statuses (statusWaits.ts): taken into
 * the tally of its message (messageStatuses.ts); once every message of a wait reached the wanted status, the
 * trigger hands the run a summary signed with the Webhook Secret on its resume address (the node checks that
 * signature, statusWaitWebhook.ts) and answers the service 2xx once n8n holds the resumed run, 503 when it could
 * not (the service retries, and the retry counts nothing twice). A status for a watched message starts no
 * workflow unless the trigger's Also Start This Workflow for Statuses is on; a status nobody waits for flows as
 * before (also one kept because a wait is still naming its messages).
 */

export const STATUS_EVENT = 'message.status.updated';

/**
 * How long after the node named its messages a run that does not wait yet (n8n answers its resume address 409)
 * is taken to be about to: the node puts the run to wait right after. The status is then answered 503, and its
 * retry resumes the run.
 */
const ABOUT_TO_WAIT_MS = 60_000;

/** Waits this process resumed, with when: a second status completing the same wait at the same moment is taken. */
const resumedHere = processMemory<number>();

const taken = (context: IWebhookFunctions): HandOver =>
	context.getNodeParameter('alsoStartForStatuses', false) === true
		? { extra: { statusForWaitingRun: true } }
		: { answer: { status: 200, body: { received: true, statusForWaitingRun: true } } };

const retry = (context: IWebhookFunctions, reason: string): HandOver => {
	context.logger.warn(`Business Messaging Trigger: could not hand the statuses to the run waiting for them (${reason}); answered 503 so the service sends the status again`);
	return { answer: { status: 503, body: { error: 'could not hand the statuses to the waiting run' } } };
};

/** The service's time of the status (ms), else now. */
function timeOf(delivery: Delivery, nowMs: number): number {
	const at = Date.parse(String(delivery.data.timestamp ?? ''));
	return Number.isFinite(at) ? at : nowMs;
}

async function resume(context: IWebhookFunctions, book: StatusBook, wait: StatusWait, watch: StatusWatch, summary: StatusSummary, nowMs: number): Promise<HandOver> {
	const secret = await webhookSecret(context);
	const body = Buffer.from(JSON.stringify(summary));
	const attempt = await oneAtATime(wait.resumeUrl, async () => {
		if (resumedHere.has(wait.id)) return { outcome: 'resumed' as const };
		const result = await handToRun(context, wait.resumeUrl, body, signatureHeaders(secret, body));
		if (result.outcome === 'resumed') resumedHere.set(wait.id, nowMs);
		return result;
	});
	if (attempt.outcome === 'resumed') {
		book.end(wait, watch, 'resumed');
		return taken(context);
	}
	if (attempt.outcome === 'failed') return retry(context, attempt.reason);
	if (attempt.outcome === 'gone' && attempt.statusCode === 409 && nowMs - watch.registeredAt < ABOUT_TO_WAIT_MS) {
		return retry(context, 'the run does not wait yet');
	}
	// The run waits no more (it ended, or went on at its limit), or the node waits for other messages.
	book.end(wait, watch, 'not waiting');
	return taken(context);
}

export async function handOverStatus(context: IWebhookFunctions, delivery: Delivery): Promise<HandOver> {
	const messageId = delivery.data.message_id;
	if (delivery.event !== STATUS_EVENT || !sharesEvents(context) || typeof messageId !== 'string') return { extra: {} };
	const nowMs = Date.now();
	for (const [id, at] of resumedHere) if (nowMs - at > ABOUT_TO_WAIT_MS) resumedHere.delete(id);
	const book = new StatusBook(triggerScope(context), context.getWorkflowStaticData('node'), nowMs);
	try {
		const watch = book.watches.watching(messageId);
		// Nobody waits for it, and no wait is naming its messages: nothing to keep.
		if (!watch && !book.awaitingWatch()) return { extra: {} };
		book.statuses.take(messageId, delivery.data.status, timeOf(delivery, nowMs));
		const wait = watch && book.waits.get(watch.wait);
		if (!watch || !wait) return { extra: {} };
		const { complete, statuses } = book.tally(watch, wait);
		if (!complete) return taken(context);
		return await resume(context, book, wait, watch, { type: STATUS_SUMMARY_TYPE, wait: wait.id, statuses }, nowMs);
	} finally {
		book.writeBack();
	}
}

