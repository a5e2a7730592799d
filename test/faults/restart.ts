/**
 * What a restart keeps of the trigger's duplicate store. Each sequence runs on a trigger workflow of its
 * own: distinct events n8n acknowledged, then (or not) one request the trigger answers itself. Then n8n is
 * killed (SIGKILL) and restarted once for all of them, and every event is re-sent as the service would:
 * a re-send that runs again is a duplicate run. n8n saves the static data only with a request the trigger
 * answers itself, so after "only new events" every re-send runs again, after any of the others none does.
 */
import { latestExecutionId } from '../../bench/lib/n8n-runs';
import type { N8n } from '../../tools/n8n/n8n';
import type { Workflow } from '../../tools/n8n/workflow';
import { webhookIdFor } from '../../tools/n8n/workflow';
import { type CredentialRef, triggerProductionPath } from '../../tools/n8n/workflows';
import { type Answer, deliver, messageEvent, nowSeconds } from '../queue/deliver';
import { chain } from '../../tools/n8n/workflow';
import { triggerNode } from '../queue/workflows';
import { signedRequest } from '../trigger/requests';
import { waitFor } from '../../tools/n8n/proc';
import { lookUp, publicApiUp, registered, sent } from './lookup';
import { type Kill, signal } from './burst';

/** Events acknowledged per sequence before the stop. */
export const RESTART_EVENTS = 20;

/** Every sequence's trigger: message events selected, "read" statuses ignored. */
const OPTIONS = { ignoreStatuses: ['read'] };
const EVENTS = ['message.received', 'message.status.updated'];

export interface RestartSequence {
	key: string;
	/** The case's name. */
	name: string;
	/** The request sent after the events, before the stop (none: only new events), and the answer it must get. */
	closing?: (url: string, secret: string, firstEvent: string) => Promise<Answer>;
	closingStatus?: number;
	/** Re-sends after the restart that may run again: all for "only new events", none otherwise. */
	rerunsExpected: 'all' | 'none';
}

const post = async (url: string, body: string, headers: Record<string, string>): Promise<Answer> => {
	const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
	return { status: res.status, body: await res.text() };
};

const signedEvent = (url: string, secret: string, body: string) => deliver(secret, { url, body, timestamp: nowSeconds() });

export const RESTART_SEQUENCES: RestartSequence[] = [
	{ key: 'only-new', name: 'only new events before the stop', rerunsExpected: 'all' },
	{
		key: 'repeat',
		name: 'new events, then a repeat of one',
		closing: async (url, secret, first) => await signedEvent(url, secret, first),
		closingStatus: 200,
		rerunsExpected: 'none',
	},
	{
		key: 'type',
		name: 'new events, then an event type not selected',
		closing: async (url, secret) => await signedEvent(url, secret, JSON.stringify({ event: 'contact.updated', timestamp: new Date().toISOString(), data: { contact_id: 1 } })),
		closingStatus: 200,
		rerunsExpected: 'none',
	},
	{
		key: 'status',
		name: 'new events, then an ignored message status',
		closing: async (url, secret) =>
			await signedEvent(url, secret, JSON.stringify({ event: 'message.status.updated', timestamp: new Date().toISOString(), data: { message_id: 'wamid.x', status: 'read' } })),
		closingStatus: 200,
		rerunsExpected: 'none',
	},
	{
		key: 'refusal',
		name: 'new events, then a forged event (refused)',
		closing: async (url, _secret, first) => {
			return await post(url, first, signedRequest('not-the-secret', first, nowSeconds()).headers);
		},
		closingStatus: 401,
		rerunsExpected: 'none',
	},
	{
		key: 'challenge',
		name: 'new events, then the verification challenge',
		closing: async (url) => await post(url, JSON.stringify({ type: 'verification', challenge: 'restart-case' }), {}),
		closingStatus: 200,
		rerunsExpected: 'none',
	},
];

export function restartWorkflow(sequence: RestartSequence, credential: CredentialRef): Workflow {
	const node = triggerNode(credential, restartWebhookId(sequence), OPTIONS);
	node.parameters.events = EVENTS;
	// n8nId and webhookIdFor keep 16 characters: the keys are short enough to stay apart.
	return chain(`faultRs${sequence.key.replace(/-/g, '')}`, `Faults: restart, ${sequence.name}`, [node]);
}

const restartWebhookId = (sequence: RestartSequence) => webhookIdFor(`restart-${sequence.key}`);

export const restartPath = (sequence: RestartSequence) => triggerProductionPath(restartWebhookId(sequence));

/** The workflow's static data as n8n saved it. */
async function staticData(n8n: N8n, workflowId: string): Promise<string> {
	const res = await n8n.api<{ staticData?: unknown }>('GET', `/workflows/${workflowId}`);
	return JSON.stringify(res.body.staticData ?? null);
}

export interface RestartOutcome {
	sequence: RestartSequence;
	/** Problems before the restart (an event not acknowledged, the closing request answered otherwise). */
	problems: string[];
	/** Events re-sent after the restart that ran again, of RESTART_EVENTS. */
	reruns: number;
	/** Re-sends not answered 2xx. */
	unanswered: number;
	/** Events with no run at all. */
	lost: number;
}

/**
 * Runs every sequence, one restart (`kill`) for all, the re-sends, and looks every event up. `workflowIdOf`
 * finds each sequence's workflow on the server.
 */
export async function runRestartSequences(
	n8n: N8n,
	sequences: RestartSequence[],
	workflowIdOf: (sequence: RestartSequence) => string,
	secret: string,
	kill: Kill,
	tag: string,
	log: (line: string) => void,
): Promise<RestartOutcome[]> {
	const runs = await Promise.all(
		sequences.map(async (sequence) => {
			const workflowId = workflowIdOf(sequence);
			const url = `${n8n.baseUrl}${restartPath(sequence)}`;
			const ids = Array.from({ length: RESTART_EVENTS }, (_, n) => `restart-${tag}-${sequence.key}-${n}`);
			return { sequence, workflowId, url, ids, bodies: ids.map((id) => messageEvent(id)), before: await latestExecutionId(n8n, workflowId), problems: [] as string[] };
		}),
	);
	let t = Date.now();
	const lap = () => {
		const s = ((Date.now() - t) / 1000).toFixed(1);
		t = Date.now();
		return `${s} s`;
	};
	// The sequences run on workflows of their own and share nothing before the kill: side by side, each in its order.
	await Promise.all(
		runs.map(async (run) => {
			sent(run.ids);
			for (const [n, body] of run.bodies.entries()) {
				const answer = await signedEvent(run.url, secret, body);
				if (answer.status !== 200) run.problems.push(`event ${n} answered ${answer.status} ${answer.body}`);
			}
			if (run.sequence.closing) {
				const saved = await staticData(n8n, run.workflowId);
				const answer = await run.sequence.closing(run.url, secret, run.bodies[0]);
				if (answer.status !== run.sequence.closingStatus) run.problems.push(`the closing request was answered ${answer.status} ${answer.body}, not ${run.sequence.closingStatus}`);
				// n8n saves the static data before it answers a 200, and just after the trigger's own other answers
				// (a refusal's 401): the kill waits for that save (docs/trigger.md, Duplicates).
				if (run.sequence.closingStatus !== 200) {
					await waitFor(`the static data of ${run.sequence.name} to be saved`, async () => ((await staticData(n8n, run.workflowId)) !== saved ? true : undefined), 10_000, 50);
				}
			}
		}),
	);
	log(`restart cases: ${runs.length * RESTART_EVENTS} events and the closing requests sent in ${lap()}`);
	const exited = n8n.exited;
	signal(n8n, kill);
	await exited;
	await n8n.start();
	await publicApiUp(n8n);
	log(`restart cases: ${kill} and restart done in ${lap()}; re-sending ${runs.length * RESTART_EVENTS} events`);
	// After the restart, too: each sequence's re-sends in order, the sequences side by side, and one settling for all.
	const outcomes: RestartOutcome[] = await Promise.all(
		runs.map(async (run) => {
			await registered(run.url);
			let unanswered = 0;
			for (const body of run.bodies) if ((await signedEvent(run.url, secret, body)).status !== 200) unanswered++;
			// Every request to the restarted n8n answered 200: none can still be under way in it.
			const { runsOf } = await lookUp(n8n, run.workflowId, run.before, run.ids, undefined, unanswered === 0);
			const counts = run.ids.map((id) => runsOf.get(id)?.length ?? 0);
			return {
				sequence: run.sequence,
				problems: run.problems,
				reruns: counts.filter((c) => c > 1).length,
				unanswered,
				lost: counts.filter((c) => c === 0).length,
			};
		}),
	);
	log(`restart cases: re-sent and looked up in ${lap()}`);
	return outcomes;
}
