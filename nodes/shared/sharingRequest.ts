import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { SIGNATURE_HEADER, signWebhookBody, TIMESTAMP_HEADER } from '../../credentials/webhookSignature';
import { SHARE_AS, sharingPath, WAITS_MESSAGE_TYPE, type WaitsRequest } from './sharing';

/**
 * How the asking node and a trigger that receives through the sharing trigger reach it: its webhook under
 * n8n's own production webhook address, with a request signed like the service's webhooks.
 */

/** The answer must come within this time. */
const REQUEST_TIMEOUT_MS = 30_000;

const WEBHOOK_ENDPOINTS = /\/(webhook|webhook-test|webhook-waiting)$/;

/**
 * The sharing triggers' webhooks, one per account (`SHARE_AS`), from any of this n8n's webhook addresses: a
 * trigger's Production or Test URL (`…/webhook/<id>/webhook`, `…/webhook-test/<id>/webhook`) or a run's resume
 * address (`…/webhook-waiting/<execution>`). Undefined when n8n's endpoints are not the standard ones.
 */
export function sharingTriggerUrls(webhookUrl: string, segmentsAfterEndpoint: number): string[] | undefined {
	const url = new URL(webhookUrl);
	const segments = url.pathname.split('/');
	const endpointPath = segments.slice(0, segments.length - segmentsAfterEndpoint).join('/');
	if (!WEBHOOK_ENDPOINTS.test(endpointPath)) return undefined;
	url.search = '';
	return SHARE_AS.map((account) => {
		url.pathname = `${endpointPath.replace(WEBHOOK_ENDPOINTS, '/webhook')}/${sharingPath(account)}`;
		return url.toString();
	});
}

/** An answer's JSON object, whether n8n's HTTP client parsed it already or not; {} when it is none. */
export function jsonOf(body: unknown): IDataObject {
	let value = Buffer.isBuffer(body) ? body.toString('utf8') : body;
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value);
		} catch {
			return {};
		}
	}
	return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as IDataObject) : {};
}

type HttpRequest = (options: IHttpRequestOptions) => Promise<unknown>;

/** One signed request to the sharing trigger; throws when the trigger did not answer. */
export async function askSharingTrigger(httpRequest: HttpRequest, url: string, secret: string, request: WaitsRequest): Promise<{ statusCode: number; answer: IDataObject }> {
	const body = JSON.stringify(request);
	const timestamp = String(Math.floor(Date.now() / 1000));
	const res = (await httpRequest({
		method: 'POST',
		url,
		body,
		json: false,
		headers: {
			'content-type': 'application/json',
			[SIGNATURE_HEADER]: signWebhookBody(secret, timestamp, body),
			[TIMESTAMP_HEADER]: timestamp,
		},
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: REQUEST_TIMEOUT_MS,
	})) as { statusCode: number; body: unknown };
	const answer = jsonOf(res.body);
	// The trigger's every 200 names its workflow (endpoint.ts). n8n's own 200 while its database is not ready
	// ("n8n is starting up. Please wait") is no answer of the trigger: taken as one, a count or a hand-over was lost.
	if (res.statusCode === 200 && typeof answer.workflow !== 'object') throw new Error('n8n answered instead of the trigger (is n8n starting up?)');
	return { statusCode: res.statusCode, answer };
}

/**
 * What a refusal of the sharing trigger means, in words, with what to do: for the asking node and for a
 * trigger that receives through it alike.
 */
export function sharingProblem(statusCode: number, answer: IDataObject): { message: string; description: string } {
	if (statusCode === 404) {
		return {
			message: 'No Business Messaging Trigger on this n8n shares your service’s events',
			description:
				'In the workflow whose Business Messaging Trigger has its Production URL in your service’s dashboard, open that trigger, turn on Share With Other Workflows, and activate (publish) the workflow.',
		};
	}
	if (statusCode === 401) {
		return {
			message: 'The Business Messaging Trigger that shares events uses another Webhook Secret',
			description:
				'This node’s credential and the sharing trigger’s need the same Webhook Secret (the one in your service’s dashboard): choose the sharing trigger’s credential here, or copy the secret into this node’s credential.',
		};
	}
	if (statusCode === 503) {
		return {
			message: 'The Business Messaging Trigger that shares events has no Webhook Secret',
			description: 'Fill in the Webhook Secret of the sharing trigger’s credential (from your service’s dashboard).',
		};
	}
	return { message: `The Business Messaging Trigger that shares events answered ${statusCode}`, description: String(answer.error ?? answer.message ?? '') };
}

/** The sharing trigger of this request's account, found, or the refusal that says best why not. */
export type Found = { url: string; answer: IDataObject } | { problem: { statusCode: number; answer: IDataObject } };

/**
 * Finds the sharing trigger of the account whose Webhook Secret is `secret`: the first of `urls` that takes
 * `request` (a check, unless given), signed (200). Another account's answers 401, a place nobody shares from
 * 404. Throws when none answered.
 */
export async function findSharingTrigger(httpRequest: HttpRequest, urls: string[], secret: string, request: WaitsRequest = { type: WAITS_MESSAGE_TYPE, action: 'check', id: 'which-account' }): Promise<Found> {
	let best: { statusCode: number; answer: IDataObject } | undefined;
	let failure: unknown;
	for (const url of urls) {
		try {
			const { statusCode, answer } = await askSharingTrigger(httpRequest, url, secret, request);
			if (statusCode === 200) return { url, answer };
			// What to tell: another secret (401) or no secret there (503) says more than nobody there (404).
			if (!best || best.statusCode === 404) best = { statusCode, answer };
		} catch (error) {
			failure = error;
		}
	}
	if (!best) throw failure;
	return { problem: best };
}
