/**
 * Message → Ask and Wait for Chat Reply, in process through n8n-core's engine against the sandbox, with
 * the real trigger behind a stand-in n8n (test/helpers/conversation.ts): the wait is registered (and
 * found saved) before the question goes out, the run waits with the no-reply item as what n8n passes
 * on at the limit, Test Mode changes who is asked and who may reply, and every bad input or missing
 * trigger is refused before anything is sent, naming what to fix.
 */
import type { IDataObject, INodeParameters, IRun } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { ORDER_CONFIRMATION_TEMPLATE_ID } from '../../tools/sandbox/seed';
import { runAction, type RunActionOptions } from '../helpers/actionNode';
import { smallestAmountOffered } from '../helpers/limitWaitTime';
import { startTriggerStandIn, type TriggerStandIn } from '../helpers/conversation';
import type { RunResult } from '../helpers/engine';
import { useSandbox } from '../helpers/useSandbox';
import { DEFAULT_CREDENTIALS } from '../helpers/webhook';
import type { Sandbox } from '../../tools/sandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));
let standIn: TriggerStandIn;
beforeEach(async () => (standIn = await startTriggerStandIn()));
afterEach(async () => await standIn.stop());

const PHONE = '+4915112345678';
const ask = async (parameters: INodeParameters = {}, options: RunActionOptions = {}) =>
	await runAction(sandbox, { resource: 'message', operation: 'askAndWaitForReply', phone: PHONE, text: 'Your order 12 is ready: YES or NO?', ...parameters }, { n8nUrl: standIn.url, ...options });

/** What the run keeps about its wait (the node's context, saved with the execution). */
function kept(run: IRun): IDataObject {
	const context = run.data.executionData?.contextData ?? {};
	const entry = Object.entries(context).find(([key]) => key.startsWith('node:'))?.[1] as { waitingReply?: string };
	return JSON.parse(entry?.waitingReply ?? 'null') as IDataObject;
}

/** The item n8n passes on when the limit passes: the waiting node's input, as saved with the execution. */
function noReplyItem(run: IRun): IDataObject {
	const [entry] = run.data.executionData?.nodeExecutionStack ?? [];
	return entry?.data.main[0]?.[0]?.json as IDataObject;
}

/** The waits the trigger keeps (its static data as n8n saved it), as [customer digits, resume address]. */
function registered(): Array<[string, string]> {
	const saved = JSON.stringify(standIn.trigger.savedStaticData());
	const waits = (JSON.parse(saved) as Record<string, { replyWaits?: Record<string, unknown[]> }>)['node:Business Messaging Trigger']?.replyWaits ?? {};
	return Object.values(waits).map((w) => [String(w[0]), String(w[2])]);
}

const sent = () => sandbox.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/w/message/'));

test('registers the wait with the trigger, finds it saved, then asks; the run waits with the no-reply item to pass on', async () => {
	const result = await ask();
	expect(result.error).toBeUndefined();
	expect(result.run.status).toBe('waiting');
	expect(result.run.waitTill).toEqual(WAIT_INDEFINITELY);
	expect(sandbox.messages.map((m) => [m.phone, m.body])).toEqual([[PHONE, 'Your order 12 is ready: YES or NO?']]);
	// Registered, then checked after the pause: the trigger's answers in order.
	expect(standIn.answers.map((a) => [a.statusCode, Object.keys(a.body as object)[0]])).toEqual([[200, 'registered'], [200, 'saved']]);
	expect(standIn.answers[1].body).toMatchObject({ saved: true });
	const [[customer, resumeUrl]] = registered();
	expect(customer).toBe('4915112345678');
	// n8n's own resume address of this run and node, with n8n 2.41's token, and the wait's id.
	const url = new URL(resumeUrl);
	expect(url.origin + url.pathname).toBe(`${standIn.url}/webhook-waiting/${result.run.data.resultData.lastNodeExecuted ? 'engine-test-' : ''}${url.pathname.split('/')[2].replace('engine-test-', '')}/node-under-test-id`);
	expect(url.searchParams.get('signature')).toBe(result.run.data.resumeToken);
	const waiting = kept(result.run);
	expect(url.searchParams.get('wait')).toBe(waiting.id);
	expect(waiting).toMatchObject({ customer: PHONE, senderPhone: '', expected: null, onUnexpected: 'keepWaiting' });
	// Sent from the credential's default sender; the number it came from is not known (Only Count Replies To is empty).
	expect(waiting.question).toMatchObject({ to: PHONE, phone_number_id: sandbox.credentials.phoneNumberId, body: 'Your order 12 is ready: YES or NO?' });
	expect(Object.keys(waiting.question as IDataObject)).not.toContain('from');
	expect(noReplyItem(result.run)).toEqual({ replied: false, answer: null, reply: null, question: waiting.question, waitedSeconds: 0 });
});

test('with Limit Wait Time the run waits until then, and the no-reply item says how long it waited', async () => {
	const result = await ask({ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } } });
	expect(result.run.status).toBe('waiting');
	const waited = (result.run.waitTill!.getTime() - Date.parse(String((kept(result.run).question as IDataObject).askedAt))) / 1000;
	expect(Math.abs(waited - 7200)).toBeLessThan(2);
	expect(noReplyItem(result.run)).toMatchObject({ replied: false, answer: null, reply: null, waitedSeconds: Math.round(waited) });
});

test('Limit Wait Time: the smallest Amount the editor offers is a wait the run accepts', async () => {
	const smallest = smallestAmountOffered('askAndWaitForReply');
	expect(smallest).toBeGreaterThan(0);
	const before = Date.now();
	const result = await ask({ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: smallest, resumeUnit: 'minutes' } } } });
	expect([result.error?.message, result.run.status]).toEqual([undefined, 'waiting']);
	expect(result.run.waitTill!.getTime() - before).toBeGreaterThanOrEqual(smallest * 60_000);
});

test('from a template with YES / NO quick replies: its body is the question and its buttons the expected replies', async () => {
	const result = await ask({
		textSource: 'template',
		templateId: { __rl: true, mode: 'id', value: String(ORDER_CONFIRMATION_TEMPLATE_ID) },
		placeholderValues: { mappingMode: 'defineBelow', value: { 'Body {{1}}': 'ORD-7' } },
		reaskText: '  Please reply YES or NO ',
	});
	expect(result.error).toBeUndefined();
	expect(sandbox.messages.map((m) => m.body)).toEqual(['Your order ORD-7 is ready: reply YES to confirm or NO to cancel.']);
	expect(kept(result.run)).toMatchObject({ expected: ['YES', 'NO'], reask: 'Please reply YES or NO', question: { template: { id: ORDER_CONFIRMATION_TEMPLATE_ID, name: 'order_confirmation' } } });
});

test('Test Mode (Send to Test Recipient): the test recipient is asked and is the one whose reply counts; the output names the real recipient', async () => {
	const result = await ask({}, { credentials: { testMode: 'redirect', testRecipient: '+49 151 9999 9999' } });
	expect(sandbox.messages.map((m) => m.phone)).toEqual(['+4915199999999']);
	expect(registered().map(([customer]) => customer)).toEqual(['4915199999999']);
	expect(noReplyItem(result.run)).toMatchObject({ testMode: 'redirected', intendedRecipient: PHONE, question: { to: '+4915199999999' } });
});

test('Test Mode (Dry Run): checks the trigger, signs the question, registers and sends nothing, goes on at once, as Send and Wait for Response does', async () => {
	const result = await ask({}, { credentials: { testMode: 'dryRun' } });
	expect(result.error).toBeUndefined();
	expect(result.run.status).toBe('success');
	expect(sent()).toEqual([]);
	expect(registered()).toEqual([]);
	expect(standIn.answers.map((a) => Object.keys(a.body as object)[0])).toEqual(['saved']);
	expect(result.items[0].json).toMatchObject({ answer: null, testMode: 'dryRun', sent: false, intendedRecipient: PHONE });
	expect(result.items[0].json.replied).toBeUndefined();
});

describe('refused before anything is sent, naming what to fix', () => {
	const template = (id: number) => ({ textSource: 'template', templateId: { __rl: true, mode: 'id', value: String(id) }, placeholderValues: { mappingMode: 'defineBelow', value: {} } });
	test.each([
		['no recipient (an expression that is empty)', { phone: '={{ "" }}' }, 'Recipient Phone: "" is not a phone number'],
		['an invalid phone', { phone: '12ab' }, 'Recipient Phone: "12ab" is not a phone number'],
		['an invalid number under Only Count Replies To', { options: { senderPhone: 'main line' } }, 'Only Count Replies To: "main line" is not a phone number'],
		['no text', { text: '  ' }, 'Text: has only spaces, nothing to send'],
		['expected replies that are empty after trimming', { expectedReplies: 'list', acceptedReplies: ['  ', ''] }, 'Replies: the list of expected replies is empty'],
		['a template without quick-reply buttons', { ...template(2) }, 'Expected Replies: template "shipping_notice_0002" has no quick-reply buttons'],
		['a limit that has passed', { options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' } } } }, 'Limit Wait Time: 2020-01-01T00:00:00.000Z has passed already'],
	])('%s', async (_what, parameters, message) => {
		const result = await ask(parameters as INodeParameters);
		expect(result.error?.message).toBe(message);
		expect(sent()).toEqual([]);
		expect(standIn.answers).toEqual([]);
	});

	test('no recipient: n8n itself refuses the required field before the run', async () => {
		await expect(ask({ phone: '' })).rejects.toThrow('Parameter "Recipient Phone" is required.');
		expect(sent()).toEqual([]);
		expect(standIn.answers).toEqual([]);
	});

	test('several items (one reply resumes one run)', async () => {
		const result = await ask({}, { input: [{ json: {} }, { json: {} }] });
		expect(result.error?.message).toBe('Ask and Wait for Chat Reply waits for one answer per execution, and 2 items arrived');
		expect(sent()).toEqual([]);
	});

	const expectRefused = (result: RunResult, message: string, description: RegExp) => {
		expect([result.error?.message, result.error?.description]).toEqual([message, expect.stringMatching(description)]);
		expect(sent()).toEqual([]);
		expect(registered()).toEqual([]);
	};

	test('no trigger resumes waiting runs (workflow inactive, or the switch off): n8n answers 404', async () => {
		standIn.set({ active: false });
		expectRefused(await ask(), 'No Business Messaging Trigger on this n8n shares your service’s events', /turn on Share With Other Workflows, and activate \(publish\) the workflow\. Nothing was sent\./);
	});

	test('the trigger’s credential has another Webhook Secret', async () => {
		standIn.set({ credentials: { ...DEFAULT_CREDENTIALS, webhookSecret: 'the-trigger-s-other-secret' } });
		expectRefused(await ask(), 'The Business Messaging Trigger that shares events uses another Webhook Secret', /need the same Webhook Secret .*Nothing was sent\./);
	});

	test('the trigger’s credential has no Webhook Secret; this node’s neither', async () => {
		standIn.set({ credentials: { ...DEFAULT_CREDENTIALS, webhookSecret: '' } });
		expectRefused(await ask(), 'The Business Messaging Trigger that shares events has no Webhook Secret', /Fill in the Webhook Secret of the sharing trigger’s credential/);
		expectRefused(await ask({}, { credentials: { webhookSecret: '' } }), 'Webhook Secret (credential): empty', /same as the Business Messaging Trigger’s/);
	});

	test('n8n’s webhook address cannot be reached (WEBHOOK_URL)', async () => {
		const result = await ask({}, { n8nUrl: 'http://127.0.0.1:9' });
		expect(result.error?.message).toBe('Could not reach n8n’s webhook address http://127.0.0.1:9/webhook/business-messaging-replies');
		expect(result.error?.description).toMatch(/Nothing was sent\. .*n8n’s WEBHOOK_URL/);
		expect(sent()).toEqual([]);
	});
});
