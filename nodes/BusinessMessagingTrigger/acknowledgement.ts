import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * The response mode n8n answers an event that starts the workflow in. `hostedChat` (the mode of n8n's Chat
 * Trigger) answers `{"executionStarted":true,"executionId":…}` right after `WorkflowRunner.run` has created
 * the execution (regular mode) or queued it (queue mode), on every supported version: 1.123, 2.3 and 2.41
 * (`handleHostedChatResponse` in n8n/dist/webhooks/webhook-helpers.js). `onReceived` answers before the run
 * exists up to n8n 2.7: a crash then loses events n8n had acknowledged (docs/trigger.md#what-a-200-means).
 * n8n's answer in this mode is sent outside the response callback that saves static data, so n8n saves none
 * for a request that starts a run (deliveryStore.ts hands the store over with the trigger's own answers).
 */
export const ACKNOWLEDGE_ONCE_RUN_EXISTS = 'hostedChat';

type Response = ReturnType<IWebhookFunctions['getResponseObject']>;

/**
 * Reports n8n's answer to a request whose run the trigger handed over: `true` for a 2xx (the run exists),
 * `false` for anything else. It listens for n8n ending the response ('prefinish'), not for the connection:
 * a sender that hangs up first closes the connection before n8n has decided, and n8n still creates the run
 * and ends the response afterwards (Node then leaves `headersSent` false, but the status code stays n8n's).
 */
export function reportAnswer(response: Response, settle: (acknowledged: boolean) => void): void {
	const settleNow = () => settle(response.statusCode >= 200 && response.statusCode < 300);
	if (response.writableEnded) settleNow();
	else response.once('prefinish', settleNow);
}
