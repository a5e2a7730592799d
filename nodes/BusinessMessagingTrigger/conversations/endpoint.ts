import type { IDataObject, IWebhookDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySignature } from '../../../credentials/webhookSignature';
import { WAITS_MESSAGE_TYPE, WAITS_PATH, type WaitRegistration } from '../../shared/conversation';
import { webhookSecret } from '../../shared/webhookSecret';
import { Waits } from './waits';

/**
 * The trigger's second webhook: `<n8n webhook base>/business-messaging-replies`, registered only while
 * Resume Waiting Runs is on (one trigger per n8n instance), hidden in the editor. The asking node
 * registers its wait here and checks afterwards that n8n saved it.
 */

/** Whether this request came to the waits webhook rather than the service's. */
export function isWaitsRequest(context: IWebhookFunctions): boolean {
	const req = context.getRequestObject();
	const path = String(req.path ?? req.url ?? '').split('?')[0];
	return path.endsWith(`/${WAITS_PATH}`) || path.endsWith(`/${WAITS_PATH}/`);
}

/** Where n8n stores this trigger's waits, per workflow and node. */
export function waitsScope(context: IWebhookFunctions): string {
	return `${context.getWorkflow().id ?? ''}/${context.getNode().id}`;
}

function refuse(context: IWebhookFunctions, status: number, error: string): IWebhookResponseData {
	const res = context.getResponseObject();
	if (!res.headersSent) res.status(status).json({ error });
	return { noWebhookResponse: true };
}

function registrationOf(value: unknown): WaitRegistration | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const w = value as IDataObject;
	const phone = (text: unknown) => typeof text === 'string' && /^\+?\d{7,15}$/.test(text);
	if (typeof w.id !== 'string' || !/^[A-Za-z0-9_-]{8,64}$/.test(w.id)) return undefined;
	if (!phone(w.customer) || (w.sender !== '' && !phone(w.sender))) return undefined;
	if (typeof w.resumeUrl !== 'string' || !/^https?:\/\//.test(w.resumeUrl)) return undefined;
	if (!Number.isFinite(w.until) || !Number.isFinite(w.askedAt)) return undefined;
	return { id: w.id, customer: w.customer as string, sender: w.sender as string, resumeUrl: w.resumeUrl, until: w.until as number, askedAt: w.askedAt as number };
}

/**
 * Answers a registration or a check. The answer is n8n's (`webhookResponse`): n8n saves the static data
 * before it sends it (live-webhooks.js), so a registration answered 200 is in the database.
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
	const waits = new Waits(waitsScope(context), context.getWorkflowStaticData('node'), Date.now());
	const workflow = { id: context.getWorkflow().id, name: context.getWorkflow().name };
	if (body.action === 'check' && typeof body.id === 'string') {
		const saved = waits.saved(body.id);
		waits.writeBack();
		return { webhookResponse: { saved, workflow } };
	}
	const registration = body.action === 'register' ? registrationOf(body.wait) : undefined;
	if (!registration) return refuse(context, 400, 'invalid wait registration');
	waits.register(registration);
	waits.writeBack();
	return { webhookResponse: { registered: true, workflow } };
}

/**
 * Registered only while the trigger's Resume Waiting Runs is on: n8n skips a webhook whose method is
 * empty. Declared with n8n 2.41's native resolver too (n8n-workflow webhook-description-fields.js), so
 * n8n reads the switch from the node's parameters instead of evaluating an expression for every event
 * (an expression costs an isolate per event under N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE); earlier versions
 * evaluate the template.
 */
const METHOD_TEMPLATE = '={{$parameter["resumeWaitingRuns"] === true ? "POST" : ""}}';
const WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

export const WAITS_WEBHOOK: IWebhookDescription = {
	name: 'default',
	httpMethod: METHOD_TEMPLATE,
	responseMode: 'onReceived',
	responseData: '',
	path: WAITS_PATH,
	isFullPath: true,
	ndvHideUrl: true,
	[WEBHOOK_RESOLVERS]: {
		httpMethod: { template: METHOD_TEMPLATE, resolve: (parameters: IDataObject) => (parameters.resumeWaitingRuns === true ? 'POST' : '') },
	},
};
