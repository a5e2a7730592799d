import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySignature } from '../../../credentials/webhookSignature';
import { WAIT_ID_PARAM } from '../../shared/sharing';
import { webhookSecret } from '../../shared/webhookSecret';
import type { RunState } from './runState';

/**
 * A waiting run's resume address that only the Business Messaging Trigger may use: it answers only a request
 * signed with the credential's Webhook Secret within 300 s (the service's scheme, which the trigger keeps for
 * what it hands on), so someone who learns the address can neither resume the run nor learn whether it waits.
 */

/** Answers the trigger (or anyone calling the resume address) without resuming. */
export function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	const res = ctx.getResponseObject();
	res.status(status).setHeader('Cache-Control', 'no-store');
	res.json(body);
	return { noWebhookResponse: true };
}

/** The request's bytes when they carry a valid signature, else the 401 answered. */
export async function signedRequest(run: RunState<IWebhookFunctions>): Promise<{ rawBody: Buffer } | { refused: IWebhookResponseData }> {
	const ctx = run.ctx;
	const req = ctx.getRequestObject();
	if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') await req.readRawBody();
	const rawBody = Buffer.isBuffer(req.rawBody) ? req.rawBody : Buffer.alloc(0);
	// The trigger read the same credential a moment ago to check what it hands on: that reading serves here too.
	const secret = await webhookSecret(ctx);
	const headers = ctx.getHeaderData();
	const check = secret
		? verifySignature(secret, headers[SIGNATURE_HEADER], headers[TIMESTAMP_HEADER], rawBody, Math.floor(Date.now() / 1000))
		: { valid: false as const, reason: 'no webhook secret' };
	if (!check.valid) return { refused: answer(ctx, 401, { error: check.reason }) };
	return { rawBody };
}

/** The wait the resume address names (its `wait` parameter). */
export function waitIdOf(ctx: IWebhookFunctions): string | null {
	const req = ctx.getRequestObject();
	return new URL(req.originalUrl ?? req.url ?? '', 'http://resume').searchParams.get(WAIT_ID_PARAM);
}
