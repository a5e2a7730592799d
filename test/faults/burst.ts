/**
 * One burst-and-kill round as an operator would see it: distinct signed events sent 8 at a time to one n8n
 * process, the process killed right after the Nth 2xx answer, restarted on the same user folder and
 * database, every event not answered 2xx re-sent as the service retries, then every event sent looked up
 * in the saved executions by its message id. A stall instead stops the process (SIGSTOP) for longer than the
 * service waits for an answer and lets it go on (SIGCONT), with no restart.
 */
import { latestExecutionId } from '../../bench/lib/n8n-runs';
import type { N8n, N8nCommand } from '../../tools/n8n/n8n';
import { sleep } from '../../tools/n8n/proc';
import { DEFAULT_DELIVERY_TIMEOUT_MS } from '../../tools/sandbox/webhooks';
import { type Answer, deliver, messageEvent, nowSeconds } from '../queue/deliver';
import { lookUp, sent } from './lookup';

/** 200 acknowledged before the kill found n8n 2.3.6's loss in every run (issue 30): half of 400. */
export const EVENTS = 400;
export const CONCURRENCY = 8;
export const KILL_AFTER = 200;
/** How long a SIGTERMed process gets before the round SIGKILLs it (n8n's own shutdown timeout is 30 s). */
const SHUTDOWN_WAIT_MS = 60_000;
/** How long the sender keeps retrying an event after the restart. */
const RETRY_FOR_MS = 120_000;

/**
 * SIGSTOP is a stall, not a kill: the process stops as if its event loop were blocked (or its container
 * paused) while connections keep arriving, then goes on (SIGCONT) after STALL_MS.
 */
export type Kill = 'SIGKILL' | 'SIGTERM' | 'SIGSTOP';
/** Longer than the service waits for an answer (the sandbox's delivery timeout), so senders give up and retry. */
const STALL_MS = 15_000;

export interface Figures {
	/** Events answered 2xx by the burst (before and after the kill, before the restart). */
	acknowledged: number;
	/** Events whose first attempt reached n8n but got no 2xx (cut off by the kill, or answered an error): n8n may have run them before the retry did. */
	cutOff: number;
	/** Events re-sent after the restart (not answered 2xx in the burst). */
	resent: number;
	/** Re-sent events never answered 2xx within the retry time. */
	resentUnanswered: number;
	/** Events answered 2xx (in the burst or re-sent) that have no execution at all. */
	lost: number;
	/** Events answered 2xx whose executions exist but none succeeded (crashed, error…). */
	unfinished: number;
	/** Executions beyond the first per event. */
	extraRuns: number;
	/** Extra executions beyond the margin: more than one for an event not cut off, more than two for one cut off. */
	extraRunsBeyondMargin: number;
	/** Executions carrying none of this round's events. */
	unattributed: number;
	/** Events looked up in the executions (all of them). */
	lookedUp: number;
	/** Seconds from the signal until the process exited. */
	exitSeconds: number;
	/** The process did not exit within SHUTDOWN_WAIT_MS of SIGTERM and was SIGKILLed. */
	hung: boolean;
	/** Ids of some lost events, and of some events run more than the margin allows (for the report). */
	lostIds: string[];
	extraIds: string[];
}

export interface Round {
	/** The process the burst goes to, and the one killed and restarted. */
	target: N8n;
	command: N8nCommand;
	/** The process whose public API lists the executions (the same, or queue mode's main process). */
	reader: N8n;
	workflowId: string;
	/** The receiver's production URL path (`/webhook/…`). */
	path: string;
	secret: string;
	kill: Kill;
	/** Unique per round: part of every event's message id. */
	tag: string;
	log: (line: string) => void;
}

const is2xx = (a: Answer) => a.status >= 200 && a.status < 300;
/** Refused connections never reached n8n; every other failed first attempt may have. */
const reachedN8n = (a: Answer) => a.error !== 'ECONNREFUSED';

/** Runs `work(i)` for i in 0..count-1, `concurrency` at a time, each taking the next index. */
async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) await work(next++);
		}),
	);
}

/**
 * SIGKILL goes to the whole process group (the main process and its task runner), as `docker kill` or
 * the OOM killer ends a container; SIGTERM to the main process only, as `docker stop` does, leaving the
 * shutdown of its children to n8n; SIGSTOP and SIGCONT to the main process only, whose event loop stalls.
 */
export function signal(process_: N8n, kill: Kill | 'SIGCONT'): void {
	const pid = process_.pid;
	if (pid === undefined) throw new Error('no process to kill');
	process.kill(kill === 'SIGKILL' ? -pid : pid, kill);
}

export async function burstAndKill(r: Round): Promise<Figures> {
	const url = `${r.target.baseUrl}${r.path}`;
	const idOf = (n: number) => `fault-${r.tag}-${n}`;
	const ids = Array.from({ length: EVENTS }, (_, n) => idOf(n));
	const bodies = ids.map((id) => messageEvent(id));
	sent(ids);
	const before = await latestExecutionId(r.reader, r.workflowId);
	const exited = r.target.exited;
	if (!exited) throw new Error('the target process is not running');
	let exitedAt = 0;
	void exited.then(() => (exitedAt = Date.now()));

	const t0 = Date.now();
	const stall = r.kill === 'SIGSTOP';
	// During a stall each request waits as long as the service waits, then the sender gives up on it.
	const timeoutMs = stall ? DEFAULT_DELIVERY_TIMEOUT_MS : undefined;
	const resent = new Set<number>();
	const answeredOnResend = new Set<number>();
	let retryUntil = 0;
	/** The service's retries of event n: the same body, freshly signed, until answered 2xx or retryUntil. */
	const retry = async (n: number) => {
		resent.add(n);
		for (;;) {
			if (is2xx(await deliver(r.secret, { url, body: bodies[n], timestamp: nowSeconds() }, timeoutMs))) {
				answeredOnResend.add(n);
				return;
			}
			if (Date.now() > retryUntil) return;
			await sleep(500);
		}
	};

	// The burst: the sender keeps going after the kill (refused or reset from then on). In a stall a sender
	// that gave up retries at once, as when a stall outlasts the service's first retry delay: the retry then
	// waits in n8n's connection queue behind the first copy, and n8n takes both when it goes on.
	const answers: Answer[] = new Array(EVENTS);
	let acknowledged = 0;
	let killedAt = 0;
	let continued: Promise<void> | undefined;
	try {
		await pool(EVENTS, CONCURRENCY, async (n) => {
			answers[n] = await deliver(r.secret, { url, body: bodies[n], timestamp: nowSeconds() }, timeoutMs);
			if (is2xx(answers[n]) && ++acknowledged === KILL_AFTER && !killedAt) {
				killedAt = Date.now();
				signal(r.target, r.kill);
				if (stall) {
					retryUntil = killedAt + STALL_MS + RETRY_FOR_MS;
					continued = sleep(STALL_MS).then(() => signal(r.target, 'SIGCONT'));
				}
			}
			if (stall && killedAt && !is2xx(answers[n])) await retry(n);
		});
	} finally {
		await continued;
	}
	if (!killedAt) throw new Error(`only ${acknowledged} of ${EVENTS} events were answered 2xx; nothing was killed`);
	const acked = answers.map(is2xx);
	const ackedCount = acked.filter(Boolean).length;
	const cutOff = answers.map((a) => !is2xx(a) && reachedN8n(a));

	const hung = !stall && !(await Promise.race([exited.then(() => true), sleep(SHUTDOWN_WAIT_MS).then(() => false)]));
	if (hung) {
		signal(r.target, 'SIGKILL');
		await exited;
	}
	const exitSeconds = stall ? 0 : (exitedAt - killedAt) / 1000;
	let lapFrom = t0;
	const lap = () => {
		const seconds = (Date.now() - lapFrom) / 1000;
		lapFrom = Date.now();
		return `${seconds.toFixed(1)} s`;
	};
	const after = stall ? `SIGCONT ${STALL_MS / 1000} s later; ${resent.size} re-sent at once meanwhile` : `exited ${exitSeconds.toFixed(1)} s later${hung ? ' (hung: SIGKILLed)' : ''}`;
	r.log(`${ackedCount} of ${EVENTS} answered 2xx; ${r.kill} after the ${KILL_AFTER}th; ${after} (burst ${lap()})`);

	// After a kill the restart; then the service's retries of every event not answered 2xx nor retried yet.
	if (!stall) {
		await r.target.start({ command: r.command });
		r.log(`restarted in ${lap()}`);
		retryUntil = Date.now() + RETRY_FOR_MS;
	}
	const resend = ids.map((_, n) => n).filter((n) => !acked[n] && !resent.has(n));
	await pool(resend.length, CONCURRENCY, async (i) => await retry(resend[i]));
	r.log(`${resend.length} re-sent in ${lap()}`);

	const { runsOf, unattributed } = await lookUp(r.reader, r.workflowId, before, ids);
	r.log(`executions settled and looked up in ${lap()}`);
	let lost = 0;
	let unfinished = 0;
	let extraRuns = 0;
	let extraRunsBeyondMargin = 0;
	const lostIds: string[] = [];
	const extraIds: string[] = [];
	ids.forEach((id, n) => {
		const runs = runsOf.get(id) ?? [];
		const extra = Math.max(0, runs.length - 1);
		extraRuns += extra;
		// The margin, from this burst: one extra run for an event cut off in flight (n8n may have run it
		// before it died, and the retry ran it after the restart); none for any other event.
		const beyond = extra - (cutOff[n] ? 1 : 0);
		if (beyond > 0) {
			extraRunsBeyondMargin += beyond;
			extraIds.push(id);
		}
		if (!acked[n] && !answeredOnResend.has(n)) return;
		if (runs.length === 0) {
			lost++;
			lostIds.push(id);
		} else if (!runs.includes('success')) unfinished++;
	});
	return {
		acknowledged: ackedCount,
		cutOff: cutOff.filter(Boolean).length,
		resent: resent.size,
		resentUnanswered: resent.size - answeredOnResend.size,
		lost,
		unfinished,
		extraRuns,
		extraRunsBeyondMargin,
		unattributed,
		lookedUp: runsOf.size,
		exitSeconds,
		hung,
		lostIds,
		extraIds,
	};
}
