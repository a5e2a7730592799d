import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { type MessageStatusSummary, type ReplyOutcome, STATUS_SUMMARY_TYPE } from '../../shared/sharing';
import { readFromContext } from '../helpers/nodeContext';
import type { RunState } from '../helpers/runState';
import { answer, signedRequest, waitIdOf } from '../helpers/signedResume';
import { type KeptStatusWait, STATUS_WAIT_FIELD, statusWaitOutput } from './statusWait';

/**
 * The resume address of a run waiting for statuses (statusWait.ts): the sharing trigger posts its summary here
 * once every message reached the status, signed with the Webhook Secret. Anything not so signed is answered
 * 401 and resumes nothing, so the address alone resumes nothing; a signed GET says the run still waits (the
 * trigger asks so until n8n holds the resumed run, as for a chat reply).
 */

/** Whether the execution this request resumes waits at this node for statuses. */
export const waitsForStatusHere = (run: RunState<IWebhookFunctions>) => readFromContext<KeptStatusWait>(run, STATUS_WAIT_FIELD) !== undefined;

const other = (ctx: IWebhookFunctions, reason: string) => answer(ctx, 422, { outcome: 'other' satisfies ReplyOutcome, reason });

export async function statusWaitWebhook(run: RunState<IWebhookFunctions>): Promise<IWebhookResponseData> {
	const ctx = run.ctx;
	const signed = await signedRequest(run);
	if ('refused' in signed) return signed.refused;
	const kept = readFromContext<KeptStatusWait>(run, STATUS_WAIT_FIELD)!;
	if (waitIdOf(ctx) !== kept.id) return other(ctx, 'the node waits for other messages');
	if (ctx.getRequestObject().method !== 'POST') return answer(ctx, 200, { outcome: 'waiting' satisfies ReplyOutcome });
	let body: IDataObject;
	try {
		body = JSON.parse(signed.rawBody.toString('utf8')) as IDataObject;
	} catch {
		return other(ctx, 'not JSON');
	}
	if (body?.type !== STATUS_SUMMARY_TYPE || body.wait !== kept.id) return other(ctx, 'not a summary of this wait');
	const statuses = (typeof body.statuses === 'object' && body.statuses !== null ? body.statuses : {}) as Record<string, MessageStatusSummary>;
	const items = statusWaitOutput(kept, statuses);
	// n8n answers with `webhookResponse` once it holds the resumed run (2.41; earlier versions just before).
	return { workflowData: [items], webhookResponse: { outcome: 'resumed' satisfies ReplyOutcome } };
}
