/**
 * Looking events up in n8n's saved executions, and the suite's count of them: every event a case sends is
 * looked up, and the suite's closing line compares the two counts.
 */
import { executionsSince } from '../../bench/lib/n8n-runs';
import { type N8n, underWay } from '../../tools/n8n/n8n';
import { sleep, waitFor } from '../../tools/n8n/proc';

/** Executions are settled when their ids and statuses stay the same this long. */
const QUIET_MS = 5_000;
/**
 * Or this long, once every one has finished and no request of the case can still be under way in n8n (each was
 * answered, or went to a process that is gone): a run only comes from a request, and n8n answers one once its
 * run exists. A stall or a sender that hung up leaves requests inside n8n: those cases wait QUIET_MS.
 */
const FINISHED_QUIET_MS = 1_500;
/** How often the executions are listed while they settle (a list without data: a few ms per 100 executions). */
const SETTLE_POLL_MS = 250;
const SETTLE_TIMEOUT_MS = 240_000;

/** Events sent (how many, and their message ids) and looked up by the whole suite. */
export const ledger = { sends: 0, sent: new Set<string>(), lookedUp: new Set<string>() };

/** Notes events a case sends: an id sent twice would let one lookup count for both. */
export function sent(ids: string[]): void {
	ledger.sends += ids.length;
	for (const id of ids) ledger.sent.add(id);
}

/**
 * Waits until the public API answers: after a restart n8n before 2.x's later releases answers readiness
 * (and webhooks) before its API routes exist, 404 until then.
 */
export async function publicApiUp(reader: N8n): Promise<void> {
	await waitFor('the public API', async () => ((await reader.api('GET', '/executions?limit=1')).status === 200 ? true : undefined), 180_000, 500);
}

/**
 * Waits until the workflow's executions after `afterId` stop changing. `requestsEnded`: no request of the case
 * can still be under way in n8n (FINISHED_QUIET_MS).
 */
export async function settled(reader: N8n, workflowId: string, afterId: number, log?: (line: string) => void, requestsEnded = false): Promise<void> {
	const t0 = Date.now();
	await publicApiUp(reader);
	const apiUp = Date.now();
	const deadline = Date.now() + SETTLE_TIMEOUT_MS;
	let last = '';
	let stableSince = Date.now();
	let polls = 0;
	let pollMs = 0;
	for (;;) {
		const p0 = Date.now();
		const executions = await executionsSince(reader, workflowId, afterId);
		const snapshot = JSON.stringify(executions.map((e) => [e.id, e.status, Boolean(e.stoppedAt)]));
		polls++;
		pollMs += Date.now() - p0;
		const quietMs = requestsEnded && executions.every((e) => !underWay(e.status) && e.stoppedAt) ? FINISHED_QUIET_MS : QUIET_MS;
		if (snapshot !== last) {
			last = snapshot;
			stableSince = Date.now();
		} else if (Date.now() - stableSince >= quietMs) {
			log?.(`settle: public API ${apiUp - t0} ms, ${polls} polls (${pollMs} ms listing), last change ${stableSince - apiUp} ms after the API answered, settled ${Date.now() - t0} ms (${quietMs} ms quiet)`);
			return;
		}
		if (Date.now() > deadline) throw new Error(`executions still changing ${SETTLE_TIMEOUT_MS / 1000} s after the last request`);
		await sleep(SETTLE_POLL_MS);
	}
}

export interface Lookup {
	/** The statuses of each event's executions (empty: none), by message id. */
	runsOf: Map<string, string[]>;
	/** Executions that carry none of the events looked up. */
	unattributed: number;
}

/**
 * Once the executions settled, each event's executions (every event carries its message id
 * `wamid.queue.<id>` in its data: the trigger's output, or the stack still to run). Counts them as looked up.
 * `requestsEnded`: as for `settled`.
 */
export async function lookUp(reader: N8n, workflowId: string, afterId: number, ids: string[], log?: (line: string) => void, requestsEnded = false): Promise<Lookup> {
	await settled(reader, workflowId, afterId, log, requestsEnded);
	const wanted = new Set(ids);
	const runsOf = new Map<string, string[]>(ids.map((id) => [id, []]));
	let unattributed = 0;
	const l0 = Date.now();
	const executions = await executionsSince(reader, workflowId, afterId, true);
	log?.(`listing ${executions.length} executions with their data: ${Date.now() - l0} ms`);
	for (const e of executions) {
		const found = new Set([...JSON.stringify(e.data ?? {}).matchAll(/wamid\.queue\.([\w.-]+)/g)].map((m) => m[1]).filter((id) => wanted.has(id)));
		if (found.size === 0) unattributed++;
		for (const id of found) runsOf.get(id)!.push(e.status);
	}
	for (const id of ids) ledger.lookedUp.add(id);
	return { runsOf, unattributed };
}

/** A CORS preflight answers 204 once the path is registered, and starts nothing (a probe POST would run the Webhook node). */
export async function registered(url: string): Promise<void> {
	await waitFor(
		`${url} to be registered`,
		async () => {
			const res = await fetch(url, { method: 'OPTIONS', headers: { Origin: 'http://faults.example.com', 'Access-Control-Request-Method': 'POST' } });
			return res.status === 204 ? true : undefined;
		},
		60_000,
		250,
	);
}
