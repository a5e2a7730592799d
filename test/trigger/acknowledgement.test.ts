/**
 * How the trigger learns n8n's answer to an event it handed over (acknowledgement.ts), on a real Node HTTP
 * server: also when the sender hung up just before n8n answered. Until the trigger learns it, every copy of
 * that event waits for it (deliveryStore.ts), so a missed answer blocks the event's retries.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { reportAnswer } from '../../nodes/BusinessMessagingTrigger/acknowledgement';

type Moment = 'before the sender hangs up' | 'while Node ends its side of the connection' | 'after the connection closed';

/**
 * Sends one request and hangs up 20 ms after its body, as a sender that gives up; n8n's answer (`status`)
 * ends the response at `moment`. Resolves with what reportAnswer reported within a second, or 'nothing'.
 */
async function answerAt(moment: Moment, status = 200): Promise<boolean | 'nothing'> {
	let reported: boolean | 'nothing' = 'nothing';
	const server = createServer((req, res) => {
		req.resume();
		reportAnswer(res, (acknowledged) => (reported = acknowledged));
		const answer = (r: ServerResponse) => {
			r.statusCode = status;
			r.setHeader('Content-Type', 'application/json');
			r.end('{"executionStarted":true,"executionId":"1"}');
		};
		if (moment === 'before the sender hangs up') answer(res);
		// Node's own 'end' handler ran first: it has ended the server's side, the socket is not destroyed yet.
		else if (moment === 'while Node ends its side of the connection') req.socket.once('end', () => answer(res));
		else req.socket.once('close', () => setImmediate(() => answer(res)));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const socket = connect(port, '127.0.0.1');
	socket.on('error', () => undefined);
	const body = '{"event":"message.received"}';
	socket.write(`POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
	setTimeout(() => socket.destroy(), 20);
	await new Promise((resolve) => setTimeout(resolve, 1000));
	await new Promise((resolve) => server.close(resolve));
	return reported;
}

describe("the trigger learns n8n's answer to a handed-over event", () => {
	it('when n8n answers before the sender hangs up', async () => {
		expect(await answerAt('before the sender hangs up')).toBe(true);
	});

	it('when n8n answers while Node is ending the connection the sender hung up (the answer never leaves)', async () => {
		expect(await answerAt('while Node ends its side of the connection')).toBe(true);
	});

	it('when n8n answers after the connection closed', async () => {
		expect(await answerAt('after the connection closed')).toBe(true);
	});

	it('a refusal (not 2xx) also in that window, so a copy can take over', async () => {
		expect(await answerAt('while Node ends its side of the connection', 500)).toBe(false);
	});
});
