import { randomBytes } from 'node:crypto';

import { NodeOperationError, sleep, type IDataObject, type IHookFunctions, type IHttpRequestOptions, type INodeParameters } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../../credentials/credentialType';
import { SHARE_AS, type SubscriptionRegistration, WAITS_MESSAGE_TYPE, type WaitsRequest } from '../../shared/sharing';
import { askSharingTrigger, findSharingTrigger, type Found, sharingProblem, sharingTriggerUrls } from '../../shared/sharingRequest';
import { secretIn } from '../../shared/webhookSecret';
import { sharesAs } from './endpoint';
import { RECEIVE_THROUGH_SHARING_TRIGGER, triggerScope } from './scope';

/**
 * A trigger's side of receiving through the sharing trigger (Receive Events: Through the Trigger That Shares
 * Them), on n8n's webhook lifecycle: when its workflow is activated it registers its Production URL and Events
 * with the sharing trigger (endpoint.ts), and ends the registration when deactivated; while the editor listens
 * for a test event, it registers its Test URL until n8n stops listening.
 *
 * Activation never fails for want of a sharing trigger: workflows are activated in any order, at n8n's start
 * too. Until the sharing trigger has the registration, this process tries again (5 s, doubling to a minute),
 * and afterwards checks it every CHECK_EVERY_MS, registering again when it is gone (say, the sharing
 * workflow was replaced). Listening in the editor fails at once, with what to set up.
 */

/** How often an active workflow checks that the sharing trigger still has its registration. */
const CHECK_EVERY_MS = 10 * 60_000;
const FIRST_RETRY_MS = 5_000;
const LONGEST_RETRY_MS = 60_000;
/** How long a test listener stays registered at most: n8n stops listening after two minutes. */
const LISTEN_FOR_MS = 5 * 60_000;

/** Whether a trigger with these parameters receives through the sharing trigger. */
export function receivesThroughSharingTrigger(parameters: INodeParameters): boolean {
	return parameters.receiveFrom === RECEIVE_THROUGH_SHARING_TRIGGER;
}

/** The trigger as the sharing trigger keeps it: `<workflow id>/<node id>`, `/test` while listening. */
function keyOf(context: IHookFunctions): string {
	return `${triggerScope(context)}${context.getMode() === 'manual' ? '/test' : ''}`;
}

interface Link {
	/** The sharing triggers' webhooks, one per account (`SHARE_AS`). */
	urls: string[];
	secret: string;
	/** The sharing trigger of this trigger's account (its Webhook Secret), with its answer to `request`. */
	find: (request: WaitsRequest) => Promise<Found>;
	/** One request to the sharing trigger at `url`. */
	tell: (url: string, request: WaitsRequest) => Promise<{ statusCode: number; answer: IDataObject }>;
}

async function linkOf(context: IHookFunctions): Promise<Link> {
	const own = context.getNodeWebhookUrl('default') ?? '';
	const urls = sharingTriggerUrls(own, 2);
	if (urls === undefined) {
		throw new NodeOperationError(context.getNode(), 'n8n’s webhook address is not the standard one', {
			description: `This trigger finds the sharing trigger under n8n's /webhook/ address; its own is ${own}. Leave N8N_ENDPOINT_WEBHOOK and N8N_ENDPOINT_WEBHOOK_TEST at their defaults.`,
		});
	}
	const secret = secretIn(await context.getCredentials(CREDENTIAL_TYPE));
	if (secret === '') {
		throw new NodeOperationError(context.getNode(), 'The credential has no Webhook Secret', {
			description: 'This trigger checks the signature of every event the sharing trigger passes on with the Webhook Secret: fill it in (from your service’s dashboard).',
		});
	}
	const httpRequest = async (options: IHttpRequestOptions) => await context.helpers.httpRequest(options);
	return {
		urls,
		secret,
		find: async (request) => await findSharingTrigger(httpRequest, urls, secret, request),
		tell: async (url, request) => await askSharingTrigger(httpRequest, url, secret, request),
	};
}

function registrationOf(context: IHookFunctions): SubscriptionRegistration {
	const options = context.getNodeParameter('options', {}) as { ignoreStatuses?: string[] };
	const now = Date.now();
	return {
		id: randomBytes(12).toString('base64url'),
		key: keyOf(context),
		url: context.getNodeWebhookUrl('default') ?? '',
		events: context.getNodeParameter('events', []) as string[],
		ignoreStatuses: options.ignoreStatuses ?? [],
		workflow: context.getWorkflow().name ?? '',
		registeredAt: now,
		until: context.getMode() === 'manual' ? now + LISTEN_FOR_MS : 0,
	};
}

/** Registers once with the sharing trigger of this account: where, and the answer's status (0: nothing answered). */
async function register(link: Link, registration: SubscriptionRegistration): Promise<{ url?: string; statusCode: number; answer: IDataObject }> {
	try {
		const found = await link.find({ type: WAITS_MESSAGE_TYPE, action: 'subscribe', subscription: registration });
		return 'problem' in found ? found.problem : { url: found.url, statusCode: 200, answer: found.answer };
	} catch (error) {
		return { statusCode: 0, answer: { error: (error as Error).message } };
	}
}

/** Sleeps `ms`, in steps, while `going()`: a deactivation ends the wait within a second. */
async function pause(ms: number, going: () => boolean): Promise<void> {
	for (let left = ms; left > 0 && going(); left -= 1000) await sleep(Math.min(left, 1000));
}

/** The registration this process keeps up, per trigger (`keyOf`): a later activation or a deactivation ends the earlier one's loop. */
const kept = new Map<string, string>();

/** Keeps the registration in the sharing trigger while this activation lasts (see the top of this file). */
function keepRegistered(context: IHookFunctions, link: Link, registration: SubscriptionRegistration, registeredAt: string | undefined): void {
	kept.set(registration.key, registration.id);
	const current = () => kept.get(registration.key) === registration.id;
	let where = registeredAt;
	void (async () => {
		let retry = FIRST_RETRY_MS;
		while (current()) {
			await pause(where ? CHECK_EVERY_MS : retry, current);
			if (!current()) return;
			if (where) {
				const check = await link.tell(where, { type: WAITS_MESSAGE_TYPE, action: 'check', id: registration.id }).catch(() => undefined);
				if (check === undefined || check.statusCode !== 200 || check.answer.saved === true) continue;
			}
			const { url, statusCode, answer } = await register(link, registration);
			where = url;
			const registered = statusCode === 200;
			retry = registered ? FIRST_RETRY_MS : Math.min(retry * 2, LONGEST_RETRY_MS);
			if (registered) context.logger.info(`Business Messaging Trigger: receives through the sharing trigger in workflow "${String((answer.workflow as IDataObject)?.name ?? '')}"`);
		}
	})();
}

/** n8n's webhook lifecycle for a trigger that receives through the sharing trigger. */
export async function subscribe(context: IHookFunctions): Promise<boolean> {
	const link = await linkOf(context);
	const registration = registrationOf(context);
	const { url, statusCode, answer } = await register(link, registration);
	if (context.getMode() === 'manual') {
		if (statusCode !== 200) {
			const problem = statusCode === 0 ? { message: `Could not reach n8n’s webhook address ${link.urls[0]}`, description: String(answer.error) } : sharingProblem(statusCode, answer);
			throw new NodeOperationError(context.getNode(), problem.message, { description: `${problem.description} This trigger receives its test event through it.` });
		}
		return true;
	}
	if (statusCode !== 200) {
		const problem = statusCode === 0 ? { message: 'n8n’s webhook address did not answer', description: String(answer.error) } : sharingProblem(statusCode, answer);
		context.logger.warn(`Business Messaging Trigger: ${problem.message}: this workflow receives nothing until then (it tries again). ${problem.description}`, { workflowId: context.getWorkflow().id });
	}
	keepRegistered(context, link, registration, url);
	return true;
}

/** Ends the registration (deactivated, or n8n stopped listening); an unreachable sharing trigger forgets it when it next finds this webhook gone. */
export async function unsubscribe(context: IHookFunctions): Promise<boolean> {
	const key = keyOf(context);
	kept.delete(key);
	try {
		const link = await linkOf(context);
		await link.find({ type: WAITS_MESSAGE_TYPE, action: 'unsubscribe', key });
	} catch {
		// n8n deactivates regardless; the sharing trigger drops a registration whose webhook answers 404.
	}
	return true;
}

/**
 * A sharing trigger's activation: refused when another workflow on this n8n already shares this account's
 * events (n8n would refuse a second webhook on the same path with a message that names neither workflow, or,
 * on 2.3, let the later one take it over), or shares another account's as the same Share As. Nothing answering
 * is no reason to refuse: at n8n's start the webhook processes may not serve yet.
 */
export async function ensureOnlySharer(context: IHookFunctions): Promise<void> {
	// Without a Webhook Secret the trigger refuses every event with 503 until it has one, as any trigger does.
	if (context.getMode() === 'manual' || secretIn(await context.getCredentials(CREDENTIAL_TYPE)) === '') return;
	const link = await linkOf(context);
	const account = sharesAs(context.getNode().parameters);
	const self = String(context.getWorkflow().id ?? '');
	for (const [i, url] of link.urls.entries()) {
		const probe = await link.tell(url, { type: WAITS_MESSAGE_TYPE, action: 'check', id: 'who-shares-here' }).catch(() => undefined);
		const other = (probe?.answer.workflow ?? {}) as IDataObject;
		const theirs = `workflow "${String(other.name ?? '')}" (${String(other.id ?? '')})`;
		if (probe?.statusCode === 200 && String(other.id ?? '') !== self) {
			throw new NodeOperationError(context.getNode(), `Another Business Messaging Trigger on this n8n already shares this account’s events: ${theirs}`, {
				description:
					'One trigger per service account shares: the one whose Production URL is in your service’s dashboard. Turn Share With Other Workflows off here and set Receive Events to Through the Trigger That Shares Them, or deactivate the other workflow first.',
			});
		}
		if (probe?.statusCode === 401 && SHARE_AS[i] === account) {
			throw new NodeOperationError(context.getNode(), `Another service account’s events are shared on this n8n as Account ${account}`, {
				description: `A trigger with another Webhook Secret shares as Account ${account}. Each service account whose events this n8n shares takes a number of its own: choose another one under Share As.`,
			});
		}
	}
}
