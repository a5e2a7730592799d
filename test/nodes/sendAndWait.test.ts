/**
 * Message → Send and Wait for Response, in process through n8n-core's engine against the sandbox:
 * the message carries a signed answer link, the execution is put to wait with the set limit, and bad
 * input (several items, a limit in the past, a bad phone) is refused before anything is sent.
 * The answer page itself is checked here; resuming through the link runs in a real n8n (test/e2e).
 */
import type { INodeParameters, IRun } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { answeredPage, type Question, questionPage, thanksPage } from '../../nodes/BusinessMessaging/helpers/answerPage';
import type { WaitingQuestion } from '../../nodes/BusinessMessaging/helpers/waitingQuestion';
import { runAction } from '../helpers/actionNode';
import { smallestAmountOffered } from '../helpers/limitWaitTime';
import { type Sandbox } from '../../tools/sandbox';
import { useSandbox } from '../helpers/useSandbox';

let sandbox: Sandbox;useSandbox((started) => (sandbox = started));

const PHONE = '+4915112345678';
const ask = (parameters: INodeParameters = {}, input = [{ json: {} }]) =>
	runAction(
		sandbox,
		{ resource: 'message', operation: 'sendAndWait', phone: PHONE, message: 'Ship order 12 today?', ...parameters },
		{ input },
	);

/** What the waiting execution keeps about the question (the node's context, saved with the execution). */
function kept(run: IRun): WaitingQuestion {
	const context = run.data.executionData?.contextData ?? {};
	const entry = Object.entries(context).find(([key]) => key.startsWith('node:'))?.[1] as { waitingQuestion?: string };
	return JSON.parse(entry?.waitingQuestion ?? 'null') as WaitingQuestion;
}

function linkIn(text: string): URL {
	const match = /(http\S+)$/.exec(text);
	if (!match) throw new Error(`no link in ${JSON.stringify(text)}`);
	return new URL(match[1]);
}

test('sends the question with a signed answer link and waits without a limit', async () => {
	const result = await ask({ linkText: 'Tap to answer:' });
	expect(result.error).toBeUndefined();
	expect(result.run.waitTill).toEqual(WAIT_INDEFINITELY);
	expect(result.run.status).toBe('waiting');
	expect(sandbox.messages).toHaveLength(1);
	const { body, phone } = sandbox.messages[0];
	expect(phone).toBe(PHONE);
	expect(body).toMatch(/^Ship order 12 today\?\n\nTap to answer: http/);
	const link = linkIn(body!);
	// n8n's waiting-webhook address for this execution and node, signed as n8n-core signs it.
	expect(link.pathname).toMatch(/^\/webhook-waiting\/engine-test-\d+\/node-under-test-id$/);
	// Only a random key and n8n's signature: nothing an attacker could compute or change.
	expect([...link.searchParams.keys()].sort()).toEqual(['q', 'signature']);
	expect(link.searchParams.get('q')).toMatch(/^[0-9a-f]{32}$/);
	// Checked by n8n itself in the e2e suite; here only its form.
	expect(link.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
	// The execution keeps the question as sent, with who it went to and the link's key.
	const waiting = kept(result.run);
	expect(waiting).toMatchObject({ key: link.searchParams.get('q'), phone: PHONE });
	expect(waiting.question).toMatchObject({ kind: 'approval', message: 'Ship order 12 today?', approveLabel: 'Approve', declineLabel: 'Decline' });
	// A new question gets a new key.
	const again = await ask({ linkText: 'Tap to answer:' });
	expect(kept(again.run).key).not.toBe(waiting.key);
});

test('Limit Wait Time sets when the wait ends', async () => {
	const before = Date.now();
	const result = await ask({
		options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } },
	});
	const until = result.run.waitTill!.getTime();
	expect(until - before).toBeGreaterThanOrEqual(2 * 3_600_000);
	expect(until - Date.now()).toBeLessThanOrEqual(2 * 3_600_000);

	const at = new Date(Date.now() + 86_400_000).toISOString();
	const fixed = await ask({ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: at } } } });
	expect(fixed.run.waitTill!.toISOString()).toBe(at);
});

test('Limit Wait Time: the smallest Amount the editor offers waits that long in every unit; 0 (from an expression) is refused', async () => {
	const smallest = smallestAmountOffered('sendAndWait');
	expect(smallest).toBeGreaterThan(0);
	for (const [unit, ms] of [['minutes', 60_000], ['hours', 3_600_000], ['days', 86_400_000]] as const) {
		const before = Date.now();
		const result = await ask({ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: smallest, resumeUnit: unit } } } });
		expect([result.error?.message, result.run.status]).toEqual([undefined, 'waiting']);
		expect(result.run.waitTill!.getTime() - before).toBeGreaterThanOrEqual(smallest * ms);
	}
	const zero = await ask({ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: '={{ 0 }}', resumeUnit: 'hours' } } } });
	expect(zero.error?.message).toBe('Limit Wait Time: the amount must be more than 0');
});

test.each([
	[{ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' } } } }, 'Limit Wait Time: 2020-01-01T00:00:00.000Z has passed already'],
	[{ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: 'soon' } } } }, 'Limit Wait Time: "soon" is not a date and time'],
	[{ phone: '12' }, 'Recipient Phone: "12" is not a phone number'],
	[{ message: '  ' }, 'Message: has only spaces, nothing to send'],
])('refuses bad input before sending anything (%j)', async (parameters, message) => {
	const result = await ask(parameters as INodeParameters);
	expect(result.error?.message).toBe(message);
	expect(sandbox.requests).toHaveLength(0);
});

test('several items are refused before anything is sent, naming the alternatives', async () => {
	const result = await ask({}, [{ json: { id: 1 } }, { json: { id: 2 } }]);
	expect(result.error?.message).toBe('Send and Wait for Response waits for one answer per execution, and 2 items arrived');
	expect(result.error?.description).toContain('Loop Over Items');
	expect(sandbox.requests).toHaveLength(0);
});

describe('answer page', () => {
	const base: Question = {
		kind: 'approval',
		approvalType: 'double',
		message: 'Ship order <b>#1042</b> & pack it?\nSecond line',
		askedBy: 'Acme "Shop"',
		approveLabel: 'Yes <ship>',
		declineLabel: 'No',
		answerLabel: 'Why?',
		sendLabel: 'Send',
	};
	const question = '<div class="question">Ship order &#60;b&#62;#1042&#60;/b&#62; &#38; pack it?\nSecond line</div>';
	test('approval shows who asks, the question (escaped) and under it one POST form with the chosen buttons', () => {
		const html = questionPage(base);
		expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
		expect(html).toContain(`<p class="from">From Acme &#34;Shop&#34;</p>${question}`);
		expect(html.indexOf(question)).toBeLessThan(html.indexOf('<form method="post">'));
		expect(html).toContain('value="approve">Yes &#60;ship&#62;</button>');
		expect(html).toContain('value="decline">No</button>');
		expect(html).not.toContain('<b>');
		expect(html).not.toContain('<script');
		const single = questionPage({ ...base, approvalType: 'single', askedBy: '' });
		expect(single).not.toContain('value="decline"');
		expect(single).not.toContain('class="from"');
	});
	test('free text shows the question, a text box and the error when one is given', () => {
		const html = questionPage({ ...base, kind: 'freeText' }, 'Please write an answer.');
		expect(html).toContain(question);
		expect(html).toContain('<textarea id="answer" name="answer" required');
		expect(html).toContain('role="alert">Please write an answer.</p>');
	});
	test('after the answer the page says what was answered to which question', () => {
		expect(thanksPage(base, 'approve')).toContain(`<h1>You approved:</h1><p class="from">From Acme &#34;Shop&#34;</p>${question}`);
		expect(thanksPage(base, 'decline')).toContain('<h1>You declined:</h1>');
		const text = thanksPage({ ...base, kind: 'freeText' }, 'Tomorrow <9>');
		expect(text).toContain('<h1>You answered:</h1><div class="question">Tomorrow &#60;9&#62;</div>');
		expect(text).toContain(question);
		expect(text).toContain('Your answer was received');
		// n8n answers the link itself once the run goes on: this page says so.
		expect(text).toContain('Opening the link again later only says that no action is required');
	});
	test('a link of an earlier question names that question when the run still knows it', () => {
		const page = answeredPage({ message: base.message, askedBy: base.askedBy });
		expect(page).toContain('<h1>No answer needed</h1><p>This link was for the question from Acme &#34;Shop&#34;:</p>');
		expect(page).toContain(question);
		expect(answeredPage()).toContain('This question was already answered or is no longer open.');
	});
});

describe('who asks', () => {
	const hints = (result: Awaited<ReturnType<typeof ask>>) =>
		result.run.data.resultData.runData['Node Under Test']?.at(-1)?.hints?.map((hint) => hint.message) ?? [];
	const askWith = (parameters: INodeParameters, credentials: Record<string, string>) =>
		runAction(sandbox, { resource: 'message', operation: 'sendAndWait', phone: PHONE, message: 'Ship order 12 today?', ...parameters }, { credentials });
	test('the credential’s Business Name, when Asked By is empty', async () => {
		const result = await askWith({}, { businessName: '  Acme Shop ' });
		expect(kept(result.run).question.askedBy).toBe('Acme Shop');
		expect(hints(result)).toEqual([]);
	});
	test('Asked By names someone else', async () => {
		const result = await askWith({ options: { askedBy: 'Ann at Acme Shop' } }, { businessName: 'Acme Shop' });
		expect(kept(result.run).question.askedBy).toBe('Ann at Acme Shop');
	});
	test('a credential made before Business Name existed still asks; the run says the page names nobody', async () => {
		const result = await askWith({}, {});
		expect(result.run.status).toBe('waiting');
		expect(kept(result.run).question.askedBy).toBe('');
		expect(hints(result)).toEqual([expect.stringMatching(/^The answer page does not say who asks: enter your Business Name in the credential/)]);
	});
});

describe('the credential’s Test Mode', () => {
	const withMode = (credentials: Record<string, string>) =>
		runAction(
			sandbox,
			{ resource: 'message', operation: 'sendAndWait', phone: PHONE, message: 'Ship order 12 today?' },
			{ credentials },
		);
	test('redirect: the question goes to the test recipient, and the run waits', async () => {
		const result = await withMode({ testMode: 'redirect', testRecipient: '+4915199999999' });
		expect(result.run.status).toBe('waiting');
		expect(sandbox.messages.map((m) => m.phone)).toEqual(['+4915199999999']);
		// The answer will name the intended recipient.
		expect(kept(result.run).phone).toBe(PHONE);
	});
	test('dry run: nothing is sent and the run does not wait', async () => {
		const result = await withMode({ testMode: 'dryRun' });
		expect(result.run.waitTill).toBeUndefined();
		expect(sandbox.requests).toHaveLength(0);
		expect(result.items[0].json).toMatchObject({ answer: null, testMode: 'dryRun', sent: false, intendedRecipient: PHONE });
	});
});
