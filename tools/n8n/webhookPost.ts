import { sleep } from './proc';

/** n8n's answer to a POST to a Webhook node. */
export interface WebhookAnswer {
	status: number;
	text: string;
}

/**
 * POSTs `body` (JSON) to the production path of n8n's Webhook node at `baseUrl` (n8n's address, or one webhook
 * process's in queue mode) and returns n8n's answer. n8n registers an activated workflow's webhook a moment after
 * its API says it is active, each queue-mode process on its own: until then it answers 404 and starts nothing, so
 * a 404 is asked again, for `registeredWithinMs`. Nothing else is: a POST that got no answer within
 * `answerWithinMs` may still have started a run, and asking again could start a second.
 */
export async function postToWebhook(
	baseUrl: string,
	path: string,
	body: unknown,
	{ answerWithinMs = 45_000, registeredWithinMs = 30_000 }: { answerWithinMs?: number; registeredWithinMs?: number } = {},
): Promise<WebhookAnswer> {
	const url = `${baseUrl}/webhook/${path}`;
	const deadline = Date.now() + registeredWithinMs;
	for (;;) {
		let res: Response;
		try {
			res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(answerWithinMs) });
		} catch (error) {
			throw new Error(`POST ${url}: no answer within ${answerWithinMs} ms (${String(error)}); not sent again: it may have started a run`, { cause: error });
		}
		const text = await res.text();
		if (res.status !== 404) return { status: res.status, text };
		if (Date.now() >= deadline) throw new Error(`POST ${url}: still 404 (the webhook is not registered) after ${registeredWithinMs} ms: ${text.slice(0, 200)}`);
		await sleep(500);
	}
}
