/**
 * Message → Ask and Wait for Chat Reply in a real n8n, with the sandbox playing the customer: the
 * question goes out, the customer's reply (a signed message.received the sandbox delivers to the
 * trigger with Resume Waiting Runs on) resumes the asking run with the reply, and the trigger's own
 * workflow does not start for it. What a user sees is read from the executions n8n saved.
 */
import { randomBytes } from 'node:crypto';

import { type ExecutionSummary, type N8n, N8N_STARTING_UP_ANSWER, n8nId, nodeOutput, underWay } from '../../../tools/n8n/n8n';
import { STALL_MS, stall, waitFor } from '../../../tools/n8n/proc';
import { awaitsLongRetry, type Delivery } from '../../../tools/n8n/sandbox';
import type { Stack } from '../../../tools/n8n/stack';
import { chain, node, webhookIdFor, webhookTrigger, type Workflow } from '../../../tools/n8n/workflow';
import { action, atOwnPath, CREDENTIAL_TYPE, type CredentialRef, exampleWorkflow, TRIGGER_TYPE, triggerProductionPath } from '../../../tools/n8n/workflows';
import { ORDER_CONFIRMATION_TEMPLATE_ID } from '../../../tools/sandbox/seed';
import { SANDBOX_SENDER_PHONE } from '../../../tools/sandbox/webhooks';
import { SIGNATURE_HEADER, sign, TIMESTAMP_HEADER } from '../../trigger/requests';
import { assert, assertEqual, type Check } from '../lib/report';
import { execution } from './sendAndWait';
import { postToWebhook } from '../../../tools/n8n/webhookPost';

export { execution };

export const ASK_NODE = 'Ask';
/** The node after the asking node: its start is the resumed run's first node (the benchmark reads it). */
export const AFTER_NODE = 'After';
export const CONVERSATION_TRIGGER_HOOK = webhookIdFor('e2e-conversations');
const TRIGGER_NODE = 'Business Messaging Trigger';
export const MESSAGE_NODE = 'Message';

/** The message that makes the trigger's own workflow ask its sender a question. */
export const ASK_ME = 'ask me';
const ASKED_IN_TRIGGER = 'Ask In Trigger Workflow';

/**
 * The trigger that resumes waiting runs (one per n8n), every event: a message "ask me" makes this
 * workflow ask its sender a question itself; every other event reaches `Message`.
 */
export function conversationTriggerWorkflow(credential: CredentialRef, webhookId = CONVERSATION_TRIGGER_HOOK, alsoStartForReplies = false): Workflow {
	const isAskMe = node('Is Ask Me?', 'n8n-nodes-base.if', 2.2, {
		conditions: {
			options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
			conditions: [{ id: 'c1', leftValue: '={{ $json.data.body }}', rightValue: ASK_ME, operator: { type: 'string', operation: 'equals' } }],
			combinator: 'and',
		},
		options: {},
	});
	const askBack = action(ASKED_IN_TRIGGER, credential, { resource: 'message', operation: 'askAndWaitForReply', phoneNumberId: '', phone: '={{ $json.data.from }}', textSource: 'text', text: 'Which day suits you?' });
	const after = node('After In Trigger Workflow', 'n8n-nodes-base.noOp', 1, {});
	const message = node(MESSAGE_NODE, 'n8n-nodes-base.noOp', 1, {});
	const wf = chain('e2eConvTrigger', 'E2E: conversations trigger (Resume Waiting Runs)', [
		node(TRIGGER_NODE, TRIGGER_TYPE, 2, { events: ['*'], resumeWaitingRuns: true, alsoStartForReplies, options: {} }, {
			credentials: { [CREDENTIAL_TYPE]: credential },
			webhookId,
		}),
		isAskMe,
	]);
	wf.nodes.push(askBack, after, message);
	const to = (name: string) => [{ node: name, type: 'main', index: 0 }];
	wf.connections[isAskMe.name] = { main: [to(askBack.name), to(message.name)] };
	wf.connections[askBack.name] = { main: [to(after.name)] };
	return wf;
}

/**
 * Webhook (answers at once) → Ask → After. The question goes to `body.phone` of the request that
 * starts it; `parameters` are the asking node's. `runsOnForSeconds`: a Wait node between Ask and After, so the run
 * goes on that long after the reply resumed it (n8n waits in the run for less than 65 s).
 */
export function askWorkflow(credential: CredentialRef, key: string, parameters: Record<string, unknown>, { runsOnForSeconds }: { runsOnForSeconds?: number } = {}): Workflow {
	return chain(`e2eAsk${key}`, `E2E: ask and wait for chat reply (${key})`, [
		webhookTrigger(`e2e-ask-${key.toLowerCase()}`, 'Run', 'onReceived'),
		action(ASK_NODE, credential, {
			resource: 'message',
			operation: 'askAndWaitForReply',
			phoneNumberId: '',
			phone: '={{ $json.body.phone }}',
			textSource: 'text',
			text: '=Question for {{ $json.body.phone }} ({{ $json.body.tag }})',
			...parameters,
		}),
		...(runsOnForSeconds ? [node('Runs On', 'n8n-nodes-base.wait', 1.1, { resume: 'timeInterval', amount: runsOnForSeconds, unit: 'seconds' }, { webhookId: webhookIdFor(`runs-on-${key}`) })] : []),
		node(AFTER_NODE, 'n8n-nodes-base.noOp', 1, {}),
	]);
}

/** Ask, then ask again (the second with a short limit): a chained question that gets no reply. */
function chainedWorkflow(credential: CredentialRef): Workflow {
	const first = action(ASK_NODE, credential, { resource: 'message', operation: 'askAndWaitForReply', phoneNumberId: '', phone: '={{ $json.body.phone }}', textSource: 'text', text: 'First question' });
	const second = action('Ask Again', credential, {
		resource: 'message',
		operation: 'askAndWaitForReply',
		phoneNumberId: '',
		phone: "={{ $('Run').item.json.body.phone }}",
		textSource: 'text',
		text: 'Second question',
		options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '={{ $now.plus({ seconds: 3 }).toISO() }}' } } },
	});
	return chain('e2eAskChained', 'E2E: ask and wait for chat reply (Chained)', [webhookTrigger('e2e-ask-chained', 'Run', 'onReceived'), first, second, node(AFTER_NODE, 'n8n-nodes-base.noOp', 1, {})]);
}

/**
 * The limit of the question nobody answers in the kill check. It is asked just before the first kill's replies, so
 * the limit passes after that kill (while n8n is down or once it is back), never at it: a run n8n resumes at its
 * limit when the SIGKILL comes dies with it (crashed), as any running workflow would (seen in CI with the question
 * asked before the round's others). Asked so, it waited 3 s before the kill alone and 19 s in a loaded npm test.
 */
const RESTART_LIMIT_SECONDS = 60;
/** How close to that limit a kill may come: n8n resumes the run at its limit, give or take its timer. */
const LIMIT_CLEAR_SECONDS = 5;
/** How long the kill check waits for a first reply's 2xx. */
const FIRST_2XX_WITHIN_MS = 150_000;

const limit = (seconds: number) => ({ limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: `={{ $now.plus({ seconds: ${seconds} }).toISO() }}` } } });

export function conversationWorkflows(credential: CredentialRef): Workflow[] {
	return [
		conversationTriggerWorkflow(credential),
		askWorkflow(credential, 'Any', {}),
		askWorkflow(credential, 'Timeout', { options: limit(3) }),
		askWorkflow(credential, 'Unanswered', { options: limit(RESTART_LIMIT_SECONDS) }),
		askWorkflow(credential, 'Sender', { options: { senderPhone: SANDBOX_SENDER_PHONE } }),
		askWorkflow(credential, 'Template', {
			textSource: 'template',
			templateId: { __rl: true, mode: 'id', value: String(ORDER_CONFIRMATION_TEMPLATE_ID) },
			placeholderValues: { mappingMode: 'defineBelow', value: { 'Body {{1}}': '={{ $json.body.tag }}' } },
			onUnexpectedReply: 'keepWaiting',
			reaskText: 'Please reply YES or NO',
		}),
		chainedWorkflow(credential),
	];
}

export interface Question {
	workflow: Workflow;
	executionId: string;
	phone: string;
	/** The question's text as the sandbox received it. */
	text: string;
}

function byKey(stack: Stack, key: string): Workflow {
	return stack.workflows.find((w) => w.name === `E2E: ask and wait for chat reply (${key})`)!;
}

/** The texts the sandbox got for `phone`, in order. */
export const sentTo = async (stack: Stack, phone: string) => (await stack.sandbox.messages()).filter((m) => m.phone === phone).map((m) => m.body);

/** A phone number of its own for each question, so checks never answer each other's. */
export function newCustomer(): string {
	return `+1555${String(1_000_000 + (randomBytes(3).readUIntBE(0, 3) % 9_000_000))}`;
}

/**
 * Starts `workflow` for `phone` (through `via`, n8n's address by default) and waits until its run waits
 * for the reply; the question the sandbox got.
 */
export async function askCustomer(stack: Stack, workflow: Workflow, phone: string, tag = 'ORD-1', via = stack.n8n.baseUrl): Promise<Question> {
	return await startAsking(stack, workflow, phone, { phone, tag }, via);
}

/** POSTs `body` to the workflow's Webhook node at `via` (n8n's address), once n8n serves it; asserts 200. */
export async function startWorkflow(workflow: Workflow, body: unknown, via: string): Promise<void> {
	const path = String(workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!.parameters.path);
	const { status } = await postToWebhook(via, path, body);
	assertEqual(status, 200, `starting ${workflow.name}`);
}

/** POSTs `body` to the workflow's Webhook node, then waits for the question to `phone` and for the run to wait. */
export async function startAsking(stack: Stack, workflow: Workflow, phone: string, body: unknown, via = stack.n8n.baseUrl): Promise<Question> {
	const { n8n, sandbox } = stack;
	const since = await sandbox.mark();
	await startWorkflow(workflow, body, via);
	const sent = await waitFor(
		`the question to ${phone}`,
		async () => (await sandbox.requests(since)).find((r) => r.path.endsWith('/w/message/text') && (r.json as { phone?: string })?.phone === phone),
		60_000,
		200,
	);
	// The run is found through the trigger's record of its wait (n8n before 2.41 leaves waiting runs out of its list).
	const executionId = await waitFor(
		`the wait of the run asking ${phone}`,
		async () => {
			const waits = (await triggerWaits(stack)).filter((w) => w.customer === phone.replace(/\D/g, '')).sort((a, b) => b.askedAt - a.askedAt);
			return waits[0] && /\/webhook-waiting\/([^/]+)\//.exec(waits[0].resumeUrl)?.[1];
		},
		30_000,
		300,
	);
	await waitFor(`execution ${executionId} to wait`, async () => ((await execution(n8n, workflow.id, executionId))?.status === 'waiting' ? true : undefined), 60_000, 300);
	return { workflow, executionId, phone, text: String((sent.json as { body: string }).body) };
}

/**
 * The run once it no longer waits or runs, with the node after the waiting one (`After`) run. A timeout says the
 * status last seen (a crashed run may still be resumed by a reply's retry on n8n before 2.41, so it is polled on).
 */
export async function settledRun(n8n: N8n, question: Pick<Question, 'workflow' | 'executionId'>, timeoutMs = 120_000): Promise<ExecutionSummary> {
	let lastSeen = 'not found';
	return await waitFor(
		`execution ${question.executionId} to finish`,
		async () => {
			const e = await execution(n8n, question.workflow.id, question.executionId);
			if (!e) return undefined;
			const afterRan = nodeOutput(e, AFTER_NODE).length > 0;
			lastSeen = `${e.status}, ${afterRan ? 'After run' : 'After not run'}`;
			return !underWay(e.status) && afterRan ? e : undefined;
		},
		timeoutMs,
		300,
	).catch((error: unknown) => {
		throw new Error(`${String(error instanceof Error ? error.message : error)} (last seen: ${lastSeen})`);
	});
}

/** The customer writes `body` (to the sandbox's sender number unless `to`); the delivery once settled. */
export async function customerWrites(stack: Stack, from: string, body: string, to?: string, url?: string): Promise<Delivery> {
	const id = await stack.sandbox.customerMessage({ from, body, to, url: url ?? `${stack.n8n.baseUrl}${triggerProductionPath(CONVERSATION_TRIGGER_HOOK)}` });
	return await stack.sandbox.settled(id, 60_000);
}

async function status(n8n: N8n, question: Question): Promise<string | undefined> {
	return (await execution(n8n, question.workflow.id, question.executionId))?.status;
}

/** Runs of the conversation trigger's workflow so far. */
export async function triggerRuns(n8n: N8n, stack: Stack): Promise<ExecutionSummary[]> {
	const workflow = stack.workflows.find((w) => w.id === conversationTriggerWorkflow({ id: '', name: '' }).id)!;
	return await n8n.executions(workflow.id, 250);
}

/** Messages that started the trigger's workflow, as `from: body`. */
async function messagesSeenByTrigger(stack: Stack): Promise<string[]> {
	return (await triggerRuns(stack.n8n, stack)).flatMap((e) => nodeOutput(e, MESSAGE_NODE)).map((j) => {
		const data = (j.data ?? {}) as { from?: string; body?: string };
		return `${data.from}: ${data.body}`;
	});
}

/** The only item out of the asking node. */
export function askOutput(run: ExecutionSummary, nodeName = ASK_NODE): Record<string, unknown> {
	const items = nodeOutput(run, nodeName);
	assertEqual(items.length, 1, `items out of ${nodeName}`);
	return items[0];
}

export function conversationChecks(stack: Stack): Check[] {
	const { n8n, sandbox } = stack;
	let timeout: Question | undefined;
	let chained: Question | undefined;
	return [
		{
			name: 'conversations: Limit Wait Time — the question goes out and the run waits for the chat reply; a chained question gets the reply to its first, and waits for the second',
			fn: async () => {
				timeout = await askCustomer(stack, byKey(stack, 'Timeout'), newCustomer());
				// Checked last, as the timeout: n8n ends the second question's wait (3 s) when it next looks for due waits, once a minute.
				chained = await askCustomer(stack, stack.workflows.find((w) => w.name.endsWith('(Chained)'))!, newCustomer());
				await customerWrites(stack, chained.phone, 'answer to the first');
				// Sent now, not while a later check counts what the sandbox got.
				const phone = chained.phone;
				await waitFor('the chained run’s second question', async () => ((await sentTo(stack, phone)).includes('Second question') ? true : undefined), 30_000, 200);
			},
		},
		{
			name: 'conversations: a chat reply resumes the asking run with the reply (message_id, from, to, type, body, time, question, waited); the trigger’s workflow does not start for it',
			fn: async () => {
				const q = await askCustomer(stack, byKey(stack, 'Any'), newCustomer());
				assertEqual(q.text, `Question for ${q.phone} (ORD-1)`, 'the question the customer got');
				const seenBefore = await messagesSeenByTrigger(stack);
				const d = await customerWrites(stack, q.phone, 'Tomorrow at 9 – ünïcödé ✓');
				assertEqual([d.state, d.attempts.length, d.attempts[0]?.status], ['delivered', 1, 200], 'the reply’s delivery');
				const run = await settledRun(n8n, q);
				assertEqual(run.status, 'success', 'status of the resumed run');
				const out = askOutput(run);
				const data = (JSON.parse(d.body) as { data: Record<string, unknown> }).data;
				assertEqual(out.replied, true, 'replied');
				assertEqual(out.answer, null, 'answer (any reply)');
				assertEqual(out.reply, { message_id: data.message_id, conversation_id: data.conversation_id, from: q.phone, to: SANDBOX_SENDER_PHONE, type: 'text', body: 'Tomorrow at 9 – ünïcödé ✓', timestamp: data.timestamp }, 'reply');
				const question = out.question as Record<string, unknown>;
				assertEqual([question.to, question.body], [q.phone, q.text], 'question');
				assert(typeof question.message_id === 'string' && question.message_id !== '', `question.message_id ${String(question.message_id)}`);
				assert(typeof out.waitedSeconds === 'number' && out.waitedSeconds >= 0 && out.waitedSeconds < 120, `waitedSeconds ${String(out.waitedSeconds)}`);
				assertEqual(nodeOutput(run, AFTER_NODE).length, 1, 'the node after the question ran');
				assertEqual((await messagesSeenByTrigger(stack)).length, seenBefore.length, 'runs of the trigger’s workflow for the reply');
			},
		},
		{
			name: 'conversations: a message from another number, to another sender number, or a status update resumes nothing (the other messages start the trigger’s workflow as before)',
			fn: async () => {
				const q = await askCustomer(stack, byKey(stack, 'Sender'), newCustomer());
				const stranger = newCustomer();
				const fromOther = await customerWrites(stack, stranger, 'Hello from someone else');
				const toOther = await customerWrites(stack, q.phone, 'Sent to your other number', '+15559990077');
				const statusUpdate = await sandbox.settled(await sandbox.deliver({ event: 'message.status.updated', url: `${n8n.baseUrl}${triggerProductionPath(CONVERSATION_TRIGGER_HOOK)}`, data: { message_id: 'wamid.x', status: 'read', timestamp: new Date().toISOString() } }), 60_000);
				for (const d of [fromOther, toOther, statusUpdate]) assertEqual([d.state, d.attempts[0]?.status], ['delivered', 200], `delivery ${d.body.slice(0, 80)}`);
				await waitFor('the trigger’s workflow to see both messages', async () => {
					const seen = await messagesSeenByTrigger(stack);
					return seen.includes(`${stranger}: Hello from someone else`) && seen.includes(`${q.phone}: Sent to your other number`) ? true : undefined;
				}, 60_000, 500);
				assertEqual(await status(n8n, q), 'waiting', 'the asking run after those messages');
				await customerWrites(stack, q.phone, 'yes');
				const run = await settledRun(n8n, q);
				assertEqual((askOutput(run).reply as Record<string, unknown>).body, 'yes', 'the reply that resumed it');
			},
		},
		{
			name: 'conversations: the trigger’s own workflow asks too: "ask me" starts it, it asks back, and the customer’s reply resumes that run (no second run of it)',
			fn: async () => {
				const phone = newCustomer();
				const trigger = stack.workflows.find((w) => w.name.startsWith('E2E: conversations trigger'))!;
				const before = (await triggerRuns(n8n, stack)).length;
				await customerWrites(stack, phone, ASK_ME);
				const sent = await waitFor('the question asked by the trigger’s workflow', async () => (await sandbox.messages()).find((m) => m.phone === phone), 60_000, 300);
				assertEqual(sent.body, 'Which day suits you?', 'the question');
				await waitFor('the asking run to wait', async () => ((await triggerWaits(stack)).some((w) => w.customer === phone.replace(/\D/g, '')) ? true : undefined), 30_000, 300);
				await customerWrites(stack, phone, 'Tuesday');
				const run = await waitFor('the trigger workflow’s run to finish', async () => {
					const runs = await n8n.executions(trigger.id, 250);
					return runs.find((e) => e.status === 'success' && nodeOutput(e, 'After In Trigger Workflow').length > 0 && JSON.stringify(e.data).includes(phone));
				}, 120_000, 500);
				assertEqual((askOutput(run, ASKED_IN_TRIGGER).reply as Record<string, unknown>).body, 'Tuesday', 'the reply in the run that asked');
				assertEqual((await triggerRuns(n8n, stack)).length, before + 1, 'runs of the trigger’s workflow (the "ask me" one only)');
			},
		},
		{
			name: 'conversations: two runs, two customers — each run gets its own customer’s reply',
			fn: async () => {
				const [a, b] = [await askCustomer(stack, byKey(stack, 'Any'), newCustomer(), 'A'), await askCustomer(stack, byKey(stack, 'Any'), newCustomer(), 'B')];
				await Promise.all([customerWrites(stack, b.phone, 'I am B'), customerWrites(stack, a.phone, 'I am A')]);
				const [runA, runB] = [await settledRun(n8n, a), await settledRun(n8n, b)];
				assertEqual([(askOutput(runA).reply as Record<string, unknown>).body, (askOutput(runB).reply as Record<string, unknown>).body], ['I am A', 'I am B'], 'replies');
			},
		},
		{
			name: 'conversations: two runs waiting for the same customer — the newest question gets the reply, the older the next one',
			fn: async () => {
				const phone = newCustomer();
				const older = await askCustomer(stack, byKey(stack, 'Any'), phone, 'older');
				const newer = await askCustomer(stack, byKey(stack, 'Any'), phone, 'newer');
				await customerWrites(stack, phone, 'first reply');
				const runNewer = await settledRun(n8n, newer);
				assertEqual((askOutput(runNewer).reply as Record<string, unknown>).body, 'first reply', 'the newest question’s reply');
				assertEqual(await status(n8n, older), 'waiting', 'the older question after the first reply');
				await customerWrites(stack, phone, 'second reply');
				assertEqual((askOutput(await settledRun(n8n, older)).reply as Record<string, unknown>).body, 'second reply', 'the older question’s reply');
			},
		},
		{
			name: 'conversations: a repeated delivery of the same reply resumes nothing a second time and starts nothing',
			fn: async () => {
				const phone = newCustomer();
				const q = await askCustomer(stack, byKey(stack, 'Any'), phone);
				const next = await askCustomer(stack, byKey(stack, 'Any'), phone, 'next');
				const first = await customerWrites(stack, phone, 'only once');
				const runBefore = await settledRun(n8n, next);
				const seenBefore = await messagesSeenByTrigger(stack);
				// The service sends the same bytes again (a retry), with a fresh signature, twice.
				const url = `${n8n.baseUrl}${triggerProductionPath(CONVERSATION_TRIGGER_HOOK)}`;
				for (let i = 0; i < 2; i++) {
					const again = await sandbox.settled(await sandbox.deliver({ event: 'message.received', url, body: first.body }), 60_000);
					assertEqual([again.state, again.attempts[0]?.status], ['delivered', 200], 'the repeated delivery');
				}
				await new Promise((resolve) => setTimeout(resolve, 2000));
				assertEqual(await status(n8n, q), 'waiting', 'the older question after the repeats');
				const runAfter = await execution(n8n, next.workflow.id, next.executionId);
				assertEqual(JSON.stringify(runAfter?.data?.resultData.runData), JSON.stringify(runBefore.data?.resultData.runData), 'the resumed run, unchanged');
				assertEqual((await messagesSeenByTrigger(stack)).length, seenBefore.length, 'runs of the trigger’s workflow for the repeats');
			},
		},
		{
			name: 'conversations: a template question with YES/NO quick replies — an unexpected reply asks again and keeps waiting; " yes! " resumes with answer YES',
			fn: async () => {
				const q = await askCustomer(stack, byKey(stack, 'Template'), newCustomer(), 'ORD-7');
				assertEqual(q.text, 'Your order ORD-7 is ready: reply YES to confirm or NO to cancel.', 'the question from the template');
				const since = await sandbox.mark();
				await customerWrites(stack, q.phone, 'maybe?');
				const reask = await waitFor('the re-ask', async () => (await sandbox.requests(since)).find((r) => r.path.endsWith('/w/message/text')), 30_000, 200);
				assertEqual([(reask.json as { phone: string }).phone, (reask.json as { body: string }).body], [q.phone, 'Please reply YES or NO'], 'the re-ask');
				assertEqual(await status(n8n, q), 'waiting', 'after an unexpected reply');
				await customerWrites(stack, q.phone, ' yes! ');
				const out = askOutput(await settledRun(n8n, q));
				assertEqual([out.replied, out.answer, (out.reply as Record<string, unknown>).body], [true, 'YES', ' yes! '], 'replied, answer, body');
			},
		},
		{
			name: 'conversations: a forged, unsigned, tampered or stale reply, and a direct call of the resume address, resume nothing; the genuine reply then does',
			fn: async () => await forgeries(stack, byKey(stack, 'Any')),
		},
		{
			name: 'conversations: no reply by Limit Wait Time — the run goes on with replied = false; a reply after that resumes nothing',
			timeoutMs: 240_000,
			fn: async () => {
				assert(timeout, 'the timeout question was not asked');
				const run = await settledRun(n8n, timeout, 200_000);
				assertEqual(run.status, 'success', 'status');
				const out = askOutput(run);
				assertEqual([out.replied, out.answer, out.reply], [false, null, null], 'replied, answer, reply');
				assertEqual((out.question as Record<string, unknown>).to, timeout.phone, 'question.to');
				const late = await customerWrites(stack, timeout.phone, 'too late');
				assertEqual(late.attempts[0]?.status, 200, 'the late reply’s delivery');
				await waitFor('the late reply to start the trigger’s workflow', async () => ((await messagesSeenByTrigger(stack)).includes(`${timeout!.phone}: too late`) ? true : undefined), 60_000, 500);
				assertEqual(nodeOutput((await execution(n8n, timeout.workflow.id, timeout.executionId))!, ASK_NODE).length, 1, 'items of the ended run');
			},
		},
		{
			name: 'conversations: a chained question with no reply goes on with replied = false, never the earlier reply',
			timeoutMs: 240_000,
			fn: async () => {
				assert(chained, 'the chained question was not asked');
				const run = await settledRun(n8n, chained, 200_000);
				assertEqual((askOutput(run).reply as Record<string, unknown>).body, 'answer to the first', 'first answer');
				const second = askOutput(run, 'Ask Again');
				assertEqual([second.replied, second.answer, second.reply], [false, null, null], 'the second question without a reply');
			},
		},
	];
}

/**
 * What an attacker can send to a waiting run's resume address (it is in n8n's logs and in the execution
 * data): a reply signed with another secret, none, a body changed after signing, a signature older than
 * 300 s, another number's genuine reply, a reply older than the question. None may resume the run.
 */
async function forgeries(stack: Stack, workflow: Workflow): Promise<void> {
	const { n8n, sandbox } = stack;
	const secret = sandbox.credentials.webhookSecret;
	const q = await askCustomer(stack, workflow, newCustomer());
	const resumeUrl = await resumeAddress(stack, q);
	const now = Math.floor(Date.now() / 1000);
	const event = (body: string, extra: Record<string, unknown> = {}) =>
		JSON.stringify({ event: 'message.received', timestamp: new Date().toISOString(), data: { message_id: `wamid.forged.${randomBytes(4).toString('hex')}`, conversation_id: 1, from: q.phone, to: SANDBOX_SENDER_PHONE, type: 'text', body, timestamp: new Date().toISOString(), ...extra } });
	const signed = (body: string, ts = now, key = secret) => ({ [SIGNATURE_HEADER]: sign(key, String(ts), body), [TIMESTAMP_HEADER]: String(ts) });
	const genuine = event('forged: tampered');
	const cases: Array<[string, string, Record<string, string>]> = [
		['no signature', event('forged: unsigned'), {}],
		['signed with another secret', event('forged: other secret'), signed(event('x'), now, 'not-the-secret')],
		['body changed after signing', genuine.replace('tampered', 'TAMPERED'), signed(genuine)],
		['signature 301 s old', event('forged: stale'), signed(event('forged: stale'), now - 301)],
		['from another number, genuinely signed', event('forged: other number', { from: '+15550009999' }), {}],
		['written before the question, genuinely signed', event('forged: old message', { timestamp: new Date(Date.now() - 3_600_000).toISOString() }), {}],
	];
	const taken: string[] = [];
	for (const [what, body, headers] of cases) {
		const h = Object.keys(headers).length || what === 'no signature' ? headers : signed(body);
		const res = await fetch(resumeUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...h }, body });
		const text = await res.text();
		if (res.status === 200 || (await status(n8n, q)) !== 'waiting') taken.push(`${what}: ${res.status} ${text.slice(0, 120)}`);
	}
	// Through the trigger too: deliveries the trigger itself refuses.
	const viaTrigger = await sandbox.settled(await sandbox.deliver({ event: 'message.received', url: `${n8n.baseUrl}${triggerProductionPath(CONVERSATION_TRIGGER_HOOK)}`, signWith: 'not-the-webhook-secret', data: JSON.parse(event('forged via trigger')).data }), 60_000);
	assertEqual([viaTrigger.state, viaTrigger.attempts[0]?.status], ['rejected', 401], 'a forged delivery to the trigger');
	assertEqual(taken, [], 'forged replies that were taken');
	assertEqual(await status(n8n, q), 'waiting', 'the run after the forgeries');
	await customerWrites(stack, q.phone, 'the real reply');
	assertEqual((askOutput(await settledRun(n8n, q)).reply as Record<string, unknown>).body, 'the real reply', 'the genuine reply');
}

/** The waits the trigger keeps in its static data, as n8n saved it. */
/** The waits every sharing trigger keeps (each service account's sharing trigger keeps its own). */
async function triggerWaits(stack: Stack): Promise<Array<{ customer: string; resumeUrl: string; askedAt: number }>> {
	const sharing = stack.workflows.filter((w) => w.nodes.some((n) => n.type === TRIGGER_TYPE && n.parameters.resumeWaitingRuns === true));
	const waits = await Promise.all(
		sharing.map(async (workflow) => {
			const res = await stack.n8n.api<{ staticData?: Record<string, { replyWaits?: Record<string, unknown[]> }> }>('GET', `/workflows/${workflow.id}`);
			return Object.values(res.body.staticData ?? {}).flatMap((s) => Object.values(s.replyWaits ?? {}));
		}),
	);
	return waits.flat().map((w) => ({ customer: String(w[0]), resumeUrl: String(w[2]), askedAt: Number(w[4]) }));
}

/** The waiting run's resume address, as the trigger keeps it (an attacker may learn it: it is in n8n's data). */
export async function resumeAddress(stack: Stack, q: Question): Promise<string> {
	const found = (await triggerWaits(stack)).find((w) => w.resumeUrl.includes(`/${q.executionId}/`));
	assert(found, `no wait of execution ${q.executionId} in the trigger’s static data`);
	return found.resumeUrl;
}

/**
 * The reply's delivery once it settles, or once the run it was for is crashed with the reply in it: on n8n
 * 2.41 that delivery's retries are answered 503 until the service gives up (n8n answers a crashed run's
 * resume address 500; docs/conversations.md), so waiting them out would only cost minutes. (Earlier versions
 * take the crashed run back on the next retry; the caller then waits for that.) Or once its next retry is the
 * service's hour or more away (awaitsLongRetry: every earlier one fell into the restart); the caller sends it again.
 * After `timeoutMs`, the delivery as it stands.
 */
async function deliveredOrInCrashedRun(stack: Stack, id: string, q: Question, timeoutMs = 120_000): Promise<Delivery & { inCrashedRun?: true }> {
	return await waitFor(
		`delivery ${id} to settle, or the run of ${q.phone} to be crashed with the reply`,
		async () => {
			const d = await stack.sandbox.delivery(id);
			if (d.state !== 'pending') return d;
			const messageId = String((JSON.parse(d.body) as { data: { message_id: string } }).data.message_id);
			const run = await execution(stack.n8n, q.workflow.id, q.executionId);
			if (run?.status === 'crashed' && JSON.stringify(run.data ?? {}).includes(messageId)) return { ...d, inCrashedRun: true as const };
			// Its next retry an hour of the service's away or more (a scaled minute): the caller sends it again at once.
			return awaitsLongRetry(d) ? d : undefined;
		},
		timeoutMs,
		500,
	).catch(async () => await stack.sandbox.delivery(id));
}

/** What the trigger answered each attempt of a delivery, and when: names the path that answered. */
export function attemptsText(d: Delivery): string {
	return d.attempts.map((a) => `#${a.attempt} at ${a.sentAt.slice(11, 23)}: ${a.status ?? a.error} ${(a.responseBody ?? '').slice(0, 100)}`).join(' | ');
}

/**
 * Answered 200 by n8n itself while it started: the event never reached the trigger (lost by n8n, not by the
 * trigger: docs/trigger.md#while-n8n-starts).
 */
export const answeredByStartingN8n = (d: Delivery): boolean => d.attempts.some((a) => a.status === 200 && a.responseBody === N8N_STARTING_UP_ANSWER);

/** How many runs wait, and reply at the same moment, in each kill round. */
export const KILL_ROUND_RUNS = 4;

/**
 * Events of another kind that share the restart check's kills (statusWaits.ts: message statuses), so that they
 * cost no restarts of their own.
 */
export interface RestartRider {
	/** What it adds to the check's name. */
	name: string;
	/** Before the first round: a run that waits across both restarts. */
	begin(): Promise<void>;
	/** Before a round's kill: starts what will wait; what to send, and how to check it after the restart. */
	round(kill: 'SIGKILL' | 'SIGTERM'): Promise<RiderRound>;
	/** After both rounds: asserts what the run waiting across both restarts went on with. */
	end(): Promise<void>;
}

export interface RiderRound {
	/** Sent before the replies; delivery ids. */
	sendEarly(): Promise<string[]>;
	/** Sent with the replies; delivery ids. */
	send(): Promise<string[]>;
	/** After the restart; `acknowledged`: the delivery ids answered 2xx before the kill. What went wrong (nothing: []). */
	check(acknowledged: ReadonlySet<string>): Promise<string[]>;
}

/**
 * n8n stopped (SIGTERM, as `docker stop`) or killed (SIGKILL to its process group, as the OOM killer or
 * `docker kill`) right after it answered a customer's reply 2xx, with more replies under way; restarted
 * on the same database while the sandbox retries what got no 2xx, as the service does. Every reply answered
 * 2xx must be in its run: resumed with it, or, when the kill came while that run was running, kept in the
 * run n8n then marks crashed. No reply that reaches the trigger may be lost: each ends in its run or, if that
 * no longer waits, starts the trigger's workflow. (A retry that lands while n8n starts up gets n8n's own 200
 * and never reaches the trigger: counted apart, docs/trigger.md#while-n8n-starts.) A run that waited across
 * both restarts still takes its reply, and one whose Limit Wait Time passes after the first restart goes on
 * without a reply. `riders` send events of their own at the replies' moment and check them after each restart:
 * the same kills, no restarts of their own.
 */
export function conversationRestartCheck(stack: Stack, log: (line: string) => void = () => undefined, riders: RestartRider[] = []): Check {
	return {
		name: `conversations: replies answered 2xx just before SIGKILL, and before SIGTERM, are in their runs, and no reply that reached the trigger is lost (${KILL_ROUND_RUNS} replies at once per round); a run waiting across both restarts keeps its wait, and one whose limit passes after a restart takes the no-reply path${riders.map((r) => `; ${r.name}`).join('')}`,
		timeoutMs: 900_000,
		fn: async () => {
			const { n8n, sandbox } = stack;
			const any = byKey(stack, 'Any');
			for (const rider of riders) await rider.begin();
			const survivor = await askCustomer(stack, any, newCustomer(), 'survivor');
			const problems: string[] = [];
			for (const kill of ['SIGKILL', 'SIGTERM'] as const) {
				// Where a round's time goes, for the log: a slow round on a busy machine says which wait took it.
				const roundStartMs = Date.now();
				const phases: string[] = [];
				const phase = (what: string) => phases.push(`${what} ${((Date.now() - roundStartMs) / 1000).toFixed(1)}`);
				const questions: Question[] = [];
				for (let i = 0; i < KILL_ROUND_RUNS; i++) questions.push(await askCustomer(stack, any, newCustomer(), `${kill}-${i}`));
				phase('asked');
				const url = `${n8n.baseUrl}${triggerProductionPath(CONVERSATION_TRIGGER_HOOK)}`;
				const rounds = [];
				for (const rider of riders) rounds.push(await rider.round(kill));
				// Gets no reply: its Limit Wait Time passes after the first kill, and n8n must still end its wait then.
				const unanswered = kill === 'SIGKILL' ? await askCustomer(stack, byKey(stack, 'Unanswered'), newCustomer(), 'unanswered') : undefined;
				const unansweredAskedMs = Date.now();
				const earlyIds = await Promise.all(rounds.map(async (r) => await r.sendEarly()));
				const [ids, lateIds] = await Promise.all([Promise.all(questions.map((q) => sandbox.customerMessage({ from: q.phone, body: `reply before ${kill}`, url }))), Promise.all(rounds.map(async (r) => await r.send()))]);
				const everyId = [...ids, ...earlyIds.flat(), ...lateIds.flat()];
				// The kill follows the first reply's 2xx at once (the riders' events are under way or just answered). A loaded
				// machine may take longer than the service waits (10 s) to answer any: the wait spans the service's first
				// five attempts at the suite's time scale (sent 0, 11, 26, 51 and 121 s after the first).
				await waitFor('a first 2xx', async () => ((await Promise.all(ids.map((id) => sandbox.delivery(id)))).some((d) => d.attempts.some((a) => a.status === 200)) ? true : undefined), FIRST_2XX_WITHIN_MS, 10).catch(async (error: unknown) => {
					// What each reply got instead: CI's output is all that is left of a run there.
					const replies = await Promise.all(ids.map((id) => sandbox.delivery(id)));
					throw new Error(`${(error as Error).message} before ${kill} (replies' attempts: ${replies.map(attemptsText).join('; ')})`);
				});
				// A first 2xx that came that late may leave the unanswered question's limit at the kill: n8n would be resuming
				// it then, and a SIGKILL crashes a running run. It is let end first, and the line below says so.
				if (unanswered && Date.now() > unansweredAskedMs + (RESTART_LIMIT_SECONDS - LIMIT_CLEAR_SECONDS) * 1000) {
					log(`${kill}: the first 2xx came ${((Date.now() - unansweredAskedMs) / 1000).toFixed(1)} s after the unanswered question: its limit passes before the kill, so its run is let end first`);
					await settledRun(n8n, unanswered, 200_000);
				}
				phase('first 2xx');
				const pid = n8n.pid!;
				const killedAtMs = Date.now();
				const killedAt = new Date(killedAtMs).toISOString().slice(11, 23);
				process.kill(kill === 'SIGKILL' ? -pid : pid, kill);
				await n8n.exited;
				// Read once the sandbox has recorded how every attempt under way at the kill ended: an answer n8n sent
				// just before it died may still be on its way in (ended attempts have a status or an error).
				const answered = await waitFor(
					'the attempts under way at the kill to end',
					async () => {
						const all = await Promise.all(everyId.map((id) => sandbox.delivery(id)));
						return all.every((d) => d.attempts.every((a) => a.status !== null || a.error !== undefined)) ? all : undefined;
					},
					30_000,
					10,
				);
				const acknowledged = new Set(answered.filter((d) => d.attempts.some((a) => a.status === 200)).map((d) => d.id));
				await n8n.start();
				const backAtMs = Date.now();
				phase('back');
				// The sandbox retries the others; one whose retries all fell into the restart is sent again once.
				const settled = await Promise.all(
					ids.map(async (id, i): Promise<Delivery & { inCrashedRun?: true }> => {
						const d = await deliveredOrInCrashedRun(stack, id, questions[i]);
						return d.inCrashedRun ? d : await sandbox.sentAgainUnlessDelivered(d);
					}),
				);
				phase('replies settled');
				// n8n answers a reply that starts the trigger's workflow once that run exists, before it holds the reply
				// in its data: read the trigger's runs once none is under way.
				const triggerEnded = await waitFor('the trigger’s runs to end', async () => {
					const runs = await triggerRuns(n8n, stack);
					return runs.every((e) => !underWay(e.status, { waiting: false })) ? runs : undefined;
				}, 120_000, 500);
				phase('trigger’s runs ended');
				const triggerSeen = JSON.stringify(triggerEnded.map((e) => e.data ?? {}));
				const outcomes: Record<string, number> = {};
				for (const [i, q] of questions.entries()) {
					const messageId = String((JSON.parse(settled[i].body) as { data: { message_id: string } }).data.message_id);
					const run = await waitFor(`the run of ${q.phone} after ${kill}`, async () => {
						const e = await execution(n8n, q.workflow.id, q.executionId);
						return e && !underWay(e.status, { waiting: false }) ? e : undefined;
					}, 120_000, 500);
					// n8n before 2.41 takes a crashed run back when the reply's retry comes (waiting-webhooks.js refuses a
					// run that is running, finished or has an error in its data), and the run goes on: that retry is
					// answered, so wait for it.
					const resumedAfterCrash = settled[i].inCrashedRun === true && run.status !== 'crashed';
					if (resumedAfterCrash) settled[i] = await sandbox.settledOrSentAgain(ids[i]);
					const inRun = JSON.stringify(run.data ?? {}).includes(messageId);
					// A retry landing while n8n starts up may get n8n's own 200, before any node sees it: lost by n8n, not by
					// the trigger (docs/trigger.md#while-n8n-starts); counted apart, not as the trigger's loss.
					const startingN8nAnswered = answeredByStartingN8n(settled[i]);
					const where = inRun
						? `in its run (${resumedAfterCrash ? `crashed, then resumed by the reply's retry: ${run.status}` : run.status})`
						: triggerSeen.includes(messageId)
							? `started the trigger’s workflow (its run ${run.status})`
							: startingN8nAnswered
								? 'answered 200 by n8n while it started (never reached the trigger)'
								: 'nowhere';
					outcomes[where] = (outcomes[where] ?? 0) + 1;
					const attempts = attemptsText(settled[i]);
					const problem = (what: string) => problems.push(`${kill}: ${q.phone}'s reply ${what} (killed at ${killedAt}; attempts: ${attempts})`);
					if (acknowledged.has(ids[i]) && !inRun) problem(`answered 2xx before the kill is not in its run (${run.status}; ${where})`);
					if (where === 'nowhere') problem(`is lost (delivery ${settled[i].state}, run ${run.status})`);
					if (run.status === 'waiting' && settled[i].state === 'delivered' && !startingN8nAnswered) problem('was answered 2xx, its run still waits');
					if (settled[i].state !== 'delivered' && !(inRun && run.status === 'crashed')) problem(`was never answered 2xx (run ${run.status}, reply ${where})`);
				}
				phase('replies’ runs');
				const sentAgain = settled.filter((d, i) => d.id !== ids[i]).length;
				log(`${kill}: ${KILL_ROUND_RUNS} replies, ${ids.filter((id) => acknowledged.has(id)).length} answered 2xx before the kill; afterwards: ${Object.entries(outcomes).map(([k, v]) => `${v} ${k}`).join(', ')}; ${sentAgain} sent again (the service's next retry a scaled minute or more away)`);
				for (const r of rounds) problems.push(...(await r.check(acknowledged)).map((p) => `${kill}: ${p} (killed at ${killedAt})`));
				phase('riders checked');
				if (unanswered) {
					// Its end is awaited here, before the second round, so its limit never falls inside the SIGTERM restart on
					// a slow machine either: a run n8n resumes at its limit just as it stops is crashed on any wait.
					const limitAfterUp = (unansweredAskedMs + RESTART_LIMIT_SECONDS * 1000 - backAtMs) / 1000;
					log(`${kill}: the unanswered question was asked ${((killedAtMs - unansweredAskedMs) / 1000).toFixed(1)} s before the kill; its limit passed ${limitAfterUp >= 0 ? `${limitAfterUp.toFixed(1)} s after n8n was back` : `${(-limitAfterUp).toFixed(1)} s before n8n was back`}`);
					const timedOut = await settledRun(n8n, unanswered, 200_000);
					assertEqual([timedOut.status, askOutput(timedOut).replied], ['success', false], 'the unanswered question’s run after its limit passed across a restart (status, replied)');
					phase('unanswered ended');
				}
				log(`${kill}: the round's time (s since its first question): ${phases.join(', ')}`);
			}
			assertEqual(problems, [], 'replies (or riders\' events) answered 2xx but not in their runs, or lost');
			assertEqual(await status(n8n, survivor), 'waiting', 'the survivor after two restarts');
			await customerWrites(stack, survivor.phone, 'after the restarts');
			assertEqual((askOutput(await settledRun(n8n, survivor)).reply as Record<string, unknown>).body, 'after the restarts', 'the survivor’s reply');
			for (const rider of riders) await rider.end();
		},
	};
}

/**
 * n8n stalled (SIGSTOP to its main process: a blocked event loop, a paused container) while customers'
 * replies are under way, for longer than the service waits for an answer; then it goes on (SIGCONT), with no
 * restart. The service's retries of the replies it gave up on wait in n8n's connection queue behind the first
 * copies. Nothing died, so every reply must resume its run, be answered 2xx, and start nothing else: no copy
 * lost, none taken twice.
 */
export function conversationStallCheck(stack: Stack, log: (line: string) => void = () => undefined): Check {
	return {
		name: `conversations: replies under way when n8n stalls for ${STALL_MS / 1000} s (SIGSTOP, longer than the service waits) each resume their run and start nothing else, retries included (${KILL_ROUND_RUNS} replies at once)`,
		timeoutMs: 300_000,
		fn: async () => {
			const { n8n, sandbox } = stack;
			const questions: Question[] = [];
			for (let i = 0; i < KILL_ROUND_RUNS; i++) questions.push(await askCustomer(stack, byKey(stack, 'Any'), newCustomer(), `stall-${i}`));
			const url = `${n8n.baseUrl}${triggerProductionPath(CONVERSATION_TRIGGER_HOOK)}`;
			const ids = await Promise.all(questions.map((q) => sandbox.customerMessage({ from: q.phone, body: `reply before a stall ${q.phone}`, url })));
			// The stall comes once every reply is on its way: n8n is then somewhere between taking a reply and
			// answering it (on 2.41.1 a reply is answered within about 100 ms, before a first 2xx could be seen).
			const before = await waitFor('every reply on its way', async () => {
				const all = await Promise.all(ids.map((id) => sandbox.delivery(id)));
				return all.every((d) => d.attempts.length > 0) ? all : undefined;
			}, 60_000, 5);
			await stall(n8n.pid!);
			const settled = await Promise.all(ids.map(async (id) => await sandbox.settled(id, 120_000)));
			const problems: string[] = [];
			for (const [i, q] of questions.entries()) {
				const attempts = attemptsText(settled[i]);
				if (settled[i].state !== 'delivered') problems.push(`${q.phone}'s reply was never answered 2xx (attempts: ${attempts})`);
				const run = await settledRun(n8n, q);
				const reply = (askOutput(run).reply ?? {}) as Record<string, unknown>;
				if (run.status !== 'success' || reply.body !== `reply before a stall ${q.phone}`) problems.push(`${q.phone}'s run ended ${run.status} with ${JSON.stringify(reply.body)} (attempts: ${attempts})`);
			}
			const startedTrigger = (await messagesSeenByTrigger(stack)).filter((m) => questions.some((q) => m.startsWith(`${q.phone}:`)));
			if (startedTrigger.length > 0) problems.push(`replies that resumed their runs also started the trigger’s workflow: ${startedTrigger.join('; ')}`);
			const retried = settled.filter((d) => d.attempts.length > 1).length;
			const answeredBefore = before.filter((d) => d.attempts.some((a) => a.status !== null)).length;
			log(`stall: ${KILL_ROUND_RUNS} replies, ${answeredBefore} answered before the stall, ${retried} sent more than once; ${settled.map(attemptsText).join('; ')}`);
			assertEqual(problems, [], 'replies under way in a stall');
		},
	};
}

export const ORDER_CONFIRMATION_EXAMPLE = 'order-confirmation.json';
// Distinct within the 16 characters of an n8n id.
const EXAMPLE_KEY = 'e2eOrderYesNo';
const EXAMPLE_NO_REPLY_KEY = 'e2eOrderNoReply';

/**
 * The shipped example as a user imports it (only the credential picked), and a copy whose Limit Wait
 * Time is 3 s instead of 24 hours (its own path), for the no-reply branch.
 */
export function orderConfirmationWorkflows(credential: CredentialRef): Workflow[] {
	const shipped = exampleWorkflow(ORDER_CONFIRMATION_EXAMPLE, EXAMPLE_KEY, { [CREDENTIAL_TYPE]: credential });
	const short = atOwnPath(exampleWorkflow(ORDER_CONFIRMATION_EXAMPLE, EXAMPLE_NO_REPLY_KEY, { [CREDENTIAL_TYPE]: credential }), 'e2e-order-confirmation-no-reply');
	short.nodes.find((n) => n.name === 'Ask the Customer')!.parameters.options = limit(3);
	return [shipped, short];
}

interface OrderQuestion extends Question {
	orderNumber: string;
}

/** The shop posts an order to the example; the question the customer got and the run waiting for the reply. */
async function newOrder(stack: Stack, key: string, orderId: number): Promise<OrderQuestion> {
	const workflow = stack.workflows.find((w) => w.id === n8nId(key))!;
	const phone = newCustomer();
	const orderNumber = `ORD-${String(orderId).padStart(4, '0')}`;
	return { ...(await startAsking(stack, workflow, phone, { order_id: orderId, order_number: orderNumber, phone })), orderNumber };
}

/** The example's run once it ended, and the names of the nodes that ran. */
export async function exampleRun(n8n: N8n, q: Pick<Question, 'workflow' | 'executionId'>): Promise<{ run: ExecutionSummary; ran: string[] }> {
	const run = await waitFor(`execution ${q.executionId} to finish`, async () => {
		const e = await execution(n8n, q.workflow.id, q.executionId);
		return e && !underWay(e.status) ? e : undefined;
	}, 200_000, 500);
	return { run, ran: Object.keys(run.data?.resultData.runData ?? {}).sort() };
}

const BRANCHES = ['Confirm the Order', 'Confirm Cancellation', 'No Reply: Tell the Customer'];

export function orderConfirmationChecks(stack: Stack): Check[] {
	const { n8n, sandbox } = stack;
	let silent: OrderQuestion | undefined;
	return [
		{
			name: 'example (order confirmation): no reply within the limit — the question goes out',
			fn: async () => {
				silent = await newOrder(stack, EXAMPLE_NO_REPLY_KEY, 16);
			},
		},
		{
			name: 'example (order confirmation): the customer gets the YES/NO template for the order; "yes" confirms the order at the service; "maybe" gets "Please reply YES or NO.", then "No" sends the cancellation',
			timeoutMs: 240_000,
			fn: async () => {
				const yes = await newOrder(stack, EXAMPLE_KEY, 11);
				assertEqual(yes.text, `Your order ${yes.orderNumber} is ready: reply YES to confirm or NO to cancel.`, 'the question');
				await customerWrites(stack, yes.phone, 'yes');
				const confirmed = await exampleRun(n8n, yes);
				assertEqual([confirmed.run.status, confirmed.ran.filter((n) => BRANCHES.includes(n))], ['success', ['Confirm the Order']], 'the YES run');
				assertEqual((await sandbox.order(11)).status, 'accepted', 'order 11 at the service');

				const no = await newOrder(stack, EXAMPLE_KEY, 21);
				const since = await sandbox.mark();
				await customerWrites(stack, no.phone, 'maybe');
				const reask = await waitFor('the re-ask', async () => (await sandbox.requests(since)).find((r) => (r.json as { phone?: string })?.phone === no.phone), 30_000, 200);
				assertEqual((reask.json as { body: string }).body, 'Please reply YES or NO.', 'the re-ask');
				await customerWrites(stack, no.phone, 'No');
				const cancelled = await exampleRun(n8n, no);
				assertEqual([cancelled.run.status, cancelled.ran.filter((n) => BRANCHES.includes(n))], ['success', ['Confirm Cancellation']], 'the NO run');
				const last = (await sandbox.messages()).filter((m) => m.phone === no.phone).at(-1);
				assertEqual(last?.body, `Order ${no.orderNumber} is cancelled. Reply here if that was a mistake.`, 'the cancellation');
				assertEqual((await sandbox.order(21)).status, 'pending', 'order 21 at the service');
			},
		},
		{
			name: 'example (order confirmation): no reply within the limit takes the no-reply branch',
			timeoutMs: 240_000,
			fn: async () => {
				assert(silent, 'the no-reply order was not asked');
				const { run, ran } = await exampleRun(n8n, silent);
				assertEqual([run.status, ran.filter((n) => BRANCHES.includes(n))], ['success', ['No Reply: Tell the Customer']], 'the no-reply run');
				const last = (await sandbox.messages()).filter((m) => m.phone === silent!.phone).at(-1);
				assertEqual(last?.body, `We did not hear back about order ${silent.orderNumber}, so we keep it on hold. Reply YES to confirm it.`, 'the message');
			},
		},
	];
}
