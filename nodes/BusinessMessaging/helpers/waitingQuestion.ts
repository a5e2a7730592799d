import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

import type { Question } from './answerPage';
import { keepInContext, keptInContext, readFromContext } from './nodeContext';
import type { RunState } from './runState';

/**
 * What a Send and Wait node asked, kept in the waiting execution (the node's context, saved with the
 * execution and not shown in its output) so that the answer page checks the link against it and shows
 * the question as it was sent, never as the parameters evaluate later (`{{ $now }}` in Message).
 */
export interface WaitingQuestion {
	/** Random key in the link: nobody computes it from public facts, and each wait has its own. */
	key: string;
	/** The link's whole query as n8n signed it (key and signature), sorted. */
	query: string;
	/** Who the question was sent to: the answer's `answeredBy`. */
	phone: string;
	question: Question;
}

/** A question this node asked earlier in the same run (a loop), kept so its link's page can name it. */
interface EarlierQuestion {
	key: string;
	question: Pick<Question, 'message' | 'askedBy'>;
}

/** The link parameter carrying the key. */
const KEY_PARAM = 'q';
const CONTEXT_FIELD = 'waitingQuestion';
const EARLIER_FIELD = 'earlierQuestions';
/** How many earlier questions a run keeps, and how much of each message: enough to recognise it. */
const EARLIER_KEPT = 10;
const EARLIER_CHARS = 500;

function sortedQuery(params: URLSearchParams): string {
	return [...params.entries()]
		.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
		.sort()
		.join('&');
}

/** Compares without leaking how much matched (the query holds n8n's signature). */
function sameText(a: string, b: string): boolean {
	const digest = (text: string) => createHash('sha256').update(text).digest();
	return timingSafeEqual(digest(a), digest(b));
}

/**
 * The answer link for a new question, kept with the question in the execution that is about to wait.
 * n8n before 2.41 checks a waiting link's signature only when the node asks for it
 * (`setSignatureValidationRequired`, gone in 2.41, which always checks send-and-wait links), so ask when
 * the method exists; the page compares the whole query with the kept one on every version anyway.
 */
export function askQuestion(ctx: IExecuteFunctions, phone: string, question: Question): string {
	const key = randomBytes(16).toString('hex');
	const link = ctx.getSignedResumeUrl({ [KEY_PARAM]: key });
	(ctx as IExecuteFunctions & { setSignatureValidationRequired?: () => void }).setSignatureValidationRequired?.();
	const waiting: WaitingQuestion = { key, query: sortedQuery(new URL(link).searchParams), phone, question };
	const previous = keptInContext<WaitingQuestion>(ctx, CONTEXT_FIELD);
	if (previous) {
		const { message, askedBy } = previous.question;
		const earlier: EarlierQuestion = { key: previous.key, question: { message: message.slice(0, EARLIER_CHARS), askedBy } };
		keepInContext(ctx, EARLIER_FIELD, [earlier, ...(keptInContext<EarlierQuestion[]>(ctx, EARLIER_FIELD) ?? [])].slice(0, EARLIER_KEPT));
	}
	keepInContext(ctx, CONTEXT_FIELD, waiting);
	return link;
}

export type LinkCheck =
	| { ok: true; waiting: WaitingQuestion }
	| { ok: false; status: 401 }
	| { ok: false; status: 410; earlier?: EarlierQuestion['question'] };

/**
 * 410 for a link of another question (an earlier wait of this node in a loop, or none kept); 401 for a
 * link whose query differs from the one n8n signed (signature removed or changed, `to` or anything added).
 */
export function checkLink(run: RunState<IWebhookFunctions>): LinkCheck {
	const waiting = readFromContext<WaitingQuestion>(run, CONTEXT_FIELD);
	const req = run.ctx.getRequestObject();
	const params = new URL(req.originalUrl ?? req.url ?? '', 'http://link').searchParams;
	const key = params.get(KEY_PARAM) ?? '';
	if (!waiting || !sameText(key, waiting.key)) {
		const earlier = readFromContext<EarlierQuestion[]>(run, EARLIER_FIELD)?.find((e) => sameText(key, e.key));
		return { ok: false, status: 410, earlier: earlier?.question };
	}
	if (!sameText(sortedQuery(params), waiting.query)) return { ok: false, status: 401 };
	return { ok: true, waiting };
}
