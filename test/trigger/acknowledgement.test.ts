/**
 * How the trigger takes over n8n's answer to an event it handed over (acknowledgement.ts), on a real Node HTTP
 * server: it learns n8n's answer when n8n gives it, also when the sender hung up first, and the sender gets
 * the trigger's answer (without n8n 2.x's `resumeToken`). Until the trigger learns n8n's answer, every copy of
 * that event waits for it (deliveryStore.ts), so a missed answer would block the event's retries. n8n answers
 * with Express's `res.send`, `res.status` and `res.json`; the server below gives Node's response those three,
 * written as Express writes them, and answers as n8n's `handleHostedChatResponse` does: `send` once the run
 * exists, the response ended a tick later. In real n8n: the e2e, versions and fault suites.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { type N8nAnswer, runStarted, takeOverAnswer } from '../../nodes/BusinessMessagingTrigger/acknowledgement';

type ExpressResponse = ServerResponse & { send(body: unknown): ExpressResponse; status(code: number): ExpressResponse; json(body: unknown): ExpressResponse };

/** Express's three methods on Node's response, as n8n's server has them. */
function express(res: ServerResponse): ExpressResponse {
	const r = res as ExpressResponse;
	r.status = (code) => {
		r.statusCode = code;
		return r;
	};
	r.json = (body) => r.send(JSON.stringify(body));
	r.send = (body) => {
		if (typeof body === 'object' && body !== null && !Buffer.isBuffer(body)) return r.json(body);
		if (!r.headersSent) r.setHeader('Content-Type', 'application/json');
		r.end(body as string);
		return r;
	};
	return r;
}

type Moment = 'with the sender waiting' | 'after the sender hung up';

/**
 * Sends one request; n8n answers `n8nStatus` (200: the run exists, as hostedChat answers; else its error) at
 * `moment`. Resolves with what the trigger learnt and what the sender got.
 */
async function answerAt(moment: Moment, n8nStatus = 200): Promise<{ learnt: N8nAnswer | 'nothing'; sent: string }> {
	let learnt: N8nAnswer | 'nothing' = 'nothing';
	const server = createServer((req: IncomingMessage, plain) => {
		req.resume();
		const res = express(plain);
		takeOverAnswer(res as never, (n8n) => {
			learnt = n8n;
			return runStarted(n8n);
		});
		const n8nAnswers = () => {
			if (n8nStatus === 200) res.send({ executionStarted: true, executionId: '7', resumeToken: 'secret-token' });
			else res.status(n8nStatus).json({ code: n8nStatus, message: 'Error in workflow' });
			process.nextTick(() => res.end());
		};
		if (moment === 'with the sender waiting') n8nAnswers();
		else req.socket.once('close', () => setImmediate(n8nAnswers));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const socket = connect(port, '127.0.0.1');
	let sent = '';
	socket.on('data', (chunk) => (sent += chunk.toString('utf8')));
	socket.on('error', () => undefined);
	const body = '{"event":"message.received"}';
	socket.write(`POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
	let closed = false;
	socket.once('close', () => (closed = true));
	if (moment === 'after the sender hung up') setTimeout(() => socket.destroy(), 20);
	// Until the trigger learnt n8n's answer and the sender's connection ended (or 10 s: then the checks fail). Not the
	// suite's waitFor (test/sandbox/test-helpers.ts): this file also runs on Node 20, where that module's undici does not load.
	const giveUpAt = Date.now() + 10_000;
	while ((learnt === 'nothing' || !closed) && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 10));
	socket.destroy();
	await new Promise((resolve) => server.close(resolve));
	return { learnt, sent };
}

describe("the trigger takes over n8n's answer to a handed-over event", () => {
	it('learns that the run exists, and answers 200 with the run, without the resume token', async () => {
		const { learnt, sent } = await answerAt('with the sender waiting');
		expect(learnt).toMatchObject({ runExists: true, executionId: '7' });
		expect(sent).toMatch(/^HTTP\/1\.1 200 /);
		expect(sent).toContain('{"executionStarted":true,"executionId":"7"}');
		expect(sent).not.toContain('secret-token');
	});

	it('learns it also when n8n answers after the sender hung up', async () => {
		const { learnt, sent } = await answerAt('after the sender hung up');
		expect(learnt).toMatchObject({ runExists: true, executionId: '7' });
		expect(sent).toBe('');
	});

	it("passes n8n's refusal on as n8n answered it, so the service retries and a copy can take over", async () => {
		const { learnt, sent } = await answerAt('with the sender waiting', 500);
		expect(learnt).toMatchObject({ runExists: false, status: 500 });
		expect(sent).toMatch(/^HTTP\/1\.1 500 /);
		expect(sent).toContain('Error in workflow');
	});

	it('learns a refusal also after the sender hung up', async () => {
		const { learnt } = await answerAt('after the sender hung up', 503);
		expect(learnt).toMatchObject({ runExists: false, status: 503 });
	});
});
