import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

/**
 * The response mode n8n answers an event that starts the workflow in. `hostedChat` (the mode of n8n's Chat
 * Trigger) answers right after `WorkflowRunner.run` has created the execution (regular mode) or queued it
 * (queue mode), on every supported version: 1.123, 2.3 and 2.41 (`handleHostedChatResponse` in
 * n8n/dist/webhooks/webhook-helpers.js). `onReceived` answers before the run exists up to n8n 2.7: a crash then
 * loses events n8n had acknowledged (docs/trigger.md#what-a-200-means). n8n's answer in this mode is sent
 * outside the response callback that saves static data, so n8n saves none for a request that starts a run
 * (deliveryStore.ts hands the store over with the trigger's own answers).
 */
export const ACKNOWLEDGE_ONCE_RUN_EXISTS = 'hostedChat';

type Response = ReturnType<IWebhookFunctions['getResponseObject']>;

/** n8n's answer to a request whose run the trigger handed over. */
export interface N8nAnswer {
	/** n8n created (or queued) the run. */
	runExists: boolean;
	executionId?: string;
	/** n8n's own status and body, for the failures it answers (5xx). */
	status: number;
	body: unknown;
}

/** What the sender gets. */
export interface Answer {
	status: number;
	body: IDataObject;
}

function parsed(body: unknown): unknown {
	if (Buffer.isBuffer(body)) body = body.toString('utf8');
	if (typeof body !== 'string') return body;
	try {
		return JSON.parse(body) as unknown;
	} catch {
		return body;
	}
}

/**
 * Takes over n8n's answer to a request whose run the trigger hands to n8n, and answers with what `decide`
 * makes of it. n8n calls `res.send({executionStarted: true, executionId, …})` once the run exists
 * (`handleHostedChatResponse`), or `res.status(5xx).json(…)` when it could not create it (both reach `send`),
 * and ends the response a tick later. The trigger keeps both from the sender: so it learns n8n's answer
 * when n8n gives it, whatever the connection does (a sender that hung up never holds up its retry), and can
 * wait for the other workflows it hands the event to, and answers without what the sender has no need of
 * (n8n 2.x adds the run's `resumeToken`, which resumes its Wait nodes: docs/trigger.md#what-a-200-means).
 */
export function takeOverAnswer(response: Response, decide: (n8n: N8nAnswer) => Answer | Promise<Answer>): void {
	const { send, end } = response;
	let taken = false;
	const release = (answer: Answer) => {
		response.send = send;
		response.end = end;
		if (!response.headersSent) response.status(answer.status).json(answer.body);
		else response.end();
	};
	response.send = ((body: unknown) => {
		if (taken) return response;
		taken = true;
		const value = parsed(body) as IDataObject | undefined;
		const status = response.statusCode;
		const runExists = status >= 200 && status < 300 && value?.executionStarted === true;
		const executionId = runExists && value?.executionId !== undefined ? String(value.executionId) : undefined;
		Promise.resolve()
			.then(async () => await decide({ runExists, executionId, status, body: value }))
			.then(release, (error: Error) => release({ status: 500, body: { error: `internal error: ${error.message}` } }));
		return response;
	}) as Response['send'];
	// n8n ends the response a tick after its answer; the trigger ends it with its own.
	response.end = ((...args: Parameters<Response['end']>) => (taken ? response : end.apply(response, args))) as Response['end'];
}

/** n8n's answer as the service gets it when the run is all there is to wait for. */
export function runStarted(n8n: N8nAnswer): Answer {
	if (!n8n.runExists) return { status: n8n.status, body: (typeof n8n.body === 'object' && n8n.body !== null ? n8n.body : { error: String(n8n.body) }) as IDataObject };
	return { status: 200, body: { executionStarted: true, executionId: n8n.executionId } };
}
