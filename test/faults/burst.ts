/**
 * One burst-and-kill round as an operator would see it: distinct signed events sent 8 at a time to one n8n
 * process, the process killed right after the Nth 2xx answer, restarted on the same user folder and
 * database, every event not answered 2xx re-sent as the service retries, then every event sent looked up
 * in the saved executions of each workflow that must run it (one, or a sharing trigger's and those receiving
 * through it) by its message id. A stall instead stops the process (SIGSTOP) for longer than the service
 * waits for an answer and lets it go on (SIGCONT), with no restart.
 */
import { latestExecutionId } from '../../bench/lib/n8n-runs';
import type { N8n, N8nCommand } from '../../tools/n8n/n8n';
import { sleep, STALL_MS, stall } from '../../tools/n8n/proc';
import { DEFAULT_DELIVERY_TIMEOUT_MS } from '../../tools/sandbox/webhooks';
import { type Answer, deliver, messageEvent, nowSeconds } from '../queue/deliver';
import { lookUp, sent } from './lookup';

export const CONCURRENCY = 8;

/** How many events a round sends, and the 2xx answer its disruption comes right after. */
export interface BurstSize {
	events: number;
	killAfter: number;
}

/**
 * SIGKILL: 40 events, after the 20th 2xx. What a kill can lose is the events in flight at that moment (CONCURRENCY
 * of them), so a loss shows however long the burst ran before it: the trigger broken to answer before its run exists
 * lost events in every such round (docs/evidence/2026-12-01-issue-50-bursts-40/). SIGSTOP: 100 events, after the
 * 50th: broken to take a copy as new, the trigger ran events twice in every stall of that size
 * (docs/evidence/2026-11-28-issue-50-bursts/), but at 40 after the 20th one stall in queue mode of three ran none
 * twice. SIGTERM: n8n answers on through its graceful shutdown (up to 30 s), so what matters is what comes during
 * it: 200 events after the 20th 2xx (100 to a sharing trigger, whose events run three times each), as many after the
 * signal as the rounds of 400 after the 200th had; broken to answer before its run exists, the trigger lost events
 * in 5 of the 9 SIGTERM rounds in both of two runs, and the rounds that lost none lost none at the old size either
 * (docs/evidence/2026-12-01-issue-50-sigterm/).
 * Nothing checks that some are re-sent: under the recommended expression setting n8n takes them all before it exits.
 */
export function burstSize(kill: Disruption, sharing: boolean): BurstSize {
	if (kill === 'SIGKILL') return { events: 40, killAfter: 20 };
	if (kill === 'SIGSTOP') return { events: 100, killAfter: 50 };
	return sharing ? { events: 120, killAfter: 20 } : { events: 220, killAfter: 20 };
}
/** How long a SIGTERMed process gets before the round SIGKILLs it (n8n's own shutdown timeout is 30 s). */
const SHUTDOWN_WAIT_MS = 60_000;
/** How long the sender keeps retrying an event after the restart. */
const RETRY_FOR_MS = 120_000;

/** How a round ends a process: SIGKILL (as `docker kill` or the OOM killer) or SIGTERM (as `docker stop`). */
export type Kill = 'SIGKILL' | 'SIGTERM';
/**
 * What happens right after the Nth 2xx: a kill, followed by a restart, or a stall (SIGSTOP): the process
 * stops as if its event loop were blocked (or its container paused) while connections keep arriving, then
 * goes on (SIGCONT) after STALL_MS, with no restart.
 */
export type Disruption = Kill | 'SIGSTOP';

export interface Figures {
	/** Events answered 2xx by the burst (before and after the kill, before the restart). */
	acknowledged: number;
	/** Events whose first attempt reached n8n but got no 2xx (cut off by the kill, or answered an error): n8n may have run them before the retry did. */
	cutOff: number;
	/** Events re-sent after the restart (not answered 2xx in the burst). */
	resent: number;
	/** Re-sent events never answered 2xx within the retry time. */
	resentUnanswered: number;
	/** Events answered 2xx (in the burst or re-sent) that have no execution at all (counted per workflow). */
	lost: number;
	/** Events answered 2xx whose executions exist but none succeeded (crashed, error…) (counted per workflow). */
	unfinished: number;
	/** Executions beyond the first per event and workflow. */
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
	/** Ids of some lost events, and of some events run more than the margin allows (for the report; with the workflow when several). */
	lostIds: string[];
	extraIds: string[];
	/** Per workflow (when several): its name, lost events and extra runs. */
	byWorkflow: Array<{ name: string; lost: number; extraRuns: number }>;
}

export interface Round {
	/** The process the burst goes to, and the one killed and restarted. */
	target: N8n;
	command: N8nCommand;
	/** The process whose public API lists the executions (the same, or queue mode's main process). */
	reader: N8n;
	/** The workflows each event must run in exactly once: the receiver's, then those receiving through it. */
	workflows: Array<{ id: string; name: string }>;
	/** The receiver's production URL path (`/webhook/…`). */
	path: string;
	size: BurstSize;
	secret: string;
	kill: Disruption;
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
 * shutdown of its children to n8n. (A stall stops the main process only, whose event loop stalls: `stall`.)
 */
export function signal(process_: N8n, kill: Kill): void {
	const pid = process_.pid;
	if (pid === undefined) throw new Error('no process to kill');
	process.kill(kill === 'SIGKILL' ? -pid : pid, kill);
}

/** Seconds since the last lap (the round's start at first), for the log. */
function lapTimer(): () => string {
	let from = Date.now();
	return () => {
		const seconds = (Date.now() - from) / 1000;
		from = Date.now();
		return `${seconds.toFixed(1)} s`;
	};
}

/** One round's events: distinct ids, each with its body, registered with the suite's ledger; each workflow's last execution before them. */
async function roundEvents(r: Round) {
	const ids = Array.from({ length: r.size.events }, (_, n) => `fault-${r.tag}-${n}`);
	sent(ids);
	const before = await Promise.all(r.workflows.map(async (w) => await latestExecutionId(r.reader, w.id)));
	return { ids, bodies: ids.map((id) => messageEvent(id)), before, lap: lapTimer() };
}
type RoundEvents = Awaited<ReturnType<typeof roundEvents>>;

/** The service's retries: event n's body, freshly signed, until answered 2xx or the deadline passes. */
function serviceRetries(r: Round, events: RoundEvents, timeoutMs?: number) {
	const url = `${r.target.baseUrl}${r.path}`;
	const resent = new Set<number>();
	const answered = new Set<number>();
	let deadline = 0;
	const retries = {
		resent,
		answered,
		/** Whether an attempt reached n8n and got no answer (a timeout, a reset): that request may still be under way in it. */
		leftInN8n: false,
		retryFor: (ms: number) => (deadline = Date.now() + ms),
		retry: async (n: number) => {
			resent.add(n);
			for (;;) {
				const answer = await deliver(r.secret, { url, body: events.bodies[n], timestamp: nowSeconds() }, timeoutMs);
				if (answer.error && reachedN8n(answer)) retries.leftInN8n = true;
				if (is2xx(answer)) {
					answered.add(n);
					return;
				}
				if (Date.now() > deadline) return;
				await sleep(500);
			}
		},
	};
	return retries;
}
type ServiceRetries = ReturnType<typeof serviceRetries>;

/**
 * The burst: every event sent once, CONCURRENCY at a time; `disrupt` runs right after the `size.killAfter`th
 * 2xx, and the senders keep going. `afterDisruption(n)` runs for each event not answered 2xx from then on.
 */
async function burst(r: Round, events: RoundEvents, disrupt: () => void, timeoutMs?: number, afterDisruption?: (n: number) => Promise<void>): Promise<Answer[]> {
	const url = `${r.target.baseUrl}${r.path}`;
	const count = events.ids.length;
	const answers: Answer[] = new Array(count);
	let acknowledged = 0;
	let disrupted = false;
	const t0 = Date.now();
	let disruptedAt = 0;
	let sentBefore = 0;
	await pool(count, CONCURRENCY, async (n) => {
		answers[n] = await deliver(r.secret, { url, body: events.bodies[n], timestamp: nowSeconds() }, timeoutMs);
		if (is2xx(answers[n]) && ++acknowledged === r.size.killAfter && !disrupted) {
			disrupted = true;
			disruptedAt = Date.now();
			sentBefore = n + 1;
			disrupt();
		}
		if (disrupted && !is2xx(answers[n])) await afterDisruption?.(n);
	});
	if (!disrupted) throw new Error(`only ${acknowledged} of ${count} events were answered 2xx in ${((Date.now() - t0) / 1000).toFixed(1)} s; nothing was ${r.kill === 'SIGSTOP' ? 'stopped' : 'killed'}`);
	r.log(`burst phases: ${r.size.killAfter} answered 2xx (about ${sentBefore} sent) in ${((disruptedAt - t0) / 1000).toFixed(1)} s; the rest of the burst ${((Date.now() - disruptedAt) / 1000).toFixed(1)} s`);
	return answers;
}

/** A kill round: the burst, the kill, the restart, the service's retries of every event not answered 2xx. */
export async function burstAndKill(r: Round & { kill: Kill }): Promise<Figures> {
	const events = await roundEvents(r);
	const exited = r.target.exited;
	if (!exited) throw new Error('the target process is not running');
	let exitedAt = 0;
	void exited.then(() => (exitedAt = Date.now()));
	let killedAt = 0;
	const answers = await burst(r, events, () => {
		killedAt = Date.now();
		signal(r.target, r.kill);
	});
	const hung = !(await Promise.race([exited.then(() => true), sleep(SHUTDOWN_WAIT_MS).then(() => false)]));
	if (hung) {
		signal(r.target, 'SIGKILL');
		await exited;
	}
	const exitSeconds = (exitedAt - killedAt) / 1000;
	r.log(`${answers.filter(is2xx).length} of ${answers.length} answered 2xx; ${r.kill} after the ${r.size.killAfter}th; exited ${exitSeconds.toFixed(1)} s later${hung ? ' (hung: SIGKILLed)' : ''} (burst ${events.lap()})`);
	await r.target.start({ command: r.command });
	r.log(`restarted in ${events.lap()}`);
	const service = serviceRetries(r, events);
	service.retryFor(RETRY_FOR_MS);
	// The process that took the burst is gone: only the retries to the restarted one can have left a request in n8n.
	return { ...(await resendAndLookUp(r, events, answers, service, true)), exitSeconds, hung };
}

/**
 * A stall round: the burst, the process stopped for STALL_MS and continued. Each request waits as long as
 * the service waits; a sender that gave up retries at once, as when a stall outlasts the service's first
 * retry delay: the retry then waits in n8n's connection queue behind the first copy, and n8n takes both
 * when it goes on.
 */
export async function burstAndStall(r: Round): Promise<Figures> {
	const events = await roundEvents(r);
	const service = serviceRetries(r, events, DEFAULT_DELIVERY_TIMEOUT_MS);
	let continued: Promise<unknown> | undefined;
	const answers = await burst(
		r,
		events,
		() => {
			service.retryFor(STALL_MS + RETRY_FOR_MS);
			continued = stall(r.target.pid!);
		},
		DEFAULT_DELIVERY_TIMEOUT_MS,
		service.retry,
	).finally(async () => await continued);
	r.log(`${answers.filter(is2xx).length} of ${answers.length} answered 2xx; SIGSTOP after the ${r.size.killAfter}th; SIGCONT ${STALL_MS / 1000} s later; ${service.resent.size} re-sent at once meanwhile (burst ${events.lap()})`);
	// Nothing restarted: copies the senders gave up on during the stall may still be under way in n8n.
	return { ...(await resendAndLookUp(r, events, answers, service, false)), exitSeconds: 0, hung: false };
}

/**
 * Re-sends every event neither answered 2xx nor retried yet, then looks every event up in each workflow's
 * executions (their settling side by side).
 */
async function resendAndLookUp(r: Round, events: RoundEvents, answers: Answer[], service: ServiceRetries, restarted: boolean): Promise<Omit<Figures, 'exitSeconds' | 'hung'>> {
	const { ids, lap } = events;
	const acked = answers.map(is2xx);
	const cutOff = answers.map((a) => !is2xx(a) && reachedN8n(a));
	const resend = ids.map((_, n) => n).filter((n) => !acked[n] && !service.resent.has(n));
	await pool(resend.length, CONCURRENCY, async (i) => await service.retry(resend[i]));
	r.log(`${resend.length} re-sent in ${lap()}`);

	const requestsEnded = restarted && !service.leftInN8n;
	const lookups = await Promise.all(r.workflows.map(async (w, i) => await lookUp(r.reader, w.id, events.before[i], ids, r.log, requestsEnded)));
	r.log(`executions settled and looked up in ${lap()}`);
	const several = r.workflows.length > 1;
	const figures = { lost: 0, unfinished: 0, extraRuns: 0, extraRunsBeyondMargin: 0, unattributed: 0, lostIds: [] as string[], extraIds: [] as string[] };
	const byWorkflow = r.workflows.map((w, i) => {
		const { runsOf, unattributed } = lookups[i];
		const named = (id: string) => (several ? `${id} in "${w.name}"` : id);
		const mine = { name: w.name, lost: 0, extraRuns: 0 };
		figures.unattributed += unattributed;
		ids.forEach((id, n) => {
			const runs = runsOf.get(id) ?? [];
			const extra = Math.max(0, runs.length - 1);
			mine.extraRuns += extra;
			// The margin, from this burst: one extra run for an event cut off in flight (n8n may have run it
			// before it died, and the retry ran it after the restart); none for any other event.
			const beyond = extra - (cutOff[n] ? 1 : 0);
			if (beyond > 0) {
				figures.extraRunsBeyondMargin += beyond;
				figures.extraIds.push(named(id));
			}
			if (!acked[n] && !service.answered.has(n)) return;
			if (runs.length === 0) {
				mine.lost++;
				// Which 2xx it was: in the burst (before the kill or the stall) or to a re-send after it.
				figures.lostIds.push(`${named(id)} (2xx ${acked[n] ? 'in the burst' : 'to a re-send'})`);
			} else if (!runs.includes('success')) figures.unfinished++;
		});
		figures.lost += mine.lost;
		figures.extraRuns += mine.extraRuns;
		return mine;
	});
	return {
		...figures,
		acknowledged: acked.filter(Boolean).length,
		cutOff: cutOff.filter(Boolean).length,
		resent: service.resent.size,
		resentUnanswered: service.resent.size - service.answered.size,
		lookedUp: lookups[0].runsOf.size,
		byWorkflow: several ? byWorkflow : [],
	};
}
