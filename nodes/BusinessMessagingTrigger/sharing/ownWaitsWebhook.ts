import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { WaitsRequest } from '../../shared/sharing';
import { askSharingTrigger } from '../../shared/sharingRequest';
import { webhookSecret } from '../../shared/webhookSecret';

/**
 * A signed request of the trigger to its own waits webhook (endpoint.ts), which any process of this n8n takes; its
 * answer, or an error saying why there is none. Only this workflow's answer counts: while it is off, another
 * workflow that shares the account's events may hold the URL, and it knows nothing of this one's waits.
 */
export async function askOwnWaitsWebhook(context: IWebhookFunctions, url: string | undefined, request: WaitsRequest): Promise<IDataObject> {
	if (!url) throw new Error('the trigger has no waits webhook');
	const res = await askSharingTrigger(async (options) => await context.helpers.httpRequest(options), url, await webhookSecret(context), request);
	if (res.statusCode !== 200) throw new Error(`the trigger's waits webhook answered ${res.statusCode}`);
	const self = String(context.getWorkflow().id ?? '');
	const answeredFor = String((res.answer.workflow as IDataObject | undefined)?.id ?? '');
	if (answeredFor !== self) throw new Error(`the trigger's waits webhook answered for workflow ${answeredFor}, not for this one (${self}), which is off`);
	return res.answer;
}
