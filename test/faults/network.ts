/**
 * Network faults on the first attempt, then the service's retry: the first sender hangs up before the body,
 * in the middle of it, at 0 ms or some milliseconds after it, resets the connection, or sends its body slowly; the
 * same body is then sent again, freshly signed, as the service retries. The re-send must be answered 2xx
 * within seconds, and the event must run exactly once. Raw sockets, so each fault happens exactly where named.
 */
import { signedRequest } from '../trigger/requests';
import { bytesOf, open, rawPost, type RawRequest, readAnswer, write } from '../e2e/lib/raw-http';
import { sleep } from '../../tools/n8n/proc';
import { deliver, messageEvent, nowSeconds } from '../queue/deliver';

/** How long a re-send may take to be answered: "within seconds" (a copy never waits longer than the trigger's 10 s). */
export const RESEND_ANSWER_MS = 5_000;
/** The retry comes this long after the first attempt, so the first attempt has reached the trigger. */
const RESEND_AFTER_MS = 300;

export interface NetworkFault {
	/** The case's name, as in the suite's output. */
	name: string;
	/** Events per case. */
	events: number;
	/** Sends the first attempt of event `n` with the fault; resolves once the sender is done with it. */
	firstAttempt(url: URL, request: RawRequest, n: number, resend: () => void): Promise<void>;
}


async function hangUpAfter(url: URL, request: RawRequest, ms: number, reset = false): Promise<void> {
	const socket = await open(url);
	socket.on('error', () => undefined);
	await write(socket, bytesOf(request));
	if (ms > 0) await sleep(ms);
	if (reset) socket.resetAndDestroy();
	else socket.destroy();
}

/** Hang-ups this many ms after the body: the trigger's answer path is reached within a few ms here (issue 29: 0-55 ms). */
const HANG_UP_DELAYS_MS = [1, 3, 5, 8, 12, 18, 27, 40, 55];

export const NETWORK_FAULTS: NetworkFault[] = [
	{
		name: 'the sender hangs up before the body (after the headers)',
		events: 2,
		firstAttempt: async (url, request) => {
			const socket = await open(url);
			socket.on('error', () => undefined);
			await write(socket, request.head);
			await sleep(50);
			socket.destroy();
		},
	},
	{
		name: 'the sender hangs up in the middle of the body',
		events: 2,
		firstAttempt: async (url, request) => {
			const socket = await open(url);
			socket.on('error', () => undefined);
			await write(socket, Buffer.concat([Buffer.from(request.head), request.body.subarray(0, request.body.length >> 1)]));
			await sleep(50);
			socket.destroy();
		},
	},
	{
		name: 'the sender hangs up at 0 ms (right after the last byte)',
		events: 3,
		firstAttempt: async (url, request) => await hangUpAfter(url, request, 0),
	},
	{
		name: `the sender hangs up ${HANG_UP_DELAYS_MS[0]} to ${HANG_UP_DELAYS_MS[HANG_UP_DELAYS_MS.length - 1]} ms after the body`,
		events: HANG_UP_DELAYS_MS.length,
		firstAttempt: async (url, request, n) => await hangUpAfter(url, request, HANG_UP_DELAYS_MS[n]),
	},
	{
		name: 'the connection is reset right after the body',
		events: 3,
		firstAttempt: async (url, request) => await hangUpAfter(url, request, 0, true),
	},
	{
		// The retry arrives while the first body is still coming in; both are answered 2xx, one runs.
		name: 'the first sender sends its body slowly (2 s), the retry comes meanwhile',
		events: 2,
		firstAttempt: async (url, request, _n, resend) => {
			const socket = await open(url);
			const answer = readAnswer(socket);
			await write(socket, request.head);
			const pieces = 4;
			const size = Math.ceil(request.body.length / pieces);
			for (let i = 0; i < pieces; i++) {
				await write(socket, request.body.subarray(i * size, (i + 1) * size));
				if (i === 1) resend();
				if (i < pieces - 1) await sleep(500);
			}
			const answered = (await answer).status;
			if (answered < 200 || answered >= 300) throw new Error(`the slow first attempt was answered ${answered}`);
		},
	},
];

export interface FaultOutcome {
	/** Message ids of the events sent. */
	ids: string[];
	/** Per event: the re-send's status (0: no answer within RESEND_ANSWER_MS) and how long it took. */
	resends: Array<{ id: string; status: number; ms: number; error?: string }>;
}

/** Runs one fault for its events, one after another, and the re-send of each. */
export async function runNetworkFault(fault: NetworkFault, url: string, secret: string, tag: string): Promise<FaultOutcome> {
	const target = new URL(url);
	const ids: string[] = [];
	const resends: FaultOutcome['resends'] = [];
	for (let n = 0; n < fault.events; n++) {
		const id = `net-${tag}-${n}`;
		ids.push(id);
		const body = messageEvent(id);
		let resent: Promise<void> | undefined;
		const resend = () => {
			resent ??= (async () => {
				const t0 = Date.now();
				const answer = await deliver(secret, { url, body, timestamp: nowSeconds() }, RESEND_ANSWER_MS);
				resends.push({ id, status: answer.status, ms: Date.now() - t0, error: answer.error });
			})();
		};
		await fault.firstAttempt(target, rawPost(target, signedRequest(secret, body, nowSeconds()).headers, body), n, resend);
		if (!resent) {
			await sleep(RESEND_AFTER_MS);
			resend();
		}
		await resent;
	}
	return { ids, resends };
}
