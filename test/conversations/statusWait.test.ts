/**
 * A send's Wait for Status, in process: the action node through n8n-core's engine against the sandbox, which
 * reports message statuses to the real Business Messaging Trigger (Share With Other Workflows on) behind a
 * stand-in n8n (test/helpers/conversation.ts). The trigger keeps the tally and hands the run a summary signed
 * with the Webhook Secret on its resume address; the node's webhook (n8n-core's WebhookContext) checks it and
 * resumes with one item per sent item. Real n8n resuming real runs: not yet (issue 52's e2e).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runAction, type RunActionOptions } from '../helpers/actionNode';
import { ANOTHER_SHARER, reportStatus, type ResumeCall, type TriggerStandIn, useStatusStandIn } from '../helpers/conversation';
import type { RunResult } from '../helpers/engine';
import { callResumeAddress } from '../helpers/resume';
import { useSandbox } from '../helpers/useSandbox';
import { sign } from '../trigger/requests';
import { SANDBOX_CREDENTIALS, type Sandbox } from '../../tools/sandbox';
import { LIMIT_FALLBACK_MS } from '../../nodes/shared/sharing';
import { forgetRegistrations } from '../../nodes/BusinessMessagingTrigger/sharing/registry';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));
const standInNow = useStatusStandIn(() => sandbox);
let standIn: TriggerStandIn;
beforeEach(() => (standIn = standInNow()));

const PHONE = '+4915112345678';
const waitFor = (status: string, extra: IDataObject = {}): INodeParameters => ({ waitForStatus: status, statusWaitLimit: 2, statusWaitUnit: 'hours', ...extra });

async function send(parameters: INodeParameters = {}, options: RunActionOptions = {}): Promise<RunResult> {
	return await runAction(
		sandbox,
		{ resource: 'message', operation: 'sendText', phone: PHONE, text: 'Your payment is due', options: { maxMessagesPerSecond: 0 }, ...waitFor('read'), ...parameters },
		{ n8nUrl: standIn.url, ...options },
	);
}

const report = async (messageId: string, status: 'sent' | 'delivered' | 'read') => await reportStatus(sandbox, messageId, status);

const ids = () => sandbox.messages.map((m) => m.message_id);
const posted = (): ResumeCall[] => standIn.resumes.filter((c) => c.method === 'POST');

/** What the node's own resume address does with the trigger's summary (as n8n would call it). */
async function resumeWith(run: RunResult, call: ResumeCall, headers: Record<string, string> = call.headers as Record<string, string>) {
	const query = new URL(call.url, 'http://n8n').search.slice(1);
	return await callResumeAddress(sandbox, run, { query, headers, body: call.body });
}

/** The items n8n passes on at the limit: the waiting node's input, as saved with the execution. */
const atLimit = (run: RunResult) => run.run.data.executionData!.nodeExecutionStack[0].data.main[0]!.map((i) => i.json);

test('one message read: the run waits; the trigger resumes it once the message is read, with its statuses and its send output', async () => {
	const run = await send();
	expect([run.error?.message, run.run.status]).toEqual([undefined, 'waiting']);
	const [id] = ids();
	expect(await report(id, 'sent')).toBe(200);
	expect(await report(id, 'delivered')).toBe(200);
	expect(posted()).toEqual([]);
	expect(await report(id, 'read')).toBe(200);
	expect(posted()).toHaveLength(1);
	// The read was answered 200 only once n8n held the resumed run (asked again, n8n answered 409 itself).
	expect(standIn.resumes.map((c) => c.method)).toEqual(['POST', 'GET']);
	// Statuses of a watched message started no workflow.
	expect(standIn.events.map((e) => e.workflowStarted)).toEqual([false, false, false]);
	const outcome = await resumeWith(run, posted()[0]);
	expect(outcome.body).toEqual({ outcome: 'resumed' });
	const [delivered, read] = sandbox.messages[0].statuses.slice(1).map((s) => s.at);
	expect(outcome.resumedWith).toEqual({
		message_id: id,
		wanted: 'read',
		reached: true,
		status: 'read',
		deliveredAt: delivered,
		readAt: read,
		send: expect.objectContaining({ message_id: id, phone: PHONE }),
	});
});

test('bulk: 50 recipients, statuses arriving all at once: every one counted, the run resumed once with one item per recipient', async () => {
	const input = Array.from({ length: 50 }, (_, n) => ({ json: { to: `+49151000000${String(n).padStart(2, '0')}` } }));
	const run = await send({ phone: '={{ $json.to }}', ...waitFor('delivered') }, { input });
	expect(run.run.status).toBe('waiting');
	expect(ids()).toHaveLength(50);
	const [last, ...others] = ids();
	const answers = await Promise.all(others.map(async (id) => await report(id, 'delivered')));
	expect(answers.filter((s) => s !== 200)).toEqual([]);
	expect(posted()).toEqual([]);
	// The trigger's saved copy holds every one of them (each request wrote back what the others took in).
	const saved = (standIn.trigger.savedStaticData() as Record<string, IDataObject>)['node:Business Messaging Trigger'];
	expect(Object.keys(saved.messageStatuses as IDataObject).sort()).toEqual([...others].sort());
	expect(await report(last, 'delivered')).toBe(200);
	expect(posted()).toHaveLength(1);
	const items = JSON.parse(posted()[0].body) as { statuses: Record<string, IDataObject> };
	expect(Object.keys(items.statuses).sort()).toEqual([...ids()].sort());
	expect(Object.values(items.statuses).filter((s) => s.status !== 'delivered')).toEqual([]);
	const outcome = await callResumeAddress(sandbox, run, { query: new URL(posted()[0].url, 'http://n8n').search.slice(1), headers: posted()[0].headers as Record<string, string>, body: posted()[0].body });
	expect(outcome.body).toEqual({ outcome: 'resumed' });
});

test('out of order and twice: read before delivered satisfies a wait for delivered; a repeated status counts once, with its first time', async () => {
	const input = [{ json: { to: '+4915100000001' } }, { json: { to: '+4915100000002' } }];
	const run = await send({ phone: '={{ $json.to }}', ...waitFor('delivered') }, { input });
	const [first, second] = ids();
	expect(await report(first, 'read')).toBe(200);
	expect(await report(first, 'delivered')).toBe(200);
	const firstDelivered = sandbox.messages[0].statuses[1].at;
	await new Promise((r) => setTimeout(r, 5));
	expect(await report(first, 'delivered')).toBe(200);
	expect(posted()).toEqual([]);
	expect(await report(second, 'delivered')).toBe(200);
	expect(posted()).toHaveLength(1);
	const summary = JSON.parse(posted()[0].body) as { statuses: Record<string, IDataObject> };
	expect(summary.statuses[first]).toEqual({ status: 'read', deliveredAt: firstDelivered, readAt: sandbox.messages[0].statuses[0].at });
	expect(summary.statuses[second]).toMatchObject({ status: 'delivered', readAt: null });
	expect((await resumeWith(run, posted()[0])).body).toEqual({ outcome: 'resumed' });
});

test('a status before the wait knew its message (a fast service): kept, and the run goes on at once when it was all', async () => {
	sandbox.setStatuses({ sentMs: 0, deliveredMs: 0, readMs: 0 });
	const run = await send();
	expect([run.error?.message, run.run.status]).toEqual([undefined, 'success']);
	expect(run.items.map((i) => i.json)).toEqual([expect.objectContaining({ message_id: ids()[0], reached: true, status: 'read' })]);
	expect(posted()).toEqual([]);
});

test('a status before the wait knew its message, and the last one after: the run resumes', async () => {
	sandbox.setStatuses({ sentMs: 0, deliveredMs: 0, readMs: null });
	const run = await send();
	expect(run.run.status).toBe('waiting');
	expect(atLimit(run)).toEqual([expect.objectContaining({ reached: false, status: 'delivered' })]);
	expect(await report(ids()[0], 'read')).toBe(200);
	expect(posted()).toHaveLength(1);
	expect((await resumeWith(run, posted()[0])).resumedWith).toMatchObject({ reached: true, status: 'read', deliveredAt: expect.any(String) });
});

test('the resume address alone resumes nothing: a summary forged or signed with another secret is refused (401)', async () => {
	const run = await send();
	expect(await report(ids()[0], 'read')).toBe(200);
	const call = posted()[0];
	const at = String(Math.floor(Date.now() / 1000));
	const forgeries: Array<Record<string, string>> = [{ 'content-type': 'application/json' }, { 'content-type': 'application/json', 'x-service-webhook-signature': sign('another-secret', at, call.body), 'x-service-webhook-timestamp': at }];
	for (const headers of forgeries) {
		const outcome = await resumeWith(run, call, headers);
		expect([outcome.status, outcome.resumedWith]).toEqual([401, undefined]);
	}
	// A made-up summary with the genuine signature's headers does not match them either.
	const forged = await callResumeAddress(sandbox, run, { query: new URL(call.url, 'http://n8n').search.slice(1), headers: call.headers as Record<string, string>, body: call.body.replace('"read"', '"sent"') });
	expect(forged.status).toBe(401);
	// Signed, but for another wait: not resumed either.
	const other = JSON.stringify({ ...JSON.parse(call.body), wait: 'another-wait-id' });
	const signedOther = await callResumeAddress(sandbox, run, { query: new URL(call.url, 'http://n8n').search.slice(1), headers: { 'content-type': 'application/json', 'x-service-webhook-signature': sign(SANDBOX_CREDENTIALS.webhookSecret, at, other), 'x-service-webhook-timestamp': at }, body: other });
	expect([signedOther.status, signedOther.resumedWith]).toEqual([422, undefined]);
});

/** Resolves once `done` holds, or after `withinMs`. */
async function until(done: () => boolean, withinMs = 15_000): Promise<void> {
	for (const giveUpAt = Date.now() + withinMs; !done() && Date.now() < giveUpAt; ) await new Promise((r) => setTimeout(r, 50));
}

/** Resolves once the trigger posted `count` summaries to resume addresses (it keeps Limit Wait Time itself). */
async function postedSoon(count: number, withinMs = 15_000): Promise<ResumeCall[]> {
	await until(() => posted().length >= count, withinMs);
	return posted();
}

test('at Limit Wait Time the trigger hands the run what it counted by then: reached: false, with the delivered that came during the wait', async () => {
	const before = Date.now();
	const run = await send({ statusWaitLimit: 0.1, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	const [id] = ids();
	// n8n's own resume is only the fallback, LIMIT_FALLBACK_MS after the limit (6 s after the node began).
	const fallbackAfter = run.run.waitTill!.getTime() - 6_000 - LIMIT_FALLBACK_MS;
	expect([fallbackAfter >= before, fallbackAfter <= Date.now()]).toEqual([true, true]);
	expect(atLimit(run)).toEqual([expect.objectContaining({ status: null })]);
	expect(await report(id, 'delivered')).toBe(200);
	const [call] = await postedSoon(1);
	const outcome = await resumeWith(run, call);
	expect(outcome.resumedWith).toMatchObject({ message_id: id, wanted: 'read', reached: false, status: 'delivered', deliveredAt: sandbox.messages[0].statuses[0].at, readAt: null });
	// The run went on (the trigger answered its own request at the limit once the wait's end was saved): a read
	// after that is news to nobody waiting, and flows to the trigger's workflow.
	await until(() => standIn.answers.some((a) => (a.body as IDataObject)?.handed === true));
	expect(await report(id, 'read')).toBe(200);
	expect(standIn.events.map((e) => e.workflowStarted)).toEqual([false, true]);
	expect(posted()).toHaveLength(1);
});

test('after a restart during the wait, the next request of the trigger keeps the limit again: the run still gets what was counted', async () => {
	const run = await send({ statusWaitLimit: 0.1, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	forgetRegistrations(); // n8n restarted: the limits this process kept are gone
	expect(await report(ids()[0], 'delivered')).toBe(200);
	const [call] = await postedSoon(1);
	expect((await resumeWith(run, call)).resumedWith).toMatchObject({ reached: false, status: 'delivered' });
});

test('after a restart during the wait, a customer’s message to the trigger (no status, no request of the waits webhook) keeps the limit again: at the limit the run gets the delivered counted before the restart', async () => {
	const run = await send({ statusWaitLimit: 0.1, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	expect(await report(ids()[0], 'delivered')).toBe(200);
	forgetRegistrations(); // n8n restarted: the limits this process kept are gone
	const waitsRequests = standIn.answers.length;
	const message = sandbox.customerMessage({ from: '+4915100000042', body: 'Where is my order?' });
	await until(() => message.attempts.length > 0 && message.attempts[0].status !== null);
	expect(message.attempts[0].status).toBe(200);
	const [call] = await postedSoon(1);
	// The waits webhook answers the hand-over once the run's resume call is made: wait for that answer too.
	await until(() => standIn.answers.slice(waitsRequests).some((a) => (a.body as IDataObject)?.handed === true));
	// Nothing but the limit asked the waits webhook after the restart: the message alone kept the limit.
	expect(standIn.answers.slice(waitsRequests).map((a) => (a.body as IDataObject)?.handed)).toEqual([true]);
	expect((await resumeWith(run, call)).resumedWith).toMatchObject({ reached: false, status: 'delivered' });
});

test('at Limit Wait Time, n8n answering 200 "n8n is starting up" (its database not ready) is no hand-over: the trigger asks again and the run is handed its summary', async () => {
	const run = await send({ statusWaitLimit: 0.05, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	const limit = Date.now() + 3000;
	standIn.set({ startingUp: true });
	// Past the limit, with the limit's hand-over answered so (nothing else asks: no status comes).
	await until(() => Date.now() > limit && standIn.startingUpAnswers > 0, 15_000);
	standIn.set({ startingUp: false });
	const [call] = await postedSoon(1, 20_000);
	expect((await resumeWith(run, call)).resumedWith).toMatchObject({ reached: false });
	// The waits webhook answers the hand-over once the run took it: after the POST above.
	const handed = () => standIn.answers.filter((a) => (a.body as IDataObject)?.handed === true);
	await until(() => handed().length > 0);
	expect(handed()).toHaveLength(1);
});

test('a status whose count n8n itself answers 200 "n8n is starting up" (a webhook process whose database is not ready) is answered 503, not 200, so the service sends it again; the retry is counted', async () => {
	const run = await send({ statusWaitLimit: 0.15, statusWaitUnit: 'minutes' });
	standIn.set({ startingUp: true });
	expect(await report(ids()[0], 'delivered')).toBe(503);
	standIn.set({ startingUp: false });
	expect(await report(ids()[0], 'delivered')).toBe(200);
	const [call] = await postedSoon(1, 20_000);
	expect((await resumeWith(run, call)).resumedWith).toMatchObject({ reached: false, status: 'delivered' });
});

test('at Limit Wait Time while another workflow shares (this trigger’s workflow off, the other on its URL): the other one’s answer is no hand-over; once this one is back, the run is handed the delivered it counted', async () => {
	const run = await send({ statusWaitLimit: 0.1, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	expect(await report(ids()[0], 'delivered')).toBe(200);
	standIn.set({ sharedBy: 'another' });
	// The other trigger's answer to the hand-over at the limit: it knows no such wait.
	const limitAnsweredByAnother = () =>
		standIn.answers.some((a) => 'handed' in (a.body as IDataObject) && ((a.body as IDataObject).workflow as IDataObject)?.id === ANOTHER_SHARER);
	await until(limitAnsweredByAnother, 20_000);
	expect([limitAnsweredByAnother(), posted().length]).toEqual([true, 0]);
	standIn.set({ sharedBy: 'this' });
	const calls = await postedSoon(1, 20_000);
	expect(calls).toHaveLength(1);
	expect((await resumeWith(run, calls[0])).resumedWith).toMatchObject({ reached: false, status: 'delivered' });
});

test('a status whose count another sharing workflow answers (the moment this trigger’s workflow is switched off and the other on) is answered 503, not 200, so the service sends it again; the retry is counted', async () => {
	const run = await send({ statusWaitLimit: 0.15, statusWaitUnit: 'minutes' });
	standIn.set({ sharedBy: 'another for waits' });
	expect(await report(ids()[0], 'delivered')).toBe(503);
	// The other trigger was asked to count it, and knows no such wait.
	expect(standIn.answers.some((a) => ((a.body as IDataObject).workflow as IDataObject)?.id === ANOTHER_SHARER)).toBe(true);
	standIn.set({ sharedBy: 'this' });
	expect(await report(ids()[0], 'delivered')).toBe(200);
	const [call] = await postedSoon(1, 20_000);
	expect((await resumeWith(run, call)).resumedWith).toMatchObject({ reached: false, status: 'delivered' });
});

test('at Limit Wait Time, a run n8n could not take the summary for (500) is handed it again', async () => {
	let refused = 0;
	const answer = standIn.answerResume;
	standIn.answerResume = (call) => (call.method === 'POST' && refused++ === 0 ? { status: 500, body: { message: 'busy' } } : answer(call));
	const run = await send({ statusWaitLimit: 0.05, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	const calls = await postedSoon(2, 20_000);
	expect(calls).toHaveLength(2);
	expect(JSON.parse(calls[1].body)).toEqual(JSON.parse(calls[0].body));
	expect((await resumeWith(run, calls[1])).resumedWith).toMatchObject({ reached: false, status: null });
});

test('n8n\'s own resume, the fallback: it passes on each sent item with reached: false; an item that failed (Continue On Fail) is not waited for and goes on with its error', async () => {
	const input = [{ json: { to: '+4915100000001' } }, { json: { to: '12ab' } }];
	const run = await send({ phone: '={{ $json.to }}' }, { input, continueOnFail: true });
	expect(run.run.status).toBe('waiting');
	const until = run.run.waitTill!.getTime();
	expect(Math.abs(until - Date.now() - 2 * 3_600_000 - LIMIT_FALLBACK_MS)).toBeLessThan(10_000);
	expect(atLimit(run)).toEqual([
		{ message_id: ids()[0], wanted: 'read', reached: false, status: null, deliveredAt: null, readAt: null, send: expect.objectContaining({ message_id: ids()[0] }) },
		{ error: expect.stringContaining('Phone'), description: expect.any(String) },
	]);
	expect(run.run.data.executionData!.nodeExecutionStack[0].data.main[0]!.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
});

test('resumed with an item that failed (Continue On Fail): the run goes on with the sent item’s statuses and the failed item’s error, in item order', async () => {
	const input = [{ json: { to: '12ab' } }, { json: { to: '+4915100000001' } }];
	const run = await send({ phone: '={{ $json.to }}' }, { input, continueOnFail: true });
	expect(run.run.status).toBe('waiting');
	expect(await report(ids()[0], 'read')).toBe(200);
	expect(posted()).toHaveLength(1);
	const outcome = await resumeWith(run, posted()[0]);
	expect(outcome.resumedItems).toEqual([
		{ json: { error: expect.stringContaining('Phone'), description: expect.any(String) }, pairedItem: { item: 0 } },
		{ json: expect.objectContaining({ message_id: ids()[0], reached: true, status: 'read' }), pairedItem: { item: 1 } },
	]);
});

test('statuses nobody waits for flow to the trigger’s workflow as before', async () => {
	await send({ waitForStatus: 'none' });
	expect(await report(ids()[0], 'delivered')).toBe(200);
	expect(standIn.events.map((e) => e.workflowStarted)).toEqual([true]);
});

test('Also Start This Workflow for Statuses: a watched status also starts the trigger’s workflow, marked', async () => {
	standIn.set({ parameters: { alsoStartForStatuses: true } });
	await send();
	expect(await report(ids()[0], 'delivered')).toBe(200);
	expect(standIn.events.map((e) => [e.workflowStarted, (e.items[0]?.json as IDataObject)?.statusForWaitingRun])).toEqual([[true, true]]);
});

describe('refused before anything is sent, naming the field', () => {
	test.each([
		['empty', ''],
		['0', 0],
		['an expression that is empty', '={{ "" }}'],
	])('Limit Wait Time %s', async (_what, limit) => {
		const run = await send({ statusWaitLimit: limit as never });
		expect(run.error?.message).toBe('Limit Wait Time: must be more than 0 to wait for a status');
		expect(sandbox.messages).toEqual([]);
		expect(standIn.answers).toEqual([]);
	});

	test('the editor shows Limit Wait Time as required when waiting', async () => {
		const { BusinessMessaging } = await import('../../nodes/BusinessMessaging/BusinessMessaging.node');
		const limit = new BusinessMessaging().description.properties.filter((p) => p.name === 'statusWaitLimit');
		expect(limit.length).toBeGreaterThan(0);
		for (const field of limit) expect([field.required, field.displayOptions?.show?.waitForStatus]).toEqual([true, ['delivered', 'read']]);
	});
});

test('a credential without a Webhook Secret: refused before anything is sent, saying what to fill in', async () => {
	const run = await send({}, { credentials: { webhookSecret: '' } });
	expect(run.error?.message).toBe('Webhook Secret (credential): empty');
	expect(sandbox.messages).toEqual([]);
	expect(standIn.answers).toEqual([]);
});

test('Test Mode Dry Run: waits for nothing, registers nothing, and says so in the output', async () => {
	const run = await send({}, { credentials: { testMode: 'dryRun' } });
	expect([run.error?.message, run.run.status]).toEqual([undefined, 'success']);
	expect(standIn.answers).toEqual([]);
	expect(run.items[0].json).toMatchObject({ testMode: 'dryRun', sent: false, statusWait: 'not waited for: Test Mode Dry Run sends nothing (Wait for Status: read)' });
});

test('Test Mode Send to Test Recipient: the run waits for the test recipient’s message', async () => {
	const run = await send({}, { credentials: { testMode: 'redirect', testRecipient: '+4915199999999' } });
	expect(sandbox.messages.map((m) => m.phone)).toEqual(['+4915199999999']);
	expect(atLimit(run)).toEqual([expect.objectContaining({ message_id: ids()[0], send: expect.objectContaining({ testMode: 'redirected', intendedRecipient: PHONE }) })]);
	expect(await report(ids()[0], 'read')).toBe(200);
	expect((await resumeWith(run, posted()[0])).resumedWith).toMatchObject({ reached: true, send: { intendedRecipient: PHONE } });
});

describe('every send waits the same way', () => {
	test('Send Text from a template: the output keeps the template and the text sent', async () => {
		const { ORDER_CONFIRMATION_TEMPLATE_ID } = await import('../../tools/sandbox/seed');
		const run = await send({
			textSource: 'template',
			templateId: { __rl: true, mode: 'id', value: String(ORDER_CONFIRMATION_TEMPLATE_ID) },
			placeholderValues: { mappingMode: 'defineBelow', value: { 'Body {{1}}': 'ORD-7' } },
		});
		expect(run.run.status).toBe('waiting');
		expect(await report(ids()[0], 'read')).toBe(200);
		expect((await resumeWith(run, posted()[0])).resumedWith).toMatchObject({ reached: true, send: { template: { name: 'order_confirmation' }, body: expect.stringContaining('ORD-7') } });
	});

	test('Send Media', async () => {
		const pdf = { data: { data: Buffer.from('%PDF-1.4 x'), mimeType: 'application/pdf', fileName: 'invoice.pdf' } };
		const run = await send({ operation: 'sendMedia', mediaType: 'document', binaryPropertyName: 'data' }, { input: [{ json: {}, binary: pdf }] });
		expect([run.error?.message, run.run.status]).toEqual([undefined, 'waiting']);
		expect(sandbox.messages.map((m) => m.kind)).toEqual(['media']);
		expect(await report(ids()[0], 'read')).toBe(200);
		expect((await resumeWith(run, posted()[0])).resumedWith).toMatchObject({ message_id: ids()[0], reached: true });
	});

	test('not on an AI agent’s tool (its call would wait): the field is not offered and the tool does not wait', async () => {
		const run = await send({ allowedRecipients: '*' }, { asAiTool: true });
		expect([run.error?.message, run.run.status]).toEqual([undefined, 'success']);
		expect(standIn.answers).toEqual([]);
	});
});

describe('when the run cannot take the summary', () => {
	test('the run does not wait yet (n8n answers 409 just after the watch): 503, the wait kept, and the status again resumes the run', async () => {
		const run = await send();
		const answerResume = standIn.answerResume;
		standIn.answerResume = () => ({ status: 409, body: { message: 'The execution is running already' } });
		expect(await report(ids()[0], 'read')).toBe(503);
		standIn.answerResume = answerResume;
		expect(await report(ids()[0], 'read')).toBe(200);
		expect(posted()).toHaveLength(2);
		expect((await resumeWith(run, posted()[1])).body).toEqual({ outcome: 'resumed' });
	});

	test('n8n fails (500): 503, so the service sends the status again', async () => {
		await send();
		standIn.answerResume = () => ({ status: 500, body: { message: 'error' } });
		expect(await report(ids()[0], 'read')).toBe(503);
	});

	test('the run is gone (404): the wait ends, and later statuses of its message flow as before', async () => {
		await send({ ...waitFor('delivered') });
		standIn.answerResume = () => ({ status: 404, body: { message: 'not found' } });
		expect(await report(ids()[0], 'delivered')).toBe(200);
		expect(await report(ids()[0], 'read')).toBe(200);
		expect(standIn.events.map((e) => e.workflowStarted)).toEqual([false, true]);
	});
});

test('nothing sent (every item failed, Continue On Fail): nothing to wait for, the errors go on', async () => {
	const run = await send({ phone: '12ab' }, { continueOnFail: true });
	expect(run.run.status).toBe('success');
	expect(run.items.map((i) => i.json.error)).toEqual(['Recipient Phone: "12ab" is not a phone number']);
	// The trigger was told, so it keeps no statuses for a wait that never began.
	expect(standIn.answers.map((a) => Object.keys(a.body as object)[0])).toEqual(['registered', 'saved', 'ended']);
	const saved = (standIn.trigger.savedStaticData() as Record<string, IDataObject>)['node:Business Messaging Trigger'];
	expect(Object.values(saved.statusWaits as IDataObject).map((w) => (w as unknown[])[4])).toEqual([expect.any(Number)]);
	expect(Object.values(saved.statusWaits as IDataObject).map((w) => (w as unknown[])[4])).not.toEqual([0]);
});

test('the send stops on a failed item: the error, and the trigger told that nothing is waited for', async () => {
	const run = await send({ phone: '={{ $json.to }}' }, { input: [{ json: { to: '+4915100000001' } }, { json: { to: '12ab' } }] });
	expect(run.error?.message).toBe('Recipient Phone: "12ab" is not a phone number');
	expect(standIn.answers.map((a) => Object.keys(a.body as object)[0])).toEqual(['registered', 'saved', 'ended']);
});
