import type { IDataObject, IWebhookDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySignature } from '../../../credentials/webhookSignature';
import {
	MESSAGE_STATUSES,
	SHARE_AS,
	sharingPath,
	type StatusWaitRegistration,
	type StatusWatchRegistration,
	type SubscriptionRegistration,
	WAITS_MESSAGE_TYPE,
	WAITS_PATH,
	type WaitRegistration,
} from '../../shared/sharing';
import { webhookSecret } from '../../shared/webhookSecret';
import { RECEIVE_THROUGH_SHARING_TRIGGER, sharesWith, triggerScope } from './scope';
import { keptForNaming } from './statusHandOver';
import { keepStatusLimits, statusLimit } from './statusLimit';
import { COMPLETE_WHEN_WATCHED, RESUMED, StatusBook, type StatusWatch } from './statusWaits';
import { Subscriptions } from './subscriptions';
import { Waits } from './waits';

/**
 * The sharing trigger's second webhook: `<n8n webhook base>/business-messaging-replies`, registered only while
 * Share With Other Workflows (Resume Waiting Runs) is on (one trigger per service account: Share As), hidden in the editor.
 * The asking node registers its wait here, a trigger set to receive through this one its workflow, and each
 * checks afterwards that n8n saved it (registry.ts).
 */

/** Whether this request came to the waits webhook (of any account: `sharingPath`) rather than the service's. */
export function isWaitsRequest(context: IWebhookFunctions): boolean {
	const req = context.getRequestObject();
	const path = String(req.path ?? req.url ?? '').split('?')[0];
	return new RegExp(`/${WAITS_PATH}(-\\d)?/?$`).test(path);
}

function refuse(context: IWebhookFunctions, status: number, error: string): IWebhookResponseData {
	const res = context.getResponseObject();
	if (!res.headersSent) res.status(status).json({ error });
	return { noWebhookResponse: true };
}

const isPhone = (text: unknown) => typeof text === 'string' && /^\+?\d{7,15}$/.test(text);
const isId = (text: unknown) => typeof text === 'string' && /^[A-Za-z0-9_-]{8,64}$/.test(text);
const isList = (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === 'string' && /^[\w.*-]{1,64}$/.test(v));

function registrationOf(value: unknown): WaitRegistration | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const w = value as IDataObject;
	if (!isId(w.id) || !isPhone(w.customer) || (w.sender !== '' && !isPhone(w.sender))) return undefined;
	if (typeof w.resumeUrl !== 'string' || !/^https?:\/\//.test(w.resumeUrl)) return undefined;
	if (!Number.isFinite(w.until) || !Number.isFinite(w.askedAt)) return undefined;
	return { id: w.id as string, customer: w.customer as string, sender: w.sender as string, resumeUrl: w.resumeUrl, until: w.until as number, askedAt: w.askedAt as number };
}

function statusWaitOf(value: unknown): StatusWaitRegistration | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const w = value as IDataObject;
	if (!isId(w.id) || typeof w.resumeUrl !== 'string' || !/^https?:\/\//.test(w.resumeUrl)) return undefined;
	if (!Number.isFinite(w.until) || !Number.isFinite(w.askedAt) || !MESSAGE_STATUSES.includes(w.wanted as never)) return undefined;
	return { id: w.id as string, resumeUrl: w.resumeUrl, until: w.until as number, wanted: w.wanted as StatusWaitRegistration['wanted'], askedAt: w.askedAt as number };
}

/** A message id as the service writes one (no spaces: the stored form joins them with spaces). */
const isMessageId = (text: unknown) => typeof text === 'string' && /^[\x21-\x7e]{1,128}$/.test(text);

function statusWatchOf(value: unknown): StatusWatchRegistration | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const w = value as IDataObject;
	if (!isId(w.id) || !isId(w.wait) || !Array.isArray(w.messages) || w.messages.length === 0 || !w.messages.every(isMessageId)) return undefined;
	return { id: w.id as string, wait: w.wait as string, messages: [...new Set(w.messages as string[])] };
}

/**
 * A trigger's registration, when its URL is one of this n8n's webhook addresses (the sharing trigger posts
 * the service's events there, and nowhere else).
 */
function subscriptionOf(value: unknown, ownUrl: string): SubscriptionRegistration | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const s = value as IDataObject;
	if (!isId(s.id) || typeof s.key !== 'string' || !/^[\w-]{1,64}\/[\w-]{1,64}(\/test)?$/.test(s.key)) return undefined;
	if (!isList(s.events) || !isList(s.ignoreStatuses) || typeof s.workflow !== 'string') return undefined;
	if (!Number.isFinite(s.registeredAt) || !Number.isFinite(s.until)) return undefined;
	if (typeof s.url !== 'string' || !URL.canParse(s.url) || !URL.canParse(ownUrl)) return undefined;
	const url = new URL(s.url);
	if (url.origin !== new URL(ownUrl).origin || !/^\/webhook(-test)?\//.test(url.pathname)) return undefined;
	return { id: s.id as string, key: s.key, url: url.toString(), events: s.events as string[], ignoreStatuses: s.ignoreStatuses as string[], workflow: s.workflow.slice(0, 128), registeredAt: s.registeredAt as number, until: s.until as number };
}

/**
 * Answers a registration, its end or a check. The answer is n8n's (`webhookResponse`): n8n saves the static
 * data before it sends it (live-webhooks.js), so a registration answered 200 is in the database.
 */
export async function handleWaitsRequest(context: IWebhookFunctions, rawBody: Buffer): Promise<IWebhookResponseData> {
	const secret = await webhookSecret(context);
	if (secret === '') return refuse(context, 503, 'webhook secret not configured');
	const headers = context.getHeaderData();
	const check = verifySignature(secret, headers[SIGNATURE_HEADER], headers[TIMESTAMP_HEADER], rawBody, Math.floor(Date.now() / 1000));
	if (!check.valid) return refuse(context, 401, check.reason);
	let body: IDataObject;
	try {
		body = JSON.parse(rawBody.toString('utf8')) as IDataObject;
	} catch {
		return refuse(context, 400, 'body is not JSON');
	}
	if (body?.type !== WAITS_MESSAGE_TYPE) return refuse(context, 400, 'not a wait registration');
	const now = Date.now();
	const store = context.getWorkflowStaticData('node');
	const waits = new Waits(triggerScope(context), store, now);
	const subscriptions = new Subscriptions(triggerScope(context), store, now);
	const book = new StatusBook(triggerScope(context), store, now);
	const workflow = { id: context.getWorkflow().id, name: context.getWorkflow().name };
	const answer = (result: IDataObject): IWebhookResponseData => {
		keepStatusLimits(context, triggerScope(context), book);
		waits.writeBack();
		subscriptions.writeBack();
		book.writeBack();
		return { webhookResponse: { ...result, workflow } };
	};
	if (body.action === 'check' && typeof body.id === 'string') {
		const watch = book.watches.get(body.id);
		const saved = waits.saved(body.id) || subscriptions.saved(body.id) || book.waits.saved(body.id) || book.watches.saved(body.id);
		return answer({ saved, ...(watch ? watchTally(book, watch) : {}) });
	}
	if (body.action === 'registerStatusWait') {
		const registration = statusWaitOf(body.wait);
		if (!registration) return refuse(context, 400, 'invalid status wait registration');
		book.waits.register(registration);
		return answer({ registered: true });
	}
	if (body.action === 'endStatusWait' && typeof body.id === 'string') {
		// Nothing was sent after all, or the trigger resumed the run after its own answer was saved (statusHandOver.ts).
		const by = body.by === RESUMED ? RESUMED : 'nothing sent';
		const watch = book.watches.of(body.id);
		book.waits.done(body.id, by);
		if (watch) book.watches.done(watch.id, by);
		return answer({ ended: true });
	}
	if (body.action === 'recount' && typeof body.id === 'string' && typeof body.statuses === 'object' && body.statuses !== null) {
		// A request that took in a status and saved it, asking again after a pause: another process's save may have
		// dropped it (or taken in the other statuses meanwhile). Its count is taken in again and tallied with the saved copy.
		const watch = book.watches.get(body.id);
		const wait = watch && book.waits.get(watch.wait);
		if (!watch || !wait) return answer({ live: false });
		for (const [id, tally] of Object.entries(body.statuses as IDataObject)) if (watch.messages.includes(id)) book.statuses.merge(id, tally);
		return answer({ live: true, ...book.tally(watch, wait) });
	}
	if (body.action === 'keepStatuses' && typeof body.statuses === 'object' && body.statuses !== null) {
		const counts = Object.entries(body.statuses as IDataObject).filter(([id]) => isMessageId(id));
		return answer({ kept: true, notDone: await keptForNaming(context, book, counts) });
	}
	if (body.action === 'statusLimit' && typeof body.id === 'string') {
		return answer(await statusLimit(context, book, body.id));
	}
	if (body.action === 'watch') {
		const registration = statusWatchOf(body.watch);
		if (!registration) return refuse(context, 400, 'invalid status watch');
		const wait = book.waits.get(registration.wait);
		if (!wait) return refuse(context, 409, 'the status wait is not kept (it ended, or passed its limit)');
		book.watches.watch(registration, wait);
		return answer({ watching: true, ...watchTally(book, book.watches.get(registration.id)!) });
	}
	if (body.action === 'unsubscribe' && typeof body.key === 'string') {
		subscriptions.end(body.key, 'deactivated');
		return answer({ unsubscribed: true });
	}
	if (body.action === 'subscribe') {
		const subscription = subscriptionOf(body.subscription, context.getNodeWebhookUrl('default') ?? '');
		if (!subscription) return refuse(context, 400, 'invalid trigger registration');
		subscriptions.register(subscription);
		return answer({ subscribed: true });
	}
	const registration = body.action === 'register' ? registrationOf(body.wait) : undefined;
	if (!registration) return refuse(context, 400, 'invalid wait registration');
	waits.register(registration);
	return answer({ registered: true });
}

/**
 * What the node learns when it names its messages (and when it checks they were saved): the statuses known so
 * far. Every one may have come already (a fast service): the wait then ends here, and the node goes on at once
 * instead of waiting for a resume its run could not take yet.
 */
function watchTally(book: StatusBook, watch: StatusWatch): IDataObject {
	const wait = book.waits.get(watch.wait);
	if (!wait) return { complete: false, statuses: {} };
	const { complete, statuses } = book.tally(watch, wait);
	if (complete) book.end(wait, watch, COMPLETE_WHEN_WATCHED);
	return { complete, statuses };
}

/**
 * Registered only while the trigger shares its events: n8n skips a webhook whose method is empty. Declared with
 * n8n 2.41's native resolver too (n8n-workflow webhook-description-fields.js), so n8n reads the switch from the
 * node's parameters instead of evaluating an expression for every event (an expression costs an isolate per
 * event under N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE); earlier versions evaluate the template. Named `setup` (n8n's
 * other webhook name) so that the lifecycle of the trigger's `default` webhook (subscriber.ts) is not run for it.
 */
const METHOD_TEMPLATE = `={{$parameter["resumeWaitingRuns"] === true && $parameter["receiveFrom"] !== "${RECEIVE_THROUGH_SHARING_TRIGGER}" ? "POST" : ""}}`;
/** `sharingPath` of the trigger's Share As, as the template n8n evaluates before 2.41. */
const PATH_TEMPLATE = `={{$parameter["shareAs"] > 1 ? "${WAITS_PATH}-" + $parameter["shareAs"] : "${WAITS_PATH}"}}`;
const WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

/** The account a trigger shares as (Share As; 1 for a trigger saved without it). */
export function sharesAs(parameters: IDataObject): number {
	const account = Number(parameters.shareAs);
	return SHARE_AS.includes(account as (typeof SHARE_AS)[number]) ? account : 1;
}

export const WAITS_WEBHOOK: IWebhookDescription = {
	name: 'setup',
	httpMethod: METHOD_TEMPLATE,
	responseMode: 'onReceived',
	responseData: '',
	path: PATH_TEMPLATE,
	isFullPath: true,
	ndvHideUrl: true,
	[WEBHOOK_RESOLVERS]: {
		httpMethod: { template: METHOD_TEMPLATE, resolve: (parameters: IDataObject) => (sharesWith(parameters) ? 'POST' : '') },
		path: { template: PATH_TEMPLATE, resolve: (parameters: IDataObject) => sharingPath(sharesAs(parameters)) },
	},
};
