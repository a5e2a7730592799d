/** Checks of the trigger in production: handshake, signed events, forgeries, duplicates, retries, adversarial cases. */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ExecutionSummary, type N8n, type N8nCommand, N8N_STARTING_UP_ANSWER, nodeOutput, REPO_ROOT, underWay } from '../../../tools/n8n/n8n';
import { sleep, waitFor } from '../../../tools/n8n/proc';
import { assert, assertEqual, type Check } from '../lib/report';
import { bytesOf, open, rawPost, readAnswer, write } from '../lib/raw-http';
import type { SandboxProcess } from '../../../tools/n8n/sandbox';
import type { Stack } from '../../../tools/n8n/stack';
import { SECRET_REUSE_MS } from '../../../nodes/shared/webhookSecret';
import { bareTriggerWorkflow, CREDENTIAL_TYPE, type CredentialRef, triggerProductionPath } from '../../../tools/n8n/workflows';
import { type Workflow, webhookIdFor } from '../../../tools/n8n/workflow';
import { signedRequest } from '../../trigger/requests';

const TRIGGER_NODE = 'Business Messaging Trigger';

/** Executions of the trigger workflow so far (finished ones), newest first. */
async function settledExecutions(n8n: N8n, workflowId: string): Promise<ExecutionSummary[]> {
	const list = await n8n.executions(workflowId, 250);
	return list.filter((e) => !underWay(e.status));
}

/** Waits for `expected` executions, then a little longer to see that no more arrive. */
export async function expectExecutionCount(n8n: N8n, workflowId: string, expected: number, quietMs = 1500, timeoutMs = 30_000): Promise<ExecutionSummary[]> {
	await waitFor(
		`${expected} trigger executions`,
		async () => ((await settledExecutions(n8n, workflowId)).length >= expected ? true : undefined),
		timeoutMs,
		300,
	);
	await sleep(quietMs);
	const list = await settledExecutions(n8n, workflowId);
	assertEqual(list.length, expected, 'trigger executions');
	return list;
}

function triggerJson(execution: ExecutionSummary): Record<string, unknown> {
	const [item] = nodeOutput(execution, TRIGGER_NODE);
	return item ?? {};
}

/** An event body as the service sends it. */
function eventBody(event: string, data: Record<string, unknown>): string {
	return JSON.stringify({ event, timestamp: new Date().toISOString(), data });
}

/** The execution id n8n's answer to an event that started a run names (`{"executionStarted":true,"executionId":…}`), or undefined. */
export function startedExecutionId(answerBody: string | undefined): string | undefined {
	try {
		const parsed = JSON.parse(answerBody ?? '') as { executionStarted?: unknown; executionId?: unknown };
		return parsed.executionStarted === true && typeof parsed.executionId === 'string' && /^\d+$/.test(parsed.executionId) ? parsed.executionId : undefined;
	} catch {
		return undefined;
	}
}

/** Posts `body` signed with `secret` at `timestamp`, as the service would; the answer's status and text. */
async function postSigned(url: string, secret: string, body: string, timestamp: number): Promise<{ status: number; body: string }> {
	const res = await fetch(url, { method: 'POST', headers: signedRequest(secret, body, timestamp).headers, body });
	return { status: res.status, body: await res.text() };
}

let startCheckCalls = 0;

/** What eventsWhileN8nStarts checks, for the checks' names. */
export const WHILE_N8N_STARTS =
	'while n8n starts, events n8n itself answers 200 "n8n is starting up" (its database not ready) never reach the trigger and start no run, /healthz/readiness never says 200 before such an answer, and the events the trigger answers run; n8n’s startup recovery marks a run crashed only for an event answered before n8n said it had started (readiness on 2.41.1, the editor page before), never after';

/**
 * Restarts one n8n process (`n8n start`, or a queue's `n8n webhook`) while events are sent to the trigger on it,
 * as the service's retries would land on it: one new signed event the moment the port opens, then is the process
 * ready, has it started, and one more, again and again until it has started and the trigger has answered
 * EVENTS_AFTER_START events since; restarted again (at most START_RESTARTS times) until n8n answered at least one
 * event "starting up". Logs what came back; asserts WHILE_N8N_STARTS. Returns the ids of the runs the trigger
 * started that ran.
 */
export async function eventsWhileN8nStarts(o: {
	restarting: N8n;
	command?: N8nCommand;
	/** The trigger's production URL on the restarted process. */
	url: string;
	secret: string;
	/** The process whose public API lists the trigger workflow's executions. */
	api: N8n;
	workflowId: string;
	log: (line: string) => void;
}): Promise<string[]> {
	const samples: StartSample[] = [];
	// Whether an event gets in while n8n's database is not ready is a matter of timing (the "starting up"
	// stretch may last only milliseconds): restart again until one did, so that the check never passes empty.
	for (let restart = 1; ; restart++) {
		const these = await sendWhileStarting(o);
		samples.push(...these);
		const caught = these.filter(isStartingUp).length;
		o.log(`restart ${restart}: ${summarize(these)}`);
		if (caught > 0) break;
		assert(restart < START_RESTARTS, `no event was answered "starting up" in ${START_RESTARTS} restarts, so what n8n does with them was not checked`);
	}
	const startingUp = samples.filter(isStartingUp);
	const reached = samples.filter((s) => startedExecutionId(s.body) !== undefined);
	// readiness is asked before each event: once it has said 200, n8n no longer answers for the trigger.
	assertEqual(startingUp.filter((s) => s.ready === 200).length, 0, `events answered "starting up" after readiness said 200 (${summarize(samples)})`);
	// Each event the trigger answered, by the run its answer names: it ran with the event, or n8n's startup
	// recovery marked it crashed (1.123.81 and 2.3.6 serve webhooks before that recovery, docs/trigger.md).
	const outcomes = async () => {
		const runs = await settledExecutions(o.api, o.workflowId);
		return reached.map((s) => {
			const run = runs.find((e) => e.id === startedExecutionId(s.body));
			if (!run) return 'under way';
			if (run.status === 'crashed') return 'crashed';
			return (triggerJson(run).data as { contact_id?: number } | undefined)?.contact_id === s.contactId ? 'ran' : `${run.status} without the event`;
		});
	};
	const outcome = await waitFor(
		'every run the trigger started to end',
		async () => {
			const now = await outcomes();
			return now.includes('under way') ? undefined : now;
		},
		60_000,
		300,
	);
	reached.forEach((s, i) => (s.outcome = outcome[i]));
	const summary = summarize(samples);
	o.log(`all restarts: ${summary}`);
	assertEqual(reached.filter((s) => s.outcome !== 'ran' && s.outcome !== 'crashed').map((s) => `${s.contactId}: ${s.outcome}`), [], `runs the trigger started that did not run with their event (${summary})`);
	assertEqual(reached.filter((s) => s.outcome === 'crashed' && s.started).map((s) => s.contactId), [], `runs crashed for events answered after n8n said it had started (${summary})`);
	await sleep(1500);
	const ran = (await settledExecutions(o.api, o.workflowId)).map((e) => (triggerJson(e).data as { contact_id?: number } | undefined)?.contact_id);
	assertEqual(startingUp.filter((s) => ran.includes(s.contactId)).length, 0, `events answered "starting up" that started a run (${summary})`);
	return reached.filter((s) => s.outcome === 'ran').flatMap((s) => startedExecutionId(s.body) ?? []);
}

/** Restarts eventsWhileN8nStarts makes at most to catch an event answered "starting up". */
const START_RESTARTS = 8;
/** Events the trigger answers after n8n said it had started, before a restart's stream of events ends. */
const EVENTS_AFTER_START = 3;
/** Events sent at the same moment until n8n has started. */
const BURST = 4;

type StartSample = {
	ready: number | 'refused';
	/** The process had said it started (N8n.startedUrl) before this event was sent. */
	started: boolean;
	status: number | 'refused';
	body: string;
	contactId: number;
	at: number;
	/** What became of the run the trigger's answer named. */
	outcome?: string;
};

const isStartingUp = (s: StartSample) => s.status === 200 && s.body === N8N_STARTING_UP_ANSWER;

function summarize(samples: StartSample[]): string {
	const startingUp = samples.filter(isStartingUp);
	const window = startingUp.length > 0 ? startingUp[startingUp.length - 1].at - startingUp[0].at : 0;
	const reached = samples.filter((s) => startedExecutionId(s.body) !== undefined);
	const first = (seen: (s: StartSample) => boolean) => {
		const i = samples.findIndex(seen);
		return i < 0 ? 'before none of them' : `first before event ${i}`;
	};
	const crashed = reached.filter((s) => s.outcome === 'crashed');
	const others = new Map<string, number>();
	for (const s of samples) if (s.status !== 'refused' && !isStartingUp(s) && !startedExecutionId(s.body)) others.set(String(s.status), (others.get(String(s.status)) ?? 0) + 1);
	return [
		`${samples.length} events: ${samples.filter((s) => s.status === 'refused').length} refused, ${startingUp.length} answered "starting up" (for ${window} ms), ${reached.length} started a run (${reached.filter((s) => !s.started).length} before n8n said it had started)`,
		...(others.size > 0 ? [`answered otherwise: ${[...others].map(([status, n]) => `${n} × ${status}`).join(', ')}`] : []),
		...(crashed.length > 0 ? [`${crashed.length} of those runs marked crashed by n8n (${crashed.filter((s) => !s.started).length} answered before it said it had started)`] : []),
		`readiness said 200 ${first((s) => s.ready === 200)}, started ${first((s) => s.started)}`,
	].join('; ');
}

/**
 * One restart of eventsWhileN8nStarts: stops the process and, while it starts, sends one new signed event the
 * moment its port opens, then asks readiness and whether it has started, and sends one more, again and again
 * until it has started and the trigger has answered EVENTS_AFTER_START events since.
 */
async function sendWhileStarting(o: Parameters<typeof eventsWhileN8nStarts>[0]): Promise<StartSample[]> {
	// Contact ids of this restart alone, so that a later one on the same workflow does not count these runs.
	const firstContactId = 9_300_000 + 100_000 * startCheckCalls++;
	const samples: StartSample[] = [];
	await o.restarting.stop();
	let startFailed: unknown;
	let readyAt: number | undefined;
	const starting = o.restarting.start({ command: o.command }).then(
		() => (readyAt = Date.now()),
		(error: unknown) => (startFailed = error ?? 'n8n did not start'),
	);
	const event = (i: number) => ({ contactId: firstContactId + i, body: eventBody('contact.updated', { contact_id: firstContactId + i, name: `While n8n starts ${i}` }) });
	// The first event the moment n8n opens its port, on the connection that finds it open: n8n answers
	// "starting up" only while it checks its migrations, which on these up-to-date databases takes a few
	// milliseconds, often less than one round of readiness, event and pause below.
	const first = event(0);
	const url = new URL(o.url);
	for (;;) {
		if (startFailed !== undefined) throw startFailed;
		const socket = await open(url).catch(() => undefined);
		if (socket) {
			const answer = readAnswer(socket);
			await write(socket, bytesOf(rawPost(url, signedRequest(o.secret, first.body, Math.floor(Date.now() / 1000)).headers, first.body)));
			samples.push({ ready: 'refused', started: false, ...(await answer), contactId: first.contactId, at: Date.now() });
			break;
		}
		await sleep(1);
	}
	const startedUrl = o.restarting.startedUrl(o.command);
	const answerTo = async (target: string) =>
		await fetch(target, { headers: { accept: 'text/html' } }).then(
			async (r) => ({ status: r.status, text: await r.text() }),
			() => ({ status: 'refused' as const, text: '' }),
		);
	// The editor page, not n8n's "starting up" answer (200 too, to every request, before readiness).
	const hasStarted = async (ready: number | 'refused') => {
		if (ready !== 200 || startedUrl === o.restarting.readinessUrl) return ready === 200;
		const page = await answerTo(startedUrl);
		return page.status === 200 && page.text !== N8N_STARTING_UP_ANSWER;
	};
	let started = false;
	const answeredAfterStart = () => samples.filter((s) => s.started && startedExecutionId(s.body)).length;
	for (let i = 1; answeredAfterStart() < EVENTS_AFTER_START; ) {
		if (startFailed !== undefined) throw startFailed;
		assert(readyAt === undefined || Date.now() - readyAt < 60_000, `n8n did not say it had started, or the trigger answered fewer than ${EVENTS_AFTER_START} events since, in the 60 s after n8n was ready (${summarize(samples)})`);
		const ready = (await answerTo(o.restarting.readinessUrl)).status;
		const startedBefore = (started ||= await hasStarted(ready));
		// Until n8n has started, BURST events at a time, as retries pile up: n8n serves webhooks before its startup
		// recovery (before readiness says 200 on 2.41.1, after on 1.123.81 and 2.3.6), for a few milliseconds.
		const these = Array.from({ length: startedBefore ? 1 : BURST }, () => event(i++));
		await Promise.all(
			these.map(async ({ contactId, body }) => {
				const answer = await postSigned(o.url, o.secret, body, Math.floor(Date.now() / 1000)).catch(() => undefined);
				samples.push({ ready, started: startedBefore, status: answer?.status ?? 'refused', body: answer?.body ?? '', contactId, at: Date.now() });
			}),
		);
		// Back to back until n8n says it has started: the stretches where n8n answers "starting up", and where it
		// serves webhooks before its startup recovery, last milliseconds on these databases.
		await sleep(started ? 50 : 2);
	}
	await starting;
	return samples;
}

export async function runTriggerChecks(stack: Stack, webhookId: string, log: (line: string) => void = () => undefined): Promise<Check[]> {
	const { n8n, sandbox } = stack;
	const trigger = stack.workflows.find((w) => w.nodes.some((n) => n.webhookId === webhookId));
	assert(trigger, 'no trigger workflow');
	const workflowId = trigger.id;
	const productionUrl = `${n8n.baseUrl}${triggerProductionPath(webhookId)}`;
	await sandbox.setWebhookUrl(productionUrl);

	const deliverAndSettle = async (s: SandboxProcess, options: Parameters<SandboxProcess['deliver']>[0]) => {
		const id = await s.deliver(options);
		return await s.settled(id, 60_000);
	};

	const checks: Check[] = [
		{
			name: 'trigger: the sandbox’s verification handshake against the production URL gets its challenge back, starting nothing',
			fn: async () => {
				// Activation finishes just after readiness: poll the handshake briefly.
				const result = await waitFor(
					'handshake',
					async () => {
						const r = await sandbox.verify();
						return r.status === 404 ? undefined : r;
					},
					20_000,
					500,
				);
				assert(result.ok, `handshake failed: ${result.status} ${result.body}`);
				assertEqual(JSON.parse(result.body), { challenge: result.challenge }, 'answer body');
				await expectExecutionCount(n8n, workflowId, 0, 500);
			},
		},
		{
			name: 'trigger: three signed events start exactly one execution each, with the event’s data, and each answer names its execution; the message gets a reply',
			fn: async () => {
				const base = (await settledExecutions(n8n, workflowId)).length;
				const messagesBefore = (await sandbox.messages()).length;
				const events = [
					{
						event: 'message.received',
						data: { message_id: 'wamid.e2e.1', conversation_id: 9001, from: '+15550009001', to: '+15559990000', type: 'text', body: 'Where is my order?', timestamp: new Date().toISOString() },
					},
					{ event: 'order.status.updated', data: { order_id: 3, old_status: 'shipped', new_status: 'delivered', updated_at: new Date().toISOString() } },
					{ event: 'conversation.created', data: { conversation_id: 9002, contact_id: 4, phone_number: '+15550009002', created_at: new Date().toISOString() } },
				];
				const answered: Array<string | undefined> = [];
				for (const e of events) {
					const d = await deliverAndSettle(sandbox, e);
					assertEqual([d.state, d.attempts.length, d.attempts[0]?.status], ['delivered', 1, 200], `delivery of ${e.event}`);
					answered.push(startedExecutionId(d.attempts[0]?.responseBody));
				}
				const list = await expectExecutionCount(n8n, workflowId, base + 3);
				const fresh = list.slice(0, 3).reverse();
				for (const [i, e] of events.entries()) {
					const json = triggerJson(fresh[i]);
					assertEqual([json.event, json.data], [e.event, e.data], `execution ${fresh[i].id} trigger output`);
					assertEqual(fresh[i].status, 'success', `execution ${fresh[i].id} status`);
					// n8n answered once this execution existed, naming it.
					assertEqual(answered[i], fresh[i].id, `execution named in the answer to ${e.event}`);
				}
				const replies = (await sandbox.messages()).slice(messagesBefore);
				assertEqual(replies.length, 1, 'replies sent');
				assertEqual(replies[0].phone, '+15550009001', 'reply recipient');
				assert(String(replies[0].body).includes('Where is my order?'), `reply text: ${replies[0].body}`);
			},
		},
		{
			name: 'trigger: a forged event (wrong secret) and a tampered body get 401 and start nothing; the service does not retry; n8n’s log shows the line the README’s troubleshooting quotes',
			fn: async () => {
				const base = (await settledExecutions(n8n, workflowId)).length;
				const forged = await deliverAndSettle(sandbox, { event: 'order.created', signWith: 'not-the-webhook-secret' });
				assertEqual([forged.state, forged.attempts.length, forged.attempts[0]?.status], ['rejected', 1, 401], 'forged delivery');
				// A genuine signature over a different body.
				const ts = Math.floor(Date.now() / 1000);
				const signedBody = JSON.stringify({ event: 'order.created', timestamp: new Date().toISOString(), data: { order_id: 1, total: 1 } });
				const sent = signedBody.replace('"total":1', '"total":1000');
				const res = await fetch(productionUrl, {
					method: 'POST',
					headers: signedRequest(sandbox.credentials.webhookSecret, signedBody, ts).headers,
					body: sent,
				});
				assertEqual(res.status, 401, 'tampered body answer');
				await expectExecutionCount(n8n, workflowId, base);
				const quoted = /n8n's log for "([^"]+)\(…\)"/.exec(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'))?.[1];
				assert(quoted, 'the README’s troubleshooting quotes no log line');
				const logged = readFileSync(n8n.logFile, 'utf8');
				assert(logged.includes(`${quoted}(401, invalid signature)`), `n8n’s log has no "${quoted}(401, invalid signature)"`);
			},
		},
		{
			name: 'trigger: a Webhook Secret changed in the credential takes effect within a second: the old secret then gets 401, the new one starts a run',
			fn: async () => {
				const original = sandbox.credentials.webhookSecret;
				const rotated = `${original}-rotated`;
				const saveCredential = async (webhookSecret: string) => {
					const res = await n8n.rest('PATCH', `/credentials/${stack.credential.id}`, {
						name: stack.credential.name,
						type: CREDENTIAL_TYPE,
						data: { ...stack.credentialData, webhookSecret },
					});
					assertEqual(res.status, 200, `saving the credential: ${JSON.stringify(res.body)}`);
				};
				const send = async (secret: string, n: number) =>
					await postSigned(productionUrl, secret, eventBody('contact.updated', { contact_id: 9500 + n, name: `Rotation ${n}` }), Math.floor(Date.now() / 1000));
				const base = (await settledExecutions(n8n, workflowId)).length;
				// The trigger has just read the old secret when the user saves the new one.
				assertEqual((await send(original, 1)).status, 200, 'event signed with the secret before the change');
				await saveCredential(rotated);
				try {
					await sleep(SECRET_REUSE_MS + 300);
					assertEqual((await send(original, 2)).status, 401, 'event signed with the replaced secret');
					assertEqual((await send(rotated, 3)).status, 200, 'event signed with the new secret');
					await expectExecutionCount(n8n, workflowId, base + 2);
				} finally {
					await saveCredential(original);
					await sleep(SECRET_REUSE_MS + 300);
				}
			},
		},
		{
			name: 'trigger: the same event body delivered again (a retry after a lost answer) is answered 200 and starts nothing new',
			fn: async () => {
				const before = (await settledExecutions(n8n, workflowId)).length;
				const first = await deliverAndSettle(sandbox, { event: 'contact.created' });
				assertEqual(first.state, 'delivered', 'first delivery');
				await expectExecutionCount(n8n, workflowId, before + 1, 300);
				const again = await deliverAndSettle(sandbox, { event: 'contact.created', body: first.body });
				assertEqual([again.state, again.attempts[0]?.status], ['delivered', 200], 'second delivery');
				assert(/duplicate/i.test(again.attempts[0]?.responseBody ?? ''), `answer to the repeat: ${again.attempts[0]?.responseBody}`);
				const list = await expectExecutionCount(n8n, workflowId, before + 1);
				assertEqual(triggerJson(list[0]).event, 'contact.created', 'the one execution');
			},
		},
		{
			name: 'trigger: after several different events, a repeat of each one starts nothing new',
			fn: async () => {
				const before = (await settledExecutions(n8n, workflowId)).length;
				const firsts = [];
				for (const n of [1, 2, 3, 4]) {
					const d = await deliverAndSettle(sandbox, { event: 'contact.updated', data: { contact_id: 9000 + n, name: `Repeat ${n}` } });
					assertEqual(d.state, 'delivered', `delivery ${n}`);
					firsts.push(d);
				}
				await expectExecutionCount(n8n, workflowId, before + 4, 300);
				for (const [i, first] of firsts.entries()) {
					const again = await deliverAndSettle(sandbox, { event: 'contact.updated', body: first.body });
					assert(/duplicate/i.test(again.attempts[0]?.responseBody ?? ''), `answer to repeat ${i + 1}: ${again.attempts[0]?.responseBody}`);
				}
				await expectExecutionCount(n8n, workflowId, before + 4);
			},
		},
		{
			name: 'trigger: eight copies of one delivery sent at the same moment (fresh signatures, then identical ones) start exactly one execution',
			fn: async () => {
				const before = (await settledExecutions(n8n, workflowId)).length;
				const secret = sandbox.credentials.webhookSecret;
				const now = Math.floor(Date.now() / 1000);
				const fresh = eventBody('contact.updated', { contact_id: 9101, name: 'Burst, fresh signatures' });
				const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => postSigned(productionUrl, secret, fresh, now - i)));
				assertEqual(answers.map((a) => a.status), Array(8).fill(200), 'answers');
				assertEqual(answers.filter((a) => /duplicate/.test(a.body)).length, 7, 'answers saying "duplicate delivery"');
				const same = eventBody('contact.updated', { contact_id: 9102, name: 'Burst, one signature' });
				const identical = await Promise.all(Array.from({ length: 8 }, () => postSigned(productionUrl, secret, same, now)));
				assertEqual(identical.filter((a) => /duplicate/.test(a.body)).length, 7, 'identical copies answered as duplicates');
				const list = await expectExecutionCount(n8n, workflowId, before + 2, 2500);
				assertEqual(list.slice(0, 2).map((e) => (triggerJson(e).data as { contact_id: number }).contact_id).sort(), [9101, 9102], 'the runs');
			},
		},
		{
			name: 'trigger: ten different events accepted at the same moment are all remembered: once a later request handed them to n8n, after an n8n restart a repeat of each starts nothing',
			timeoutMs: 240_000,
			fn: async () => {
				const before = (await settledExecutions(n8n, workflowId)).length;
				const secret = sandbox.credentials.webhookSecret;
				const bodies = Array.from({ length: 10 }, (_, i) => eventBody('contact.updated', { contact_id: 9200 + i, name: `Concurrent ${i}` }));
				const now = Math.floor(Date.now() / 1000);
				const answers = await Promise.all(bodies.map((b) => postSigned(productionUrl, secret, b, now)));
				assertEqual(answers.map((a) => [a.status, startedExecutionId(a.body) !== undefined]), Array(10).fill([200, true]), `answers (${JSON.stringify(answers)})`);
				await expectExecutionCount(n8n, workflowId, before + 10, 500);
				// The trigger hands acknowledged deliveries to the static data with a request it answers itself:
				// n8n saves static data for those only, on every version.
				const repeat = await postSigned(productionUrl, secret, bodies[0], Math.floor(Date.now() / 1000));
				assert(/duplicate/.test(repeat.body), `answer to the repeat before the restart: ${repeat.body}`);

				await n8n.stop();
				await n8n.start();
				await n8n.login();
				const { waitForWebhook } = await import('../../../tools/n8n/stack');
				await waitForWebhook(productionUrl, 60_000);
				const later = Math.floor(Date.now() / 1000);
				const repeats = await Promise.all(bodies.map((b) => postSigned(productionUrl, secret, b, later)));
				assertEqual(repeats.filter((a) => /duplicate/.test(a.body)).length, 10, `repeats answered as duplicates (${JSON.stringify(repeats)})`);
				await expectExecutionCount(n8n, workflowId, before + 10);
			},
		},
		{
			name: `trigger: ${WHILE_N8N_STARTS}`,
			timeoutMs: 480_000,
			fn: async () => {
				await eventsWhileN8nStarts({ restarting: n8n, url: productionUrl, secret: sandbox.credentials.webhookSecret, api: n8n, workflowId, log });
				await n8n.login();
			},
		},
		{
			name: 'trigger: a delivery the receiver fails once (workflow deactivated: 404) is retried and starts exactly one execution',
			timeoutMs: 90_000,
			fn: async () => {
				const base = (await settledExecutions(n8n, workflowId)).length;
				await n8n.deactivate(workflowId);
				let reactivated = false;
				try {
					// Deactivation unregisters the production webhook: n8n answers 404 for it.
					await waitFor(
						'the production URL to answer 404',
						async () => ((await fetch(productionUrl, { method: 'POST', body: '' })).status === 404 ? true : undefined),
						15_000,
						200,
					);
					const id = await sandbox.deliver({
						event: 'message.status.updated',
						data: { message_id: 'wamid.e2e.retry', status: 'read', timestamp: new Date().toISOString() },
					});
					const failedOnce = await waitFor(
						'the first attempt',
						async () => {
							const d = await sandbox.delivery(id);
							return d.attempts.length >= 1 && d.attempts[0].status !== null ? d : undefined;
						},
						20_000,
						100,
					);
					assert(failedOnce.attempts[0].status !== 200, `first attempt answered ${failedOnce.attempts[0].status}`);
					await n8n.activate(workflowId);
					reactivated = true;
					const settled = await sandbox.settled(id, 60_000);
					assertEqual(settled.state, 'delivered', `delivery state (attempts: ${JSON.stringify(settled.attempts.map((a) => a.status))})`);
					assert(settled.attempts.length >= 2, 'delivered without a retry');
					const list = await expectExecutionCount(n8n, workflowId, base + 1);
					assertEqual(triggerJson(list[0]).data, { message_id: 'wamid.e2e.retry', status: 'read', timestamp: (JSON.parse(settled.body) as { data: { timestamp: string } }).data.timestamp }, 'event data');
				} finally {
					if (!reactivated) await n8n.activate(workflowId).catch(() => undefined);
				}
			},
		},
		{
			name: 'trigger: the action node’s "send test event" makes the service deliver one signed message.received, one execution',
			fn: async () => {
				const base = (await settledExecutions(n8n, workflowId)).length;
				const deliveriesBefore = (await sandbox.deliveries()).length;
				const wf = stack.workflows.find((w) => w.name.startsWith('E2E: ask the service'));
				assert(wf, 'no webhook test workflow');
				const { runThroughServer } = await import('./actions');
				const execution = await runThroughServer(n8n, wf);
				assertEqual(execution.status, 'success', 'send test event execution');
				const deliveries = (await sandbox.deliveries()).slice(deliveriesBefore);
				assertEqual(deliveries.length, 1, 'deliveries the test event made');
				const d = await sandbox.settled(deliveries[0].id);
				assertEqual([d.state, d.event, d.url], ['delivered', 'message.received', productionUrl], 'test delivery');
				const list = await expectExecutionCount(n8n, workflowId, base + 1);
				assertEqual(triggerJson(list[0]).event, 'message.received', 'event in the execution');
			},
		},
	];

	if (stack.workflows.some((w) => w.name.startsWith(UPGRADED_WORKFLOW))) checks.push(upgradedCheck(stack));
	const allowing = stack.workflows.find((w) => w.name === ALLOW_DUPLICATES_WORKFLOW);
	if (allowing) checks.push(allowDuplicatesCheck(stack, allowing.id, allowing.nodes[0].webhookId ?? ''));
	const bare = stack.workflows.find((w) => w.name.startsWith('E2E: bare trigger'));
	assert(bare, 'no bare trigger workflow');
	const bareWebhookId = bare.nodes[0].webhookId ?? '';
	checks.push(await adversarialCheck(stack, `${n8n.baseUrl}${triggerProductionPath(bareWebhookId)}`, bare.id));
	return checks;
}

export const ALLOW_DUPLICATES_WORKFLOW = 'E2E: trigger with Allow Duplicate Deliveries';

const UPGRADED_WORKFLOW = 'E2E: trigger as an earlier release left it';

/** Bodies the earlier releases had accepted (the envelope's own timestamp is not checked, so it stays fixed). */
const storedBody = (n: number) =>
	JSON.stringify({ event: 'contact.updated', timestamp: '2026-11-23T10:00:00Z', data: { contact_id: 9400 + n, name: `Accepted before the update ${n}` } });

/**
 * Trigger workflows as earlier releases saved them, each remembering one accepted body: version 1 with
 * 0.1.0's store (`deliveries`: 32 hex digits of the body's SHA-256 → seconds), and version 2 with the
 * compact store (`accepted`: 16 hex digits of the key and 8 of the time per body).
 */
export function upgradedTriggerWorkflows(credential: CredentialRef): Workflow[] {
	const at = Math.floor(Date.now() / 1000) - 600;
	const key = (n: number) => createHash('sha256').update(storedBody(n)).digest('hex');
	const saved = [
		{ typeVersion: 1, store: { deliveries: { [key(1).slice(0, 32)]: at } } },
		{ typeVersion: 2, store: { accepted: `${key(2).slice(0, 16)}${at.toString(16).padStart(8, '0')}` } },
	];
	return saved.map(({ typeVersion, store }, i) =>
		bareTriggerWorkflow(credential, webhookIdFor(`e2e-upgraded-${i + 1}`), {}, `e2eUpgraded${i + 1}`, `${UPGRADED_WORKFLOW} ${i + 1}`, {
			typeVersion,
			staticData: { 'node:Business Messaging Trigger': store },
		}),
	);
}

function upgradedCheck(stack: Stack): Check {
	return {
		name: 'trigger: workflows saved by earlier releases (version 1 with 0.1.0’s store, version 2 with the compact store) keep running: a body they accepted starts nothing, a new one starts one run',
		fn: async () => {
			const { n8n, sandbox } = stack;
			const { waitForWebhook } = await import('../../../tools/n8n/stack');
			const workflows = stack.workflows.filter((w) => w.name.startsWith(UPGRADED_WORKFLOW));
			assertEqual(workflows.length, 2, 'upgraded workflows');
			for (const [i, workflow] of workflows.entries()) {
				const url = `${n8n.baseUrl}${triggerProductionPath(workflow.nodes[0].webhookId ?? '')}`;
				await waitForWebhook(url);
				const before = (await settledExecutions(n8n, workflow.id)).length;
				const now = Math.floor(Date.now() / 1000);
				const old = await postSigned(url, sandbox.credentials.webhookSecret, storedBody(i + 1), now);
				assertEqual([old.status, old.body], [200, '{"received":true,"ignored":"duplicate delivery"}'], `${workflow.name}: the body it had accepted`);
				const fresh = await postSigned(url, sandbox.credentials.webhookSecret, storedBody(10 + i), now);
				assertEqual([fresh.status, startedExecutionId(fresh.body) !== undefined], [200, true], `${workflow.name}: a new body (${fresh.body})`);
				await expectExecutionCount(n8n, workflow.id, before + 1);
			}
		},
	};
}

/**
 * With Allow Duplicate Deliveries every copy is a new run; n8n answers each once the run exists
 * (response mode hostedChat, nodes/BusinessMessagingTrigger/acknowledgement.ts).
 */
function allowDuplicatesCheck(stack: Stack, workflowId: string, webhookId: string): Check {
	return {
		name: 'trigger: with Allow Duplicate Deliveries each copy is answered {"executionStarted":true,…} (n8n’s own answer, sent once the run exists) and starts a run',
		fn: async () => {
			const { n8n, sandbox } = stack;
			const url = `${n8n.baseUrl}${triggerProductionPath(webhookId)}`;
			const { waitForWebhook } = await import('../../../tools/n8n/stack');
			await waitForWebhook(url);
			const body = eventBody('contact.updated', { contact_id: 9301, name: 'Allowed twice' });
			const before = (await settledExecutions(n8n, workflowId)).length;
			for (const copy of [1, 2]) {
				const answer = await postSigned(url, sandbox.credentials.webhookSecret, body, Math.floor(Date.now() / 1000));
				// This body is n8n's answer: the node's own answer never reaches it on this path.
				assertEqual([answer.status, startedExecutionId(answer.body) !== undefined], [200, true], `answer to copy ${copy} (${answer.body})`);
			}
			await expectExecutionCount(n8n, workflowId, before + 2);
		},
	};
}

/** Replays the trigger's adversarial cases (test/trigger/adversarial-cases.ts) over HTTP against the production URL. */
async function adversarialCheck(stack: Stack, productionUrl: string, workflowId: string): Promise<Check> {
	const name = 'trigger: adversarial cases replayed over HTTP against the production URL (forged accepted 0, genuine rejected 0)';
	const file = join(REPO_ROOT, 'test/trigger/adversarial-cases.ts');
	if (!existsSync(file)) {
		return {
			name,
			fn: async () => {
				throw new Error('test/trigger/adversarial-cases.ts has not landed yet');
			},
		};
	}
	const { replayAdversarialCases } = await import('./adversarial');
	return {
		name,
		timeoutMs: 300_000,
		fn: async () => {
			const { waitForWebhook } = await import('../../../tools/n8n/stack');
			await waitForWebhook(productionUrl);
			await replayAdversarialCases(stack, productionUrl, workflowId);
		},
	};
}
