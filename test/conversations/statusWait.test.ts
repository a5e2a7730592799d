/**
 * A send's Wait for Status, in process (test/helpers/statusWait.ts): the sandbox reports message statuses to the real
 * Business Messaging Trigger (Share With Other Workflows on) behind a stand-in n8n (test/helpers/conversation.ts). The
 * trigger keeps the tally and hands the run a summary signed with the Webhook Secret on its resume address; the node's
 * webhook (n8n-core's WebhookContext) checks it and resumes with one item per sent item. Limit Wait Time:
 * statusWaitLimit.test.ts; real n8n resuming real runs: test/e2e/checks/statusWaits.ts.
 */
import type { IDataObject } from 'n8n-workflow';

// First: it loads n8n-core's engine once its user folder is set (helpers/engine.ts).
import { PHONE, useStatusWait, waitFor } from '../helpers/statusWait';
import type { TriggerStandIn } from '../helpers/conversation';
import { callResumeAddress } from '../helpers/resume';
import { sign } from '../trigger/requests';
import { SANDBOX_CREDENTIALS, type Sandbox } from '../../tools/sandbox';
import { LIMIT_FALLBACK_MS } from '../../nodes/shared/sharing';

const statusWait = useStatusWait();
const { send, report, ids, posted, resumeWith, atLimit } = statusWait;
let sandbox: Sandbox;
let standIn: TriggerStandIn;
beforeEach(() => ({ sandbox, standIn } = statusWait.current()));

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
