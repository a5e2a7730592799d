import { randomBytes } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { CONFIRM_AFTER_MS, WAIT_ID_PARAM, WAITS_MESSAGE_TYPE, type WaitRegistration, type WaitsRequest } from '../../shared/sharing';
import { askSharingTrigger, findSharingTrigger, sharingProblem, sharingTriggerUrls } from '../../shared/sharingRequest';

/**
 * The asking node's side of the link to the Business Messaging Trigger that shares its account's events: where
 * the trigger is (n8n's own production webhook address, the same on every process), and telling it,
 * signed with the credential's Webhook Secret, which run waits for which customer. Every failure here
 * comes before the question is sent, with what to set up and where.
 */

const REGISTER_TRIES = 3;

export interface TriggerLink {
	/** The sharing triggers' webhooks, one per account this n8n may share for: the asking node uses its own account's. */
	urls: string[];
	/** This run's resume address for this node (n8n checks its token from 2.41 on). */
	resumeUrl: string;
}

/**
 * Both addresses, from n8n's own resume address of this execution (`$execution.resumeUrl`, with its
 * token on n8n 2.41): n8n's webhook base is its waiting-webhook base with `webhook` for `webhook-waiting`.
 */
export function triggerLink(ctx: IExecuteFunctions, waitId: string): TriggerLink {
	const resume = new URL(String(ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0)));
	const urls = sharingTriggerUrls(resume.toString(), 1);
	if (urls === undefined || !resume.pathname.includes('/webhook-waiting/')) {
		throw new NodeOperationError(ctx.getNode(), 'n8n’s waiting-webhook address is not the standard one', {
			description: `Ask and Wait for Chat Reply finds the trigger under n8n's /webhook/ and /webhook-waiting/ addresses; this n8n uses ${resume.origin}${resume.pathname.replace(/\/[^/]+$/, '')}. Nothing was sent. Leave N8N_ENDPOINT_WEBHOOK and N8N_ENDPOINT_WEBHOOK_WAIT at their defaults.`,
		});
	}
	resume.pathname = `${resume.pathname}/${encodeURIComponent(ctx.getNode().id)}`;
	resume.searchParams.set(WAIT_ID_PARAM, waitId);
	return { urls, resumeUrl: resume.toString() };
}

export function newWaitId(): string {
	return randomBytes(16).toString('base64url');
}

/** What the failure left behind: before the send nothing went out; a watch comes after the messages went out. */
const NOTHING_SENT = 'Nothing was sent.';
export const MESSAGES_SENT = 'The messages were sent, but the run cannot wait for their statuses.';

const unreachable = (ctx: IExecuteFunctions, url: string, error: unknown, state = NOTHING_SENT) =>
	new NodeOperationError(ctx.getNode(), `Could not reach n8n’s webhook address ${url}`, {
		description: `${(error as Error).message}. ${state} The wait is registered with the Business Messaging Trigger through n8n’s own production webhook address, set by n8n’s WEBHOOK_URL (on queue-mode workers too): set it to an address this n8n reaches.`,
	});

const refused = (ctx: IExecuteFunctions, statusCode: number, answer: IDataObject, state = NOTHING_SENT) => {
	const problem = sharingProblem(statusCode, answer);
	return new NodeOperationError(ctx.getNode(), problem.message, { description: `${problem.description} ${state}`.trim() });
};

/** The sharing trigger of this node's account (its Webhook Secret), and its answer to `request`; failures name what to set up. */
async function find(ctx: IExecuteFunctions, link: TriggerLink, secret: string, request?: WaitsRequest): Promise<{ url: string; answer: IDataObject }> {
	let found;
	try {
		found = await findSharingTrigger(async (options) => await ctx.helpers.httpRequest(options), link.urls, secret, request);
	} catch (error) {
		throw unreachable(ctx, link.urls[0], error);
	}
	if ('problem' in found) throw refused(ctx, found.problem.statusCode, found.problem.answer);
	return found;
}

/** One signed request to the sharing trigger at `url`; failures name what to set up. */
async function tell(ctx: IExecuteFunctions, url: string, secret: string, request: WaitsRequest, state?: string): Promise<IDataObject> {
	let res: { statusCode: number; answer: IDataObject };
	try {
		res = await askSharingTrigger(async (options) => await ctx.helpers.httpRequest(options), url, secret, request);
	} catch (error) {
		throw unreachable(ctx, url, error, state);
	}
	if (res.statusCode === 200) return res.answer;
	throw refused(ctx, res.statusCode, res.answer, state);
}

/** The trigger's workflow, as it names it in its answer. */
export interface TriggerWorkflow {
	id?: string;
	name?: string;
}

/** A registration the saved copy holds: where the trigger is, and its answers to the registration and the check. */
export interface Confirmed {
	url: string;
	workflow: TriggerWorkflow;
	registered: IDataObject;
	check: IDataObject;
}

/**
 * Registers `request` (its entry named `id`) with the sharing trigger (found by the Webhook Secret, or at
 * `url` once known), then checks after CONFIRM_AFTER_MS that n8n's saved copy holds it, registering again
 * when not (docs/conversations.md, "Where the waits live"). `state` says what a failure leaves behind.
 */
export async function registerConfirmed(
	ctx: IExecuteFunctions,
	link: TriggerLink,
	secret: string,
	request: WaitsRequest,
	id: string,
	at?: { url: string; state: string },
): Promise<Confirmed> {
	const found = at ? { url: at.url, answer: await tell(ctx, at.url, secret, request, at.state) } : await find(ctx, link, secret, request);
	const { url } = found;
	let registered = found.answer;
	for (let attempt = 1; ; attempt++) {
		if (attempt > 1) registered = await tell(ctx, url, secret, request, at?.state);
		await sleep(CONFIRM_AFTER_MS);
		const check = await tell(ctx, url, secret, { type: WAITS_MESSAGE_TYPE, action: 'check', id }, at?.state);
		if (check.saved === true) return { url, workflow: (registered.workflow ?? {}) as TriggerWorkflow, registered, check };
		if (attempt === REGISTER_TRIES) {
			throw new NodeOperationError(ctx.getNode(), 'n8n did not keep the wait', {
				description: `The trigger registered the wait ${REGISTER_TRIES} times, and each time n8n’s saved copy lost it again (another request of the trigger’s workflow saved over it). ${at?.state ?? NOTHING_SENT} Run the node again.`,
			});
		}
	}
}

/** Tells the sharing trigger at `url` once, without confirming: for what only saves it work (a wait that ended early). */
export async function tellTrigger(ctx: IExecuteFunctions, url: string, secret: string, request: WaitsRequest): Promise<void> {
	await tell(ctx, url, secret, request);
}

/** Registers a run's wait for a chat reply (registerConfirmed). */
export async function registerWait(ctx: IExecuteFunctions, link: TriggerLink, secret: string, wait: WaitRegistration): Promise<TriggerWorkflow> {
	return (await registerConfirmed(ctx, link, secret, { type: WAITS_MESSAGE_TYPE, action: 'register', wait }, wait.id)).workflow;
}

/** Only checks that the trigger is there and shares the Webhook Secret (a dry run registers nothing). */
export async function checkTrigger(ctx: IExecuteFunctions, link: TriggerLink, secret: string): Promise<TriggerWorkflow> {
	const { answer } = await find(ctx, link, secret);
	return (answer.workflow ?? {}) as TriggerWorkflow;
}
