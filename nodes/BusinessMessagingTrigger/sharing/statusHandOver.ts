import { type IWebhookFunctions, sleep } from 'n8n-workflow';

import { signatureHeaders } from '../../../credentials/webhookSignature';
import { CONFIRM_AFTER_MS, type MessageStatusSummary, STATUS_SUMMARY_TYPE, type StatusSummary, statusRank, WAITS_MESSAGE_TYPE } from '../../shared/sharing';
import { webhookSecret } from '../../shared/webhookSecret';
import { MESSAGE_STATUS_EVENT } from '../events';
import { triggerScope } from './scope';
import { askOwnWaitsWebhook } from './ownWaitsWebhook';
import { type Attempt, type Delivery, type HandOver, handToRun, oneAtATime, sharesEvents } from './handOver';
import { mergeCounts } from './messageStatuses';
import { doLater } from './later';
import { handSavedTally } from './statusLimit';
import { processMemory } from './registry';
import { RESUMED, StatusBook, type StatusWait, type StatusWatch } from './statusWaits';

/**
 * A message status the sharing trigger received, for the runs waiting for statuses (statusWaits.ts): taken into
 * the tally of its message (messageStatuses.ts); once every message of a wait reached the wanted status, the
 * trigger hands the run a summary signed with the Webhook Secret on its resume address (the node checks that
 * signature, statusWaitWebhook.ts) and answers the service 2xx once n8n holds the resumed run, 503 when it could
 * not (the service retries, and the retry counts nothing twice). A status for a watched message starts no
 * workflow unless the trigger's Also Start This Workflow for Statuses is on; a status nobody waits for flows as
 * before (also one kept because a wait is still naming its messages).
 */

/**
 * How long after the node named its messages a run that does not wait yet (n8n answers its resume address 409)
 * is taken to be about to: the node puts the run to wait right after. The status is then answered 503, and its
 * retry resumes the run.
 */
const ABOUT_TO_WAIT_MS = 60_000;

/** Whether a hand-over found the run not waiting yet, so soon after the node named its messages that it is about to. */
const notWaitingYet = (attempt: Attempt, watch: StatusWatch, nowMs: number) =>
	attempt.outcome === 'gone' && attempt.statusCode === 409 && nowMs - watch.registeredAt < ABOUT_TO_WAIT_MS;

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

/**
 * What counting a status through the trigger's waits webhook needs of the request, read at its start: n8n
 * evaluates the waits webhook's address with an expression isolate it may release before a burst's gathered count
 * goes (live-webhooks.js, `releaseIsolate`; on 1.123.81 the address's path is an expression, "No bridge acquired" after).
 */
interface ViaWaitsWebhook {
	/** The trigger's own waits webhook (undefined: it has none). */
	url: string | undefined;
	/** What the request answers when the status is taken. */
	took: HandOver;
}

/**
 * `again`: a hand-over after the status was counted through the waits webhook: a run that waits no more was resumed
 * by another process meanwhile, unless the wait is still live at the trigger and the run about to wait.
 */
async function resume(context: IWebhookFunctions, book: StatusBook, wait: StatusWait, watch: StatusWatch, summary: StatusSummary, nowMs: number, again?: ViaWaitsWebhook): Promise<HandOver> {
	const secret = await webhookSecret(context);
	const body = Buffer.from(JSON.stringify(summary));
	const attempt = await oneAtATime(wait.resumeUrl, async () => {
		if (resumedHere.has(wait.id)) return { outcome: 'resumed' as const };
		const result = await handToRun(context, wait.resumeUrl, body, signatureHeaders(secret, body));
		if (result.outcome === 'resumed') resumedHere.set(wait.id, nowMs);
		return result;
	});
	if (attempt.outcome === 'resumed') {
		book.end(wait, watch, RESUMED);
		// Saved with this request's answer, or, after it, at the waits webhook: a second hand-over then knows.
		if (again) await askOwnWaitsWebhook(context, again.url, { type: WAITS_MESSAGE_TYPE, action: 'endStatusWait', id: wait.id, by: RESUMED }).catch(() => undefined);
		return again?.took ?? taken(context);
	}
	// Queue mode: n8n answers the second of two summaries handed over at the same moment 500 ("already being resumed
	// by another process"), where earlier versions answer 409; the process that resumed the run ends the wait.
	const resumedElsewhere = attempt.outcome === 'failed' && attempt.statusCode === 500 && again !== undefined && (await endedElsewhere(context, again.url, watch));
	if (attempt.outcome === 'failed' && !resumedElsewhere) return retry(context, attempt.reason);
	if (notWaitingYet(attempt, watch, nowMs)) {
		if (!again || !(await endedElsewhere(context, again.url, watch))) return retry(context, 'the run does not wait yet');
	}
	// The run waits no more (it ended, or went on at its limit), or the node waits for other messages.
	book.end(wait, watch, 'not waiting');
	return again?.took ?? taken(context);
}

export async function handOverStatus(context: IWebhookFunctions, delivery: Delivery): Promise<HandOver> {
	const messageId = delivery.data.message_id;
	if (delivery.event !== MESSAGE_STATUS_EVENT || !sharesEvents(context) || typeof messageId !== 'string') return { extra: {} };
	const nowMs = Date.now();
	for (const [id, at] of resumedHere) if (nowMs - at > ABOUT_TO_WAIT_MS) resumedHere.delete(id);
	const book = new StatusBook(triggerScope(context), context.getWorkflowStaticData('node'), nowMs);
	let writeBack = true;
	try {
		const watch = book.watches.watching(messageId);
		// A status its run went on without needing (a retry of one counted before, or a `delivered` after the `read`
		// that satisfied the wait) is news to nobody: no workflow starts for it.
		if (!watch && book.wentOnWithout(messageId, statusRank(delivery.data.status))) return taken(context);
		// Nobody waits for it, and no wait is naming its messages: nothing to keep.
		if (!watch && !book.awaitingWatch()) return { extra: {} };
		book.statuses.take(messageId, delivery.data.status, timeOf(delivery, nowMs));
		const url = context.getNodeWebhookUrl('setup');
		if (!watch) return await keepForNaming(context, url, book, messageId);
		const wait = book.waits.get(watch.wait);
		if (!wait) return { extra: {} };
		const { complete, statuses } = book.tally(watch, wait);
		const took = taken(context);
		const via: ViaWaitsWebhook = { url, took };
		if (complete) {
			return await resume(context, book, wait, watch, { type: STATUS_SUMMARY_TYPE, wait: wait.id, statuses }, nowMs, 'answer' in took ? undefined : via);
		}
		// Incomplete here: this request saves nothing (n8n would save the whole static data with each status of a burst).
		writeBack = false;
		return await countViaWaitsWebhook(context, via, book, wait, watch);
	} finally {
		if (writeBack) book.writeBack();
	}
}

interface Counted {
	live: boolean;
	complete?: boolean;
	statuses?: Record<string, MessageStatusSummary>;
}

/** The watch's tally in the saved copy with `statuses` (a request's count, messageStatuses.ts) taken in again; undefined when it could not ask. */
async function recount(context: IWebhookFunctions, url: string | undefined, watch: StatusWatch, statuses: Record<string, number[]>): Promise<Counted | undefined> {
	try {
		const answer = await askOwnWaitsWebhook(context, url, { type: WAITS_MESSAGE_TYPE, action: 'recount', id: watch.id, statuses });
		return { live: answer.live === true, complete: answer.complete === true, statuses: answer.statuses as Record<string, MessageStatusSummary> };
	} catch (error) {
		context.logger.warn(`Business Messaging Trigger: could not count a status wait again (${(error as Error).message})`);
		return undefined;
	}
}

/** How many times a status kept for a naming is kept again while that is not done (keptForNaming). */
const KEEP_AGAIN_TIMES = 4;

/**
 * A status that comes while a run still names its messages (a fast service), of a message no watch has yet. Its
 * request starts the trigger's workflow, so n8n saves nothing of it, and in queue mode the node may name its
 * messages at another process, which would never learn it. So its count is saved through the waits webhook
 * (gathered with the others this process takes at the moment: `together`) before the service is answered, then
 * kept again after a pause until that is done: another process's save at the same moment (a naming, or a status
 * kept there) may have saved over it, each missing the other's. The pause is random (one to two times
 * CONFIRM_AFTER_MS), so two processes doing this no longer meet. 503 when the trigger could not ask: the service
 * sends the status again.
 */
async function keepForNaming(context: IWebhookFunctions, url: string | undefined, book: StatusBook, messageId: string): Promise<HandOver> {
	const counts = book.statuses.known([messageId]);
	/** How many of the gathered counts are not done (keptForNaming; undefined: could not ask). */
	const keep = async (gathered: Record<string, number[]>): Promise<number | undefined> => {
		try {
			return Number((await askOwnWaitsWebhook(context, url, { type: WAITS_MESSAGE_TYPE, action: 'keepStatuses', statuses: gathered })).notDone) || 0;
		} catch (error) {
			context.logger.warn(`Business Messaging Trigger: could not keep a status for a run still naming its messages (${(error as Error).message})`);
			return undefined;
		}
	};
	const couldNot = () => retry(context, 'could not keep it for a run still naming its messages');
	if ((await together(context, 'keep', 'naming', counts, keep)) === undefined) return couldNot();
	for (let time = 1; time <= KEEP_AGAIN_TIMES; time++) {
		await sleep(CONFIRM_AFTER_MS * (1 + Math.random()));
		const notDone = await together(context, `keep again ${time}`, 'naming', counts, keep);
		if (notDone === undefined) return couldNot();
		if (notDone === 0) break;
	}
	return { extra: {} };
}

/**
 * At the waits webhook: statuses kept for a naming (`keepForNaming`), saved with this request's answer for the naming
 * to find whichever process takes it. A naming may have come meanwhile and saved over them (its check found the wait
 * incomplete, and nothing else looks at it until its next status): a wait they complete now is handed its summary
 * here. How many are not done yet: counts the saved copy did not hold, and hand-overs to a run that does not wait
 * yet or could not be reached (the process asks again after a pause).
 */
export async function keptForNaming(context: IWebhookFunctions, book: StatusBook, counts: Array<[string, unknown]>): Promise<number> {
	let notDone = counts.filter(([id, tally]) => !book.statuses.wasSaved(id, tally)).length;
	for (const [id, tally] of counts) book.statuses.merge(id, tally);
	const watches = new Set(counts.map(([id]) => book.watches.watching(id)).filter((watch) => watch !== undefined));
	for (const watch of watches) {
		const wait = book.waits.get(watch.wait);
		if (!wait || !book.tally(watch, wait).complete) continue;
		const attempt = await handSavedTally(context, book, watch, wait);
		if (attempt.outcome === 'failed' || notWaitingYet(attempt, watch, Date.now())) notDone++;
		else book.end(wait, watch, attempt.outcome === 'resumed' ? RESUMED : 'not waiting');
	}
	return notDone;
}

/** How long the statuses of a burst are gathered before they are counted again together: a moment on top of CONFIRM_AFTER_MS. */
const GATHER_MS = 200;

/** Per wait (or the statuses kept for namings) and step, what this process is gathering: it goes GATHER_MS after the one before it ended. */
const gathering = processMemory<{ statuses: Record<string, number[]>; done: Promise<unknown> }>();

/**
 * A step for the statuses of one wait (`of`) that this process takes at the same moment (a burst), done once for all
 * of them: `work` gets every count gathered while the step before it was under way, and each status's request
 * the step's result. One recount (a request and a save of n8n's) and one hand-over per step, not per status:
 * 500 statuses at once were a thousand saves for n8n's database (docs/status-waits.md).
 */
async function together<T>(context: IWebhookFunctions, step: string, of: string, statuses: Record<string, number[]>, work: (statuses: Record<string, number[]>) => Promise<T>): Promise<T> {
	const key = `${step} ${triggerScope(context)}/${of}`;
	let next = gathering.get(key);
	if (!next) {
		const going = { statuses: {} as Record<string, number[]>, done: Promise.resolve<unknown>(undefined) };
		going.done = oneAtATime(key, async () => {
			await sleep(GATHER_MS);
			if (gathering.get(key) === going) gathering.delete(key);
			return await work(going.statuses);
		});
		gathering.set(key, (next = going));
	}
	mergeCounts(next.statuses, statuses);
	return (await next.done) as T;
}

/**
 * Whether the wait ended at the trigger within a moment: a process that resumed the run after its own answer
 * was saved ends it there right after (n8n answers 409 both to a second hand-over and to one that comes before
 * the run waits).
 */
async function endedElsewhere(context: IWebhookFunctions, url: string | undefined, watch: StatusWatch): Promise<boolean> {
	for (let look = 0; look < 4; look++) {
		if ((await recount(context, url, watch, {}))?.live === false) return true;
		await sleep(CONFIRM_AFTER_MS / 2);
	}
	return false;
}

/**
 * A status that leaves its wait incomplete: its count goes through the waits webhook, gathered with the burst's
 * (`together`), then after CONFIRM_AFTER_MS is counted again with the saved copy (another process may have saved
 * over it meanwhile, each missing the other's count), and the run handed its summary if that is complete. The
 * service is answered only then, so what it was answered 2xx for is saved; 503 when the trigger could not ask.
 */
async function countViaWaitsWebhook(context: IWebhookFunctions, via: ViaWaitsWebhook, book: StatusBook, wait: StatusWait, watch: StatusWatch): Promise<HandOver> {
	const known = book.statuses.known(watch.messages);
	const counted = await together(context, 'count', watch.id, known, async (gathered) => await recount(context, via.url, watch, gathered));
	// Not taken in there: n8n saves this process's count with the 503 (rule 1), for the statuses still to come.
	if (!counted) return retry(context, 'could not count the wait again');
	await sleep(CONFIRM_AFTER_MS);
	const handed = await together(context, 'count again', watch.id, known, async (gathered): Promise<HandOver> => {
		const again = await recount(context, via.url, watch, gathered);
		if (again === undefined) return retry(context, 'could not count the wait again');
		if (again.live && !again.complete) followUp(context, via, book, wait, watch, gathered);
		if (!again.live || !again.complete) return via.took;
		return await resume(context, book, wait, watch, { type: STATUS_SUMMARY_TYPE, wait: wait.id, statuses: again.statuses ?? {} }, Date.now(), via);
	});
	return 'answer' in handed ? { ...handed, savesNothing: true } : handed;
}

/**
 * After the second count a wait may still look incomplete at every process although all its statuses came: three
 * or more processes whose recounts ran at the same moment in both rounds, each saving over the others, each seeing
 * part (docs/status-waits.md). So a process whose second count found the wait incomplete counts again with what it
 * knows after each of these pauses (a random point in each range, so the processes' recounts no longer meet): one
 * that follows the others' saves sees every status and hands the run its summary. Twice, then the limit.
 */
const FOLLOW_UP_PAUSES_MS: Array<[number, number]> = [
	[CONFIRM_AFTER_MS, 3 * CONFIRM_AFTER_MS],
	[3 * CONFIRM_AFTER_MS, 8 * CONFIRM_AFTER_MS],
];

/** Per trigger and watch, what this process counts again in its follow-up (one at a time; later counts join it). */
const followingUp = processMemory<Record<string, number[]>>();

function followUp(context: IWebhookFunctions, via: ViaWaitsWebhook, book: StatusBook, wait: StatusWait, watch: StatusWatch, counts: Record<string, number[]>): void {
	const key = `follow-up ${triggerScope(context)}/${watch.id}`;
	const pending = followingUp.get(key);
	if (pending) return mergeCounts(pending, counts);
	const statuses: Record<string, number[]> = {};
	mergeCounts(statuses, counts);
	followingUp.set(key, statuses);
	const countAgain = (pause: number): void => {
		const [least, most] = FOLLOW_UP_PAUSES_MS[pause];
		doLater(key, {
			at: Date.now() + least + Math.random() * (most - least),
			logger: context.logger,
			what: 'count a status wait again',
			run: async () => {
				// Forgotten (a restart, in tests): stop.
				if (followingUp.get(key) !== statuses) return;
				let more = false;
				try {
					const again = await recount(context, via.url, watch, statuses);
					if (!again?.live) return;
					if (again.complete) return void (await resume(context, book, wait, watch, { type: STATUS_SUMMARY_TYPE, wait: wait.id, statuses: again.statuses ?? {} }, Date.now(), via));
					more = pause + 1 < FOLLOW_UP_PAUSES_MS.length;
					if (more) countAgain(pause + 1);
				} finally {
					if (!more && followingUp.get(key) === statuses) followingUp.delete(key);
				}
			},
		});
	};
	countAgain(0);
}
