/**
 * A waiting run's resume address (the asking node's webhook): only the service's genuine reply from the
 * customer asked, to the sender number asked from, written after the question and within the signature's
 * 300 s, may resume the run. Anything else answers without resuming: what the trigger reads, and what
 * someone who learned the address gets (n8n checks no token there before 2.41; this check is the package's own).
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runAction, type RunActionOptions } from '../helpers/actionNode';
import { startTriggerStandIn, type TriggerStandIn } from '../helpers/conversation';
import type { RunResult } from '../helpers/engine';
import { callResumeAddress, RESUME_CREDENTIAL_ID } from '../helpers/resume';
import { DEFAULT_CREDENTIALS, TriggerHarness } from '../helpers/webhook';
import { messageReceived, sign, signedRequest } from '../trigger/requests';
import { SECRET_REUSE_MS } from '../../nodes/shared/webhookSecret';
import { useSandbox } from '../helpers/useSandbox';
import { SANDBOX_CREDENTIALS, SANDBOX_SENDER_PHONE, type Sandbox } from '../../tools/sandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));
let standIn: TriggerStandIn;
beforeEach(async () => (standIn = await startTriggerStandIn()));
afterEach(async () => await standIn.stop());

const CUSTOMER = '+4915112345678';

async function waiting(parameters: INodeParameters = {}, options: RunActionOptions = {}): Promise<{ run: RunResult; query: string }> {
	const run = await runAction(sandbox, { resource: 'message', operation: 'askAndWaitForReply', phone: CUSTOMER, text: 'YES or NO?', ...parameters }, { n8nUrl: standIn.url, ...options });
	expect(run.run.status).toBe('waiting');
	const context = Object.values(run.run.data.executionData!.contextData).find((c) => (c as IDataObject).waitingReply) as { waitingReply: string };
	return { run, query: `wait=${(JSON.parse(context.waitingReply) as { id: string }).id}` };
}

function reply(body: string, extra: IDataObject = {}, event = 'message.received'): string {
	const at = new Date().toISOString();
	return JSON.stringify({ event, timestamp: at, data: { message_id: 'wamid.in.7', conversation_id: 9, from: CUSTOMER, to: SANDBOX_SENDER_PHONE, type: 'text', body, timestamp: at, ...extra } });
}

function signed(body: string, secret = SANDBOX_CREDENTIALS.webhookSecret, at = Math.floor(Date.now() / 1000)) {
	return { 'content-type': 'application/json', 'x-service-webhook-signature': sign(secret, String(at), body), 'x-service-webhook-timestamp': String(at) };
}

test('the genuine reply resumes the run with it: the reply, the question, how long the run waited', async () => {
	const { run, query } = await waiting();
	const body = reply('Tomorrow');
	const outcome = await callResumeAddress(sandbox, run, { query, headers: signed(body), body });
	expect(outcome.body).toEqual({ outcome: 'resumed' });
	const data = (JSON.parse(body) as { data: IDataObject }).data;
	expect(outcome.resumedWith).toMatchObject({ replied: true, answer: null, reply: data, question: { to: CUSTOMER, body: 'YES or NO?' } });
	expect(outcome.resumedWith!.waitedSeconds).toBeLessThan(30);
});

test('a GET signed with the Webhook Secret (the trigger’s) says the run waits; the resume address of an earlier question of this node says it is another', async () => {
	const { run, query } = await waiting();
	expect(await callResumeAddress(sandbox, run, { method: 'GET', query, headers: signed('') })).toEqual({ status: 200, body: { outcome: 'waiting' } });
	const body = reply('YES');
	expect(await callResumeAddress(sandbox, run, { query: 'wait=an-earlier-question', headers: signed(body), body })).toEqual({ status: 422, body: { outcome: 'other', reason: 'the node waits for another question' } });
});

test.each([
	['unsigned', {}, 'missing signature'],
	['signed with another secret', signed('', 'another-secret'), 'invalid signature'],
	['signed 301 s ago', signed('', undefined, Math.floor(Date.now() / 1000) - 301), 'timestamp outside tolerance'],
])('a GET %s learns nothing, not even whether the run waits, or for which question (401)', async (_what, headers, reason) => {
	const { run, query } = await waiting();
	for (const asked of [query, 'wait=an-earlier-question']) {
		expect(await callResumeAddress(sandbox, run, { method: 'GET', query: asked, headers })).toEqual({ status: 401, body: { error: reason } });
	}
});

test.each([
	['unsigned', (body: string) => ({ 'content-type': 'application/json' }), 'missing signature'],
	['signed with another secret', (body: string) => signed(body, 'another-secret'), 'invalid signature'],
	['changed after signing', (body: string) => signed(body.replace('YES', 'NO!')), 'invalid signature'],
	['signed 301 s ago', (body: string) => signed(body, undefined, Math.floor(Date.now() / 1000) - 301), 'timestamp outside tolerance'],
])('a reply %s is refused (401) and resumes nothing', async (_what, headers, reason) => {
	const { run, query } = await waiting();
	const body = reply('YES');
	expect(await callResumeAddress(sandbox, run, { query, headers: headers(body), body })).toEqual({ status: 401, body: { error: reason } });
});

test.each([
	['a status update', () => reply('YES', {}, 'message.status.updated'), 'not a received message', {}],
	['a message from another number', () => reply('YES', { from: '+4915100000000' }), 'from another number', {}],
	['a message to another sender number (Only Count Replies To set)', () => reply('YES', { to: '+15559990077' }), 'to another sender number', { options: { senderPhone: SANDBOX_SENDER_PHONE } }],
	['a message written before the question', () => reply('YES', { timestamp: new Date(Date.now() - 3_600_000).toISOString() }), 'written before the question', {}],
])('%s, genuinely signed, is not for this run (422) and resumes nothing', async (_what, make, reason, parameters) => {
	const { run, query } = await waiting(parameters as INodeParameters);
	const body = make();
	expect(await callResumeAddress(sandbox, run, { query, headers: signed(body), body })).toEqual({ status: 422, body: { outcome: 'other', reason } });
});

test('expected replies: another reply keeps the run waiting and asks again (to whom the question went: the test recipient in Test Mode); " yes! " resumes with YES', async () => {
	const { run, query } = await waiting(
		{ expectedReplies: 'list', acceptedReplies: ['YES', 'NO'], onUnexpectedReply: 'keepWaiting', reaskText: 'Please reply YES or NO' },
		{ credentials: { testMode: 'redirect', testRecipient: '+4915199999999' } },
	);
	sandbox.reset();
	const maybe = reply('maybe', { from: '+4915199999999' });
	expect(await callResumeAddress(sandbox, run, { query, headers: signed(maybe), body: maybe }, { testMode: 'redirect', testRecipient: '+4915199999999' })).toEqual({ status: 200, body: { outcome: 'waiting' } });
	expect(sandbox.messages.map((m) => [m.phone, m.body])).toEqual([['+4915199999999', 'Please reply YES or NO']]);
	const yes = reply(' yes! ', { from: '+4915199999999' });
	const outcome = await callResumeAddress(sandbox, run, { query, headers: signed(yes), body: yes });
	expect(outcome.resumedWith).toMatchObject({ replied: true, answer: 'YES', reply: { body: ' yes! ' }, testMode: 'redirected', intendedRecipient: CUSTOMER });
});

test('the re-ask goes through the send rules as they are when it is sent: nothing goes out while the credential is in Dry Run; with Test Mode off, to the customer asked', async () => {
	const { run, query } = await waiting({ expectedReplies: 'list', acceptedReplies: ['YES'], onUnexpectedReply: 'keepWaiting', reaskText: 'Please reply YES' });
	sandbox.reset();
	const maybe = reply('maybe');
	const call = { query, headers: signed(maybe), body: maybe };
	expect(await callResumeAddress(sandbox, run, call, { testMode: 'dryRun' })).toEqual({ status: 200, body: { outcome: 'waiting' } });
	expect(sandbox.requests.filter((r) => r.path.startsWith('/w/message/'))).toEqual([]);
	expect(await callResumeAddress(sandbox, run, call)).toEqual({ status: 200, body: { outcome: 'waiting' } });
	expect(sandbox.messages.map((m) => [m.phone, m.body])).toEqual([[CUSTOMER, 'Please reply YES']]);
});

test('expected replies with Continue: another reply resumes the run, its answer empty', async () => {
	const { run, query } = await waiting({ expectedReplies: 'list', acceptedReplies: ['YES', 'NO'], onUnexpectedReply: 'continue' });
	const body = reply('maybe');
	const outcome = await callResumeAddress(sandbox, run, { query, headers: signed(body), body });
	expect(outcome.resumedWith).toMatchObject({ replied: true, answer: null, reply: { body: 'maybe' } });
});

describe('the Webhook Secret the resume address checks with', () => {
	const ROTATED = 'the-rotated-webhook-secret';

	test('is the trigger’s reading of the same credential for a second: one reading checks a reply on both webhooks', async () => {
		const { run, query } = await waiting();
		// The trigger of the same credential receives the reply first, and reads the secret.
		const trigger = new TriggerHarness({ credentialId: RESUME_CREDENTIAL_ID, credentials: { ...DEFAULT_CREDENTIALS, webhookSecret: SANDBOX_CREDENTIALS.webhookSecret } });
		const at = Math.floor(Date.now() / 1000);
		expect((await trigger.send(signedRequest(SANDBOX_CREDENTIALS.webhookSecret, messageReceived('reply-1'), at))).workflowStarted).toBe(true);
		expect(trigger.credentialReads).toBe(1);
		// Saved with another secret a moment later: within the second, the reading the trigger made still checks the reply.
		const body = reply('YES');
		const outcome = await callResumeAddress(sandbox, run, { query, headers: signed(body), body }, { webhookSecret: ROTATED });
		expect(outcome.body).toEqual({ outcome: 'resumed' });
	});

	test('is read again a second later: a reply signed with the rotated-out secret is refused, one with the new secret resumes', async () => {
		const { run, query } = await waiting();
		const body = reply('YES', { from: '+4915100000000' });
		expect(await callResumeAddress(sandbox, run, { query, headers: signed(body), body })).toEqual({ status: 422, body: { outcome: 'other', reason: 'from another number' } });
		await sleep(SECRET_REUSE_MS + 100);
		const yes = reply('YES');
		expect(await callResumeAddress(sandbox, run, { query, headers: signed(yes), body: yes }, { webhookSecret: ROTATED })).toEqual({ status: 401, body: { error: 'invalid signature' } });
		const outcome = await callResumeAddress(sandbox, run, { query, headers: signed(yes, ROTATED), body: yes }, { webhookSecret: ROTATED });
		expect(outcome.body).toEqual({ outcome: 'resumed' });
	});

	test('is read afresh for a run started in the editor: the trigger’s reading of a moment ago does not check its reply', async () => {
		const { run, query } = await waiting();
		const trigger = new TriggerHarness({ credentialId: RESUME_CREDENTIAL_ID, credentials: { ...DEFAULT_CREDENTIALS, webhookSecret: SANDBOX_CREDENTIALS.webhookSecret } });
		expect((await trigger.send(signedRequest(SANDBOX_CREDENTIALS.webhookSecret, messageReceived('reply-3'), Math.floor(Date.now() / 1000)))).workflowStarted).toBe(true);
		// Saved with another secret a moment later: the editor's run checks with the credential as it is now.
		const body = reply('YES');
		const manual = { query, executionMode: 'manual' as const };
		expect(await callResumeAddress(sandbox, run, { ...manual, headers: signed(body), body }, { webhookSecret: ROTATED })).toEqual({ status: 401, body: { error: 'invalid signature' } });
		const outcome = await callResumeAddress(sandbox, run, { ...manual, headers: signed(body, ROTATED), body }, { webhookSecret: ROTATED });
		expect(outcome.body).toEqual({ outcome: 'resumed' });
	});

	test('is not another credential’s: a reply signed with the trigger’s secret of another credential is refused', async () => {
		const { run, query } = await waiting();
		const trigger = new TriggerHarness({ credentialId: 'another-credential', credentials: { ...DEFAULT_CREDENTIALS, webhookSecret: ROTATED } });
		expect((await trigger.send(signedRequest(ROTATED, messageReceived('reply-2'), Math.floor(Date.now() / 1000)))).workflowStarted).toBe(true);
		const body = reply('YES');
		expect(await callResumeAddress(sandbox, run, { query, headers: signed(body, ROTATED), body })).toEqual({ status: 401, body: { error: 'invalid signature' } });
	});
});
