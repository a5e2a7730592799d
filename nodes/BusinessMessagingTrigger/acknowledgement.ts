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
 * Reports n8n's answer to a request whose run the trigger handed over, once: `true` for a 2xx (the run
 * exists), `false` for anything else. It listens for n8n ending the response, not for the connection: a
 * sender that hangs up first closes the connection before n8n has decided, and n8n still creates the run and
 * ends the response afterwards (Node then leaves `headersSent` false, but the status code stays n8n's).
 * Node signals that end with 'prefinish', except while it is closing a connection the sender hung up (its
 * side already ended, the socket not yet destroyed): it then keeps the answer for a socket that takes no more
 * writes and never says 'prefinish'. So the response's 'close' counts too, when n8n had ended it by then.
 */
export function reportAnswer(response: Response, settle: (acknowledged: boolean) => void): void {
	let reported = false;
	const settleNow = () => {
		if (reported) return;
		reported = true;
		settle(response.statusCode >= 200 && response.statusCode < 300);
	};
	if (response.writableEnded) return settleNow();
	response.once('prefinish', settleNow);
	response.once('close', () => {
		if (response.writableEnded) settleNow();
	});
}
