/**
 * Queue-mode suite: this package in n8n 2.41.1's queue mode — PostgreSQL, Redis, the main process, two
 * `n8n webhook` processes and one `n8n worker`, all on one user folder holding the packed package — against
 * the sandbox; once under n8n's defaults and once under the expression-engine setting the docs recommend,
 * each on a deployment of its own, side by side. npm run test:queue  (E2E_KEEP=1 keeps the folder with every process's log; E2E_ONLY=regex
 * runs some checks.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { type ExecutionSummary, type N8n, nodeOutput } from '../../tools/n8n/n8n';
import { everyExecution } from '../../bench/lib/n8n-runs';
import { inLanes, lanesFromEnv } from '../../tools/n8n/lanes';
import { logsFolder } from '../../tools/n8n/logs';
import { sleep, STALL_MS, stall, stopAll } from '../../tools/n8n/proc';
import { startQueueStack, type QueueStack } from '../../tools/n8n/queue-stack';
import { type EngineSetting, N8N_DEFAULTS, RECOMMENDED_SETTING } from '../../tools/n8n/settings';
import { assert, assertEqual, type Check, closingLine, createReporter, errorText, type Reporter, runSuite } from '../e2e/lib/report';
import { settingChecks } from '../e2e/lib/setting';
import { timingsLine, waitForWebhook } from '../../tools/n8n/stack';
import type { Workflow } from '../../tools/n8n/workflow';
import { webhookIdFor } from '../../tools/n8n/workflow';
import { ACTION_TYPE, CREDENTIAL_TYPE, orderWorkflow, replyWorkflow, textWorkflow, TRIGGER_TYPE, triggerProductionPath } from '../../tools/n8n/workflows';
import { eventsWhileN8nStarts, expectExecutionCount, startedExecutionId, WHILE_N8N_STARTS } from '../e2e/checks/trigger';
import { sign } from '../trigger/requests';
import { copiesOf, deliver, deliverTogether, messageEvent, nowSeconds } from './deliver';
import { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_RETRY_DELAYS_MS } from '../../tools/sandbox/webhooks';
import { dedupExampleWorkflow, FIRST_DELIVERY_NODE, replyNode, TRIGGER_NODE } from './workflows';
import { askCustomer, askOutput, askWorkflow, CONVERSATION_TRIGGER_HOOK, conversationTriggerWorkflow, customerWrites, newCustomer, settledRun } from '../e2e/checks/conversations';
import { activatedBySharingChecks, SECOND_ACCOUNT, sharingChecks, sharingWorkflows } from '../e2e/checks/sharing';
import { FAST_SERVICE_CHECK, fastService, SEND_NODE, sendStatus, startSendingTo, STATUS_BULK_WORKFLOW, STATUS_LIMIT_WORKFLOW, statusBulkWorkflow, statusFastWorkflow, statusLimitWorkflow } from '../e2e/checks/statusWaits';
import { postToWebhook } from '../../tools/n8n/webhookPost';

const OWNER = { email: 'owner@queue.example.com', password: 'Queue-owner-Passw0rd!', firstName: 'Queue', lastName: 'Owner' };
const REPLY_HOOK = webhookIdFor('queue-reply');
/** Longer than the trigger waits for n8n's answer to a hand-over (30 s, handOver.ts). */
const RUNS_ON_SECONDS = 35;
const DEDUP_HOOK = webhookIdFor('queue-dedup');
/** Copies of one event sent at the same moment: half with one signature, half each signed afresh. */
const COPIES = { identical: 4, fresh: 4 };
const DEDUP_EVENTS = 4;
/** Replies under way when a webhook process stalls; how long after sending it stalls, and for how long. */
const STALL_REPLIES = 4;
const STALL_AFTER_MS = 30;

/** Waits for `count` finished executions, then a little longer to see that no more come (the worker may be busy). */
const expectExecutions = (n8n: N8n, workflowId: string, count: number, quietMs = 2000) => expectExecutionCount(n8n, workflowId, count, quietMs, 120_000);

function log(p: N8n): string {
	return existsSync(p.logFile) ? readFileSync(p.logFile, 'utf8') : '';
}

/** Every execution was enqueued by a webhook process and run by the worker, none by the main process. */
function assertRanOnWorker(stack: QueueStack, ids: string[]): void {
	const worker = log(stack.worker);
	const enqueued = stack.webhooks.map(log).join('\n');
	const main = log(stack.n8n);
	for (const id of ids) {
		assert(new RegExp(`Worker started execution ${id} \\(job`).test(worker), `the worker's log does not show execution ${id}`);
		assert(new RegExp(`Enqueued execution ${id} \\(job`).test(enqueued), `no webhook process enqueued execution ${id}`);
		assert(!new RegExp(`started execution ${id}\\b`, 'i').test(main), `the main process ran execution ${id}`);
	}
}


/** The suite on one deployment under one expression-engine setting; check names start with `prefix`. */
async function queueSuite(report: Reporter, setting: EngineSetting, prefix: string): Promise<void> {
	const started = Date.now();
	const failedBefore = report.totals().failed;
	let stack: QueueStack | undefined;
	const say = (line: string) => process.stdout.write(`# ${prefix}${line}\n`);
	const logs = logsFolder('queue', say);
	const { dir } = logs;
	const finish = async () => {
		await stack?.stop();
		if (stack) say(timingsLine(stack.timings, started));
		logs.close(report.totals().failed > failedBefore);
	};
	const setUp = `${prefix}set-up: PostgreSQL, Redis, n8n main + 2 webhook processes + 1 worker (queue mode), the package in the shared user folder, the sandbox`;
	try {
		stack = await startQueueStack({
			dir,
			owner: OWNER,
			log: say,
			env: setting.env,
			extraCredentials: { [SECOND_ACCOUNT.credential]: { webhookSecret: SECOND_ACCOUNT.webhookSecret } },
			workflows: ({ credential, extraCredentials }) => [
				// Answered on receipt: n8n's "When Last Node Finishes" answer waits on Bull's job.finished(), which
				// never returns when the worker ends the job before a webhook process first listens for endings
				// (docs/evidence/2026-12-02-queue-last-node-answer). The runs themselves are checked below.
				textWorkflow(credential, 'e2e-text', 'onReceived'),
				orderWorkflow(credential, 'e2e-orders', 'onReceived'),
				replyWorkflow(credential, { id: 'queueReply', name: 'Queue: trigger, reply to incoming messages', webhookId: REPLY_HOOK }),
				dedupExampleWorkflow('suite', credential, DEDUP_HOOK, [replyNode(credential)]),
				conversationTriggerWorkflow(credential),
				askWorkflow(credential, 'Any', {}),
				askWorkflow(credential, 'Long', {}, { runsOnForSeconds: RUNS_ON_SECONDS }),
				statusBulkWorkflow(credential),
				statusLimitWorkflow(credential),
				statusFastWorkflow(credential),
				...sharingWorkflows(credential, extraCredentials[SECOND_ACCOUNT.credential]),
			],
			// The workflows that receive through the sharing (conversations) trigger: once the sharing checks run.
			activate: (workflows) =>
				workflows
					.filter((w) => (w.nodes.some((n) => n.type === TRIGGER_TYPE) ? !activatedBySharingChecks(w) : w.nodes.some((n) => n.type === 'n8n-nodes-base.webhook')))
					.map((w) => w.id),
		});
	} catch (error) {
		report.result(setUp, false, errorText(error));
		await finish();
		return;
	}
	report.result(setUp, true);
	const s = stack;
	const { n8n, sandbox } = s;
	const secret = sandbox.credentials.webhookSecret;
	const byName = (prefix: string): Workflow => s.workflows.find((w) => w.name.startsWith(prefix))!;
	const urlsOf = (webhookId: string) => s.webhooks.map((w) => `${w.baseUrl}${triggerProductionPath(webhookId)}`);
	const conversationWorkflows = () => ({
		ask: byName('E2E: ask and wait for chat reply (Any)'),
		askLong: byName('E2E: ask and wait for chat reply (Long)'),
		trigger: byName('E2E: conversations trigger'),
	});
	for (const url of [...urlsOf(REPLY_HOOK), ...urlsOf(DEDUP_HOOK), ...urlsOf(CONVERSATION_TRIGGER_HOOK)]) await waitForWebhook(url, 60_000);

	const checks: Check[] = [
		...settingChecks(setting, () => [n8n, ...s.processes]),
		{
			name: 'every process loaded the package from the shared user folder: the main process lists both node types and the credential; no process logged a load error',
			fn: async () => {
				const nodes = await n8n.getAsOwner<Array<{ name: string }>>('/types/nodes.json');
				const names = new Set(nodes.body.map((n) => n.name));
				for (const type of [ACTION_TYPE, TRIGGER_TYPE]) assert(names.has(type), `node type ${type} is not loaded`);
				const creds = await n8n.getAsOwner<Array<{ name: string }>>('/types/credentials.json');
				assert(creds.body.some((c) => c.name === CREDENTIAL_TYPE), `credential type ${CREDENTIAL_TYPE} is not loaded`);
				for (const p of [n8n, ...s.processes]) {
					const bad = /Unrecognized node type|Failed to load (the )?(custom |community )?package|n8n-nodes-business-messaging[^\n]*error/i.exec(log(p));
					assert(!bad, `${p.logFile}: ${bad?.[0]}`);
				}
			},
		},
		{
			name: 'action workflows started on each webhook process run on the worker; the sandbox got correctly signed requests (send text, order update and list)',
			fn: async () => {
				const since = await sandbox.mark();
				const messagesBefore = (await sandbox.messages()).length;
				const runs = [
					{ workflow: byName('E2E: send text'), via: s.webhooks[0] },
					{ workflow: byName('E2E: orders'), via: s.webhooks[1] },
				];
				const ids: string[] = [];
				for (const { workflow, via } of runs) {
					const t0 = Date.now();
					const outcome = await postToWebhook(via.baseUrl, String(workflow.nodes[0].parameters.path), {}, { registeredWithinMs: 60_000 }).catch(async (error: unknown) => {
						const listed = (await n8n.executions(workflow.id, 5)).map((e) => `${e.id} ${e.status}`);
						throw new Error(`${(error as Error).message}; the workflow's runs: ${listed.join(', ') || 'none'}`);
					});
					assertEqual(outcome.status, 200, `${workflow.name} via ${via.baseUrl}: ${outcome.text}`);
					const answeredMs = Date.now() - t0;
					const [execution] = await expectExecutions(n8n, workflow.id, 1, 0);
					say(`${workflow.name} via ${via.baseUrl}: answered ${outcome.status} after ${answeredMs} ms, its run listed ${Date.now() - t0 - answeredMs} ms later`);
					assertEqual(execution.status, 'success', `${workflow.name}: ${JSON.stringify(execution.data?.resultData.error ?? null)}`);
					ids.push(execution.id);
				}
				const requests = await sandbox.requests(since);
				assertEqual(
					requests.map((r) => `${r.method} ${r.path}`).sort(),
					['GET /orders', 'POST /w/message/text', 'PUT /orders/1'].sort(),
					'requests the sandbox recorded',
				);
				const unsigned = requests.filter((r) => !r.authOk);
				assertEqual(unsigned.map((r) => `${r.method} ${r.path}`), [], 'requests failing the signature check');
				const [message] = (await sandbox.messages()).slice(messagesBefore);
				assertEqual([message?.phone, message?.body], ['+15551234567', 'Hello from the e2e suite – ünïcödé ✓'], 'the message the service got');
				assertEqual((await sandbox.order(1)).status, 'accepted', 'order 1 status at the service');
				assertRanOnWorker(s, ids);
			},
		},
		{
			name: 'trigger: signed events delivered by the sandbox alternately to both webhook processes start exactly one run each, on the worker; the message gets a signed reply',
			fn: async () => {
				const workflow = byName('Queue: trigger, reply');
				const since = await sandbox.mark();
				const messagesBefore = (await sandbox.messages()).length;
				const events = [
					{ event: 'message.received', data: { message_id: 'wamid.queue.1', conversation_id: 9101, from: '+15550009101', to: '+15559990000', type: 'text', body: 'Queue hello', timestamp: new Date().toISOString() } },
					{ event: 'order.status.updated', data: { order_id: 3, old_status: 'shipped', new_status: 'delivered', updated_at: new Date().toISOString() } },
					{ event: 'contact.created', data: { contact_id: 9102, name: 'Queue Contact' } },
					{ event: 'conversation.created', data: { conversation_id: 9103, contact_id: 4, phone_number: '+15550009103', created_at: new Date().toISOString() } },
				];
				const urls = urlsOf(REPLY_HOOK);
				for (const [i, e] of events.entries()) {
					const id = await sandbox.deliver({ ...e, url: urls[i % 2] });
					const d = await sandbox.settled(id, 60_000);
					assertEqual([d.state, d.attempts.length, d.attempts[0]?.status], ['delivered', 1, 200], `delivery of ${e.event} to ${urls[i % 2]}`);
				}
				const list = (await expectExecutions(n8n, workflow.id, events.length)).reverse();
				for (const [i, e] of events.entries()) {
					const [json] = nodeOutput(list[i], TRIGGER_NODE);
					assertEqual([json?.event, json?.data], [e.event, e.data], `execution ${list[i].id}`);
					assertEqual(list[i].status, 'success', `execution ${list[i].id} status`);
				}
				assertRanOnWorker(s, list.map((e) => e.id));
				const replies = (await sandbox.messages()).slice(messagesBefore);
				assertEqual(replies.map((m) => m.phone), ['+15550009101'], 'replies sent');
				const unsigned = (await sandbox.requests(since)).filter((r) => !r.authOk);
				assertEqual(unsigned.length, 0, 'requests failing the signature check');
			},
		},
		{
			name: 'trigger: forged (wrong secret) and tampered deliveries to either webhook process get 401 and start nothing',
			fn: async () => {
				const workflow = byName('Queue: trigger, reply');
				const before = (await n8n.executions(workflow.id, 250)).length;
				for (const url of urlsOf(REPLY_HOOK)) {
					const id = await sandbox.deliver({ event: 'order.created', url, signWith: 'not-the-webhook-secret' });
					const d = await sandbox.settled(id, 60_000);
					assertEqual([d.state, d.attempts.length, d.attempts[0]?.status], ['rejected', 1, 401], `forged delivery to ${url}`);
					const body = messageEvent(`tampered-${url}`);
					const ts = nowSeconds();
					const tampered = await deliver(secret, { url, body: body.replace('Queue mode', 'Queue MODE'), timestamp: ts, signature: sign(secret, String(ts), body) });
					assertEqual(tampered.status, 401, `tampered body to ${url}`);
				}
				await expectExecutions(n8n, workflow.id, before, 3000);
			},
		},
		{
			name: `duplicate safety (examples/queue-mode-deduplication.json): ${COPIES.identical + COPIES.fresh} copies of each of ${DEDUP_EVENTS} events sent at the same moment to both webhook processes (identical and fresh signatures) get 200, and exactly one run per event passes the Redis guard; later retries pass none`,
			timeoutMs: 240_000,
			fn: async () => {
				const workflow = byName('Business Messaging: one run per event');
				const urls = urlsOf(DEDUP_HOOK);
				const messagesBefore = (await sandbox.messages()).length;
				const bodies = Array.from({ length: DEDUP_EVENTS }, (_, i) => messageEvent(`dedup-${i}-${Date.now()}`, `+1555000${2000 + i}`));
				const copies = bodies.flatMap((body) => copiesOf(body, urls, COPIES.identical, COPIES.fresh));
				const answers = await deliverTogether(secret, copies);
				const notOk = answers.map((a, i) => [i, a.status, a.error ?? a.body.slice(0, 100)]).filter(([, status]) => status !== 200);
				assertEqual(notOk, [], 'copies not answered 200');
				const perCopy = copies.length;
				let list = await expectExecutions(n8n, workflow.id, perCopy);
				// The sender of each run that got past the guard ("Event" puts the trigger's item back).
				const passed = (l: ExecutionSummary[]) =>
					l.flatMap((e) => nodeOutput(e, FIRST_DELIVERY_NODE)).map((item) => (item.data as { from?: string } | undefined)?.from);
				const phones = bodies.map((b) => (JSON.parse(b) as { data: { from: string } }).data.from);
				assertEqual(passed(list).sort(), [...phones].sort(), 'events that passed the guard (one entry per run)');
				assert(list.every((e) => e.status === 'success'), `failed runs: ${list.filter((e) => e.status !== 'success').map((e) => e.id).join(', ')}`);
				assertRanOnWorker(s, list.map((e) => e.id));
				const replies = (await sandbox.messages()).slice(messagesBefore);
				assertEqual(replies.map((m) => m.phone).sort(), [...phones].sort(), 'replies the service got (one per event)');
				// The service's later retries: the same bodies, fresh signatures, to either process.
				const retries = bodies.map((body, i) => ({ url: urls[(i + 1) % 2], body, timestamp: nowSeconds() }));
				const retryAnswers = await deliverTogether(secret, retries);
				assertEqual(retryAnswers.map((a) => a.status), retries.map(() => 200), 'retries answered');
				list = await expectExecutions(n8n, workflow.id, perCopy + retries.length);
				assertEqual(passed(list).length, DEDUP_EVENTS, 'runs past the guard after the retries');
				assertEqual((await sandbox.messages()).length - messagesBefore, DEDUP_EVENTS, 'replies after the retries');
			},
		},
		{
			name: `conversations: questions asked on the worker are resumed on the worker by the customer’s reply, delivered to the other webhook process and to the first; the trigger’s workflow does not start for them; a run that goes on ${RUNS_ON_SECONDS} s after its reply, longer than the trigger waits for a hand-over, has its reply answered 200 at the first attempt all the same (docs/queue-mode.md)`,
			timeoutMs: 240_000,
			fn: async () => {
				const { ask, askLong, trigger } = conversationWorkflows();
				const [first, second] = s.webhooks;
				const [toFirst, toSecond] = urlsOf(CONVERSATION_TRIGGER_HOOK);
				const triggerRunsBefore = (await n8n.executions(trigger.id, 250)).length;
				// Each question asked through one webhook process, its reply delivered to the other.
				const a = await askCustomer(s, ask, newCustomer(), 'A', first.baseUrl);
				const b = await askCustomer(s, askLong, newCustomer(), 'B', second.baseUrl);
				const deliveries = await Promise.all([customerWrites(s, a.phone, 'reply to A', undefined, toSecond), customerWrites(s, b.phone, 'reply to B', undefined, toFirst)]);
				// One attempt answered 200: the trigger had n8n's answer to its hand-over within 30 s, before B's run ended.
				assertEqual(deliveries.map((d) => [d.state, d.attempts.length, d.attempts[0]?.status]), [['delivered', 1, 200], ['delivered', 1, 200]], 'the replies’ deliveries');
				const runs = [await settledRun(n8n, a), await settledRun(n8n, b)];
				assertEqual(runs.map((r) => r.status), ['success', 'success'], 'the resumed runs');
				const runOnMs = Date.parse(runs[1].stoppedAt ?? '') - Date.parse(deliveries[1].attempts[0].sentAt);
				assert(runOnMs >= RUNS_ON_SECONDS * 1000, `B's run ended ${runOnMs} ms after its reply was sent; expected at least ${RUNS_ON_SECONDS} s`);
				assertEqual(runs.map((r) => (askOutput(r).reply as { body?: string }).body), ['reply to A', 'reply to B'], 'each run’s reply');
				assertRanOnWorker(s, [a.executionId, b.executionId]);
				assertEqual((await n8n.executions(trigger.id, 250)).length, triggerRunsBefore, 'runs of the trigger’s workflow');
			},
		},
		{
			name: 'status waits: a run on the worker waiting for two messages to be delivered, their statuses sent at the same moment, one to each webhook process: both answered 200, the run resumed once, on the worker, with both; the trigger’s workflow does not start for them',
			timeoutMs: 240_000,
			fn: async () => {
				const { trigger } = conversationWorkflows();
				const [first] = s.webhooks;
				const triggerRunsBefore = (await n8n.executions(trigger.id, 250)).length;
				const run = await startSendingTo(s, byName(STATUS_BULK_WORKFLOW), [newCustomer(), newCustomer()], first.baseUrl);
				const at = new Date().toISOString();
				// Each process counts its status, and saves over the other's (last write wins): the recount has to close it.
				const ids = await Promise.all(run.messageIds.map(async (id, i) => await sendStatus(s, id, 'delivered', { at, url: urlsOf(CONVERSATION_TRIGGER_HOOK)[i] })));
				// Long enough for the service's first retry to be answered: on a loaded machine a first attempt can go
				// unanswered within the service's 10 s, and the check takes a retry's 200 (its last answer).
				const retried = DEFAULT_RETRY_DELAYS_MS[0] + DEFAULT_DELIVERY_TIMEOUT_MS + 20_000;
				const deliveries = await Promise.all(ids.map(async (id) => await sandbox.settled(id, retried)));
				assertEqual(deliveries.map((d) => [d.state, d.attempts.at(-1)?.status]), [['delivered', 200], ['delivered', 200]], 'the statuses’ deliveries (state, last answer)');
				const resumed = await settledRun(n8n, run, 60_000);
				assertEqual(resumed.status, 'success', 'the resumed run');
				const out = nodeOutput(resumed, SEND_NODE);
				assertEqual(out.map((o) => [o.message_id, o.reached, o.deliveredAt]), run.messageIds.map((id) => [id, true, at]), 'each message: message_id, reached, deliveredAt');
				assertRanOnWorker(s, [run.executionId]);
				assertEqual((await n8n.executions(trigger.id, 250)).length, triggerRunsBefore, 'runs of the trigger’s workflow');
			},
		},
		{
			name: 'status waits: at Limit Wait Time the trigger hands the run on the worker what it counted: reached: false, with the delivered sent to the other webhook process during the wait',
			timeoutMs: 180_000,
			fn: async () => {
				const [first] = s.webhooks;
				const run = await startSendingTo(s, byName(STATUS_LIMIT_WORKFLOW), [newCustomer()], first.baseUrl);
				const at = new Date().toISOString();
				const delivery = await sandbox.settled(await sendStatus(s, run.messageIds[0], 'delivered', { at, url: urlsOf(CONVERSATION_TRIGGER_HOOK)[1] }), 60_000);
				assertEqual([delivery.state, delivery.attempts.at(-1)?.status], ['delivered', 200], 'the delivered’s delivery (state, last answer)');
				const resumed = await settledRun(n8n, run, 120_000);
				assertEqual(resumed.status, 'success', 'the run');
				// n8n's own resume (the fallback, 90 s later) would pass on what was known when the wait began: no status.
				const out = nodeOutput(resumed, SEND_NODE);
				assertEqual(out.map((o) => [o.message_id, o.reached, o.status, o.deliveredAt]), [[run.messageIds[0], false, 'delivered', at]], 'message_id, reached, status, deliveredAt');
				assertRanOnWorker(s, [run.executionId]);
			},
		},
		{
			// The early statuses go to the second webhook process, the node names its messages at the first (WEBHOOK_URL),
			// which also takes the late read: the request of an early status starts a run, so n8n saves nothing of it there.
			name: `${FAST_SERVICE_CHECK}; the early ones taken by the other webhook process than the one the node names its messages at`,
			timeoutMs: 180_000,
			fn: async () => {
				const [toNaming, toOther] = urlsOf(CONVERSATION_TRIGGER_HOOK);
				await fastService(s, { early: toOther, late: toNaming }, s.webhooks[0].baseUrl);
			},
		},
		{
			name: `conversations: replies to a webhook process that stalls (SIGSTOP ${STALL_MS / 1000} s, longer than the service waits), each sent again to the other webhook process when the first gives no answer, as a load balancer would: every retry is answered 200 and every reply resumes its run; a reply the stalled process had read before the stall may also start the trigger’s workflow when it goes on (docs/queue-mode.md), and nothing else does`,
			timeoutMs: 300_000,
			fn: async () => {
				const { ask, trigger } = conversationWorkflows();
				// The second process stalls: resume addresses point to the first (WEBHOOK_URL, the load balancer's
				// address in a real deployment, which would route them to a process that answers).
				const [other, stalling] = s.webhooks;
				const [toOther, toStalling] = urlsOf(CONVERSATION_TRIGGER_HOOK);
				const triggerRunsBefore = (await n8n.executions(trigger.id, 250)).length;
				const questions = [];
				for (let i = 0; i < STALL_REPLIES; i++) questions.push(await askCustomer(s, ask, newCustomer(), `stall-${i}`, other.baseUrl));
				// Each customer's reply, as the service sends it (to the sandbox's sender number); its body is `Queue mode <tag>`.
				const tags = questions.map((q) => `stall-${q.executionId}`);
				const bodies = questions.map((q, i) => messageEvent(tags[i], q.phone));
				const firstCopies = Promise.all(bodies.map(async (body) => await deliver(secret, { url: toStalling, body, timestamp: nowSeconds() }, DEFAULT_DELIVERY_TIMEOUT_MS)));
				await sleep(STALL_AFTER_MS);
				const retries = await stall(stalling.pid!, async () => {
					const first = await firstCopies;
					const answers = await Promise.all(bodies.map(async (body, i) => (first[i].status === 200 ? first[i] : await deliver(secret, { url: toOther, body, timestamp: nowSeconds() }, DEFAULT_DELIVERY_TIMEOUT_MS))));
					say(`stall: first copies ${first.map((a) => a.status || a.error).join(', ')}; retries to the other process ${answers.map((a) => `${a.status} ${a.body}`).join(', ')}`);
					return answers;
				});
				assertEqual(retries.map((a) => a.status), bodies.map(() => 200), 'each reply answered 200 (first copy or retry)');
				const runs = await Promise.all(questions.map(async (q) => await settledRun(n8n, q)));
				assertEqual(runs.map((r) => [r.status, (askOutput(r).reply as { body?: string }).body]), tags.map((tag) => ['success', `Queue mode ${tag}`]), 'each run and its reply');
				// A reply handed over by one process and, unseen by the other, passed on by it to the trigger's
				// workflow (docs/queue-mode.md): the stalled process, going on with the trigger's waits as it read
				// them before the stall, finds the run taken by the retry; or the retry finds the run taken by the
				// stalled process's hand-over before the stall and starts the trigger's workflow itself (its answer
				// names that run). A second run for the reply, once; none may come from elsewhere.
				await sleep(10_000);
				const messageIds = bodies.map((body) => (JSON.parse(body) as { data: { message_id: string } }).data.message_id);
				const runsNow = await n8n.executions(trigger.id, 250); // newest first
				const started = runsNow.slice(0, runsNow.length - triggerRunsBefore);
				const first = await firstCopies;
				const startedByRetry = retries.filter((_, i) => first[i].status !== 200).map((a) => startedExecutionId(a.body));
				const byStalled = started.filter((e) => new RegExp(`Enqueued execution ${e.id} \\(job`).test(log(stalling)));
				const byRetry = started.filter((e) => startedByRetry.includes(e.id));
				const unexplained = started.filter((e) => !messageIds.some((id) => JSON.stringify(e.data ?? {}).includes(id)) || (!byStalled.includes(e) && !byRetry.includes(e)));
				assertEqual(unexplained.map((e) => e.id), [], 'runs of the trigger’s workflow neither started by the stalled process nor named in a retry’s answer, each with one of the replies');
				const twice = messageIds.filter((id) => started.filter((e) => JSON.stringify(e.data ?? {}).includes(id)).length > 1);
				assertEqual(twice, [], 'replies that started the trigger’s workflow more than once');
				say(`stall: of ${STALL_REPLIES} replies, ${byStalled.length} also started the trigger’s workflow from the stalled process, ${byRetry.length} from the retry (the stalled process had handed it over before the stall)`);
			},
		},
		{
			name: `trigger, a webhook process restarted: ${WHILE_N8N_STARTS}, on the worker`,
			timeoutMs: 480_000,
			fn: async () => {
				const restarting = s.webhooks[1];
				const workflow = byName('Queue: trigger, reply');
				const url = `${restarting.baseUrl}${triggerProductionPath(REPLY_HOOK)}`;
				const ran = await eventsWhileN8nStarts({ restarting, command: 'webhook', url, secret, api: n8n, workflowId: workflow.id, log: say });
				assertRanOnWorker(s, ran);
			},
		},
		// Several workflows on one URL, deliveries landing on either webhook process in turn (copies to both at once
		// need the Redis guard, as for any trigger; a test listener needs /webhook-test/ routed to the main process).
		...sharingChecks(s, { deliverTo: s.webhooks, webhookUrl: urlsOf(REPLY_HOOK)[0], log: say }).filter((check) => !/eight copies|listening|second service account/.test(check.name)),
		{
			name: 'no secret appears in any process’s log or in any execution’s data',
			fn: async () => {
				const secrets = [sandbox.credentials.clientSecret, sandbox.credentials.webhookSecret];
				const haystacks: Array<[string, string]> = [['executions', JSON.stringify(await everyExecution(n8n))], ...[n8n, ...s.processes].map((p): [string, string] => [p.logFile, log(p)])];
				for (const [where, text] of haystacks) for (const secret of secrets) assert(!text.includes(secret), `a secret appears in ${where}`);
			},
		},
	];
	for (const check of checks) await report.run({ ...check, name: `${prefix}${check.name}` });
	await finish();
}

/**
 * n8n's defaults and the expression-engine setting the docs recommend for every process of a busy deployment (it
 * changes when the webhook processes and the worker build expression isolates), side by side (QUEUE_LANES, default
 * 2; 1: one after another): each deployment has its own PostgreSQL, Redis, ports, folder and sandbox, and much of a
 * check is waiting (on the worker, the webhook processes, polling).
 */
const LANES = lanesFromEnv('QUEUE_LANES', 2);

async function main(): Promise<number> {
	const settings = [N8N_DEFAULTS, RECOMMENDED_SETTING];
	// One reporter per deployment: each one's logs stay when that one failed.
	const reports = settings.map(() => createReporter());
	await inLanes(settings, LANES, async (setting, i) => {
		process.stdout.write(`# ${setting.title}\n`);
		await queueSuite(reports[i], setting, setting === RECOMMENDED_SETTING ? `${setting.title}: ` : '');
	});
	await stopAll();
	return closingLine(...reports);
}

runSuite(main);
