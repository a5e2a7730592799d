/**
 * The Send and Wait answer page as the recipient sees it on a phone: the question and who asks above the
 * buttons (the credential's Business Name unless Asked By names someone else), after Approve what was
 * approved; at 320 px in dark mode with the text at 200% nothing runs off the side; the colours' contrast
 * in both schemes, computed in the browser; and a link opened again once it was answered. One screenshot
 * per view.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { answer, ask, finished, loopWorkflow, question, waitWorkflow } from '../e2e/checks/sendAndWait';
import { assert, assertEqual } from '../e2e/lib/report';
import type { Stack } from '../../tools/n8n/stack';
import type { Workflow } from '../../tools/n8n/workflow';
import { type CredentialRef, DEMO_CREDENTIAL_FIELDS } from '../../tools/n8n/workflows';
import { WAIT } from './browser';
import { contrastOf } from './contrast';

export const ANSWER_QUESTION = 'Can we ship order #1042 today?\nThe <b>courier</b> comes at 3 pm.';
/** The Business Name of the answer pages' credential (run.ts): the demo credential's, and the Asked By that overrides it. */
export const BUSINESS_NAME = DEMO_CREDENTIAL_FIELDS.businessName;
export const ASKED_BY = 'Ann at Acme Shop';

export const answerPageWorkflows = (credential: CredentialRef): Workflow[] => [
	waitWorkflow(credential, 'UiApproval', '+15550000301', {
		responseType: 'approval',
		approvalType: 'double',
		message: ANSWER_QUESTION,
		options: { askedBy: ASKED_BY },
	}),
	waitWorkflow(credential, 'UiText', '+15550000302', { responseType: 'freeText', message: ANSWER_QUESTION }),
	loopWorkflow(credential),
];

type Shot = (name: string) => string;

const answerWorkflows = (stack: Stack) => {
	const find = (key: string) => stack.workflows.find((w) => w.name === `E2E: send and wait (${key})`)!;
	return { approval: find('UiApproval'), text: find('UiText'), loop: find('Loop') };
};

/** A phone-sized browser: 390x844 in light mode, or 320 px wide in dark mode. */
async function phone(browser: Browser, size: 'phone' | 'narrow-dark' | 'narrow-light'): Promise<{ context: BrowserContext; page: Page }> {
	const context = await browser.newContext(
		size === 'phone'
			? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true }
			: { viewport: { width: 320, height: 640 }, colorScheme: size === 'narrow-dark' ? 'dark' : 'light', isMobile: true },
	);
	const page = await context.newPage();
	page.setDefaultTimeout(WAIT);
	return { context, page };
}

const overflow = async (page: Page) => Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
const background = async (page: Page) => String(await page.evaluate('getComputedStyle(document.body).backgroundColor'));
const LIGHT_BACKGROUND = 'rgb(244, 245, 247)';
/** n8n's "No action required" page: a fixed 448 px box, so 128 px too wide at 320 px (docs/compatibility.md). */
const N8N_PAGE_TOO_WIDE = 128;

export async function checkAnswerPage(browser: Browser, stack: Stack, shot: Shot): Promise<void> {
	const { approval, text } = answerWorkflows(stack);
	const { context, page } = await phone(browser, 'phone');
	try {
		// Approval: who asks (the node's Asked By), the question (its markup shown as text), then the buttons.
		const asked = await ask(stack, approval);
		await page.goto(asked.link);
		const shownQuestion = page.locator('.question');
		await page.getByText(`From ${ASKED_BY}`, { exact: true }).waitFor();
		const shown = await shownQuestion.innerText();
		if (shown.trim() !== ANSWER_QUESTION) throw new Error(`the page shows ${JSON.stringify(shown)}`);
		const approve = page.getByRole('button', { name: 'Approve' });
		await approve.waitFor();
		const [q, a] = [await shownQuestion.boundingBox(), await approve.boundingBox()];
		if (!q || !a || a.y < q.y + q.height) throw new Error('the buttons are not under the question');
		if (a.y + a.height > 844) throw new Error('Approve is below the first screen');
		await page.screenshot({ path: shot('answer-page-question-390') });
		await approve.click();
		await page.getByRole('heading', { name: 'You approved:' }).waitFor();
		if ((await page.locator('.question').innerText()).trim() !== ANSWER_QUESTION) throw new Error('the answered page does not show the question');
		await page.screenshot({ path: shot('answer-page-approved-390') });
	} finally {
		await context.close();
	}

	// Free text at 320 px, dark mode, text at 200%; Asked By empty: the credential's Business Name asks.
	const narrow = await phone(browser, 'narrow-dark');
	try {
		const askedText = await ask(stack, text);
		await narrow.page.goto(askedText.link);
		await narrow.page.addStyleTag({ content: 'html{font-size:200%}' });
		await narrow.page.locator('.question').waitFor();
		await narrow.page.getByText(`From ${BUSINESS_NAME}`, { exact: true }).waitFor();
		const wider = await overflow(narrow.page);
		if (wider > 0) throw new Error(`the page is ${wider} px wider than the 320 px screen at 200% text`);
		if ((await background(narrow.page)) === LIGHT_BACKGROUND) throw new Error('dark mode shows the light background');
		await narrow.page.screenshot({ path: shot('answer-page-free-text-320-dark-200'), fullPage: true });
		await narrow.page.locator('textarea').fill('Yes, at 3 pm');
		await narrow.page.getByRole('button', { name: 'Send' }).click();
		await narrow.page.getByRole('heading', { name: 'You answered:' }).waitFor();
		await narrow.page.getByText('Yes, at 3 pm', { exact: true }).waitFor();
		if (!(await narrow.page.locator('.question').last().innerText()).includes('Can we ship order #1042 today?')) {
			throw new Error('the answered page does not show the question');
		}
		await narrow.page.screenshot({ path: shot('answer-page-answered-320-dark-200'), fullPage: true });
	} finally {
		await narrow.context.close();
	}
}

/**
 * Contrast at 320 px in dark and in light mode, on every page a recipient can meet: the approval and the
 * free-text question, the free-text question with its error (an answer of only spaces), and the page
 * after the answer. The lowest ratios are printed.
 */
export async function checkAnswerPageContrast(browser: Browser, stack: Stack, shot: Shot): Promise<string[]> {
	const { approval, text } = answerWorkflows(stack);
	const lines: string[] = [];
	const failing: string[] = [];
	const measure = async (page: Page, what: string) => {
		const { text: textRatio, control, failing: below } = await contrastOf(page);
		const controls = Number.isFinite(control) ? `lowest control edge ${control.toFixed(2)}:1` : 'no controls';
		lines.push(`${what}: lowest text ${textRatio.toFixed(2)}:1, ${controls}`);
		failing.push(...below.map((line) => `${what}: ${line}`));
	};
	const askedApproval = await ask(stack, approval);
	const askedText = await ask(stack, text);
	for (const scheme of ['dark', 'light'] as const) {
		const { context, page } = await phone(browser, scheme === 'dark' ? 'narrow-dark' : 'narrow-light');
		try {
			await page.goto(askedApproval.link);
			await page.getByRole('button', { name: 'Decline' }).waitFor();
			await measure(page, `approval question, 320 px, ${scheme}`);
			if (scheme === 'dark') await page.screenshot({ path: shot('contrast-approval-320-dark'), fullPage: true });
			await page.goto(askedText.link);
			await page.locator('textarea').fill('   ');
			await page.getByRole('button', { name: 'Send' }).click();
			await page.getByRole('alert').waitFor();
			await measure(page, `free-text question with its error, 320 px, ${scheme}`);
			if (scheme === 'dark') await page.screenshot({ path: shot('contrast-free-text-error-320-dark'), fullPage: true });
		} finally {
			await context.close();
		}
	}
	for (const [scheme, asked, value] of [['dark', askedText, 'Yes'], ['light', askedApproval, 'Decline']] as const) {
		const { context, page } = await phone(browser, scheme === 'dark' ? 'narrow-dark' : 'narrow-light');
		try {
			await page.goto(asked.link);
			if (value === 'Yes') await page.locator('textarea').fill(value);
			await page.getByRole('button', { name: value === 'Yes' ? 'Send' : value }).click();
			await page.getByText('Your answer was received', { exact: false }).waitFor();
			await measure(page, `after the answer, 320 px, ${scheme}`);
			if (scheme === 'dark') await page.screenshot({ path: shot('contrast-answered-320-dark'), fullPage: true });
		} finally {
			await context.close();
		}
	}
	assert(failing.length === 0, `below WCAG 2.2 AA:\n${failing.join('\n')}`);
	return lines;
}

/**
 * A link opened again once it was answered, at 320 px in dark mode. While the run waits for the next
 * question of the same node (Loop Over Items), the node answers: the package's page, naming the question
 * the link was for. Once the run has finished, n8n answers a send-and-wait link itself and never calls the
 * node (docs/compatibility.md, "An answered link opened again"): n8n's own page, recorded here as it is.
 */
export async function checkReopenedLink(browser: Browser, stack: Stack, shot: Shot): Promise<void> {
	const { approval, loop } = answerWorkflows(stack);
	const { context, page } = await phone(browser, 'narrow-dark');
	try {
		const people = [
			{ phone: '+15550000311', name: 'Ann' },
			{ phone: '+15550000312', name: 'Bob' },
		];
		const first = await ask(stack, loop, { people }, people[0].phone);
		const since = await stack.sandbox.mark();
		assertEqual((await answer(first.link, 'approve')).status, 200, 'Ann’s answer');
		const second = await question(stack, loop, since, people[1].phone);
		const response = await page.goto(first.link);
		assertEqual(response?.status(), 410, 'Ann’s link while Bob’s question waits');
		await page.getByRole('heading', { name: 'No answer needed' }).waitFor();
		assertEqual((await page.locator('.question').innerText()).trim(), 'May Ann have the day off?', 'the question the link was for');
		const wider = await overflow(page);
		assert(wider <= 0, `the page is ${wider} px wider than the 320 px screen`);
		assert((await background(page)) !== LIGHT_BACKGROUND, 'dark mode shows the light background');
		const { failing } = await contrastOf(page);
		assert(failing.length === 0, `below WCAG 2.2 AA:\n${failing.join('\n')}`);
		await page.screenshot({ path: shot('reopened-link-next-question-waiting-320-dark'), fullPage: true });
		assertEqual((await answer(second.link, 'decline')).status, 200, 'Bob’s answer');

		const asked = await ask(stack, approval);
		assertEqual((await answer(asked.link, 'approve')).status, 200, 'the answer');
		assertEqual((await finished(stack.n8n, asked)).status, 'success', 'the run after the answer');
		await page.goto(asked.link);
		assertEqual(await page.title(), 'No action required', 'the page n8n shows for a finished run’s link');
		// n8n's page, as docs/compatibility.md describes it: n8n answers before any node could (waiting-webhooks.js).
		const n8nWider = await overflow(page);
		const n8nBackground = await background(page);
		process.stdout.write(`# n8n's "No action required" page at 320 px: ${n8nWider} px wider than the screen, background ${n8nBackground}\n`);
		assertEqual(n8nWider, N8N_PAGE_TOO_WIDE, 'px by which n8n’s page is wider than 320 px (docs/compatibility.md)');
		assert(!/Can we ship|May Ann/.test(await page.locator('body').innerText()), 'n8n’s page names the question');
		await page.screenshot({ path: shot('reopened-link-run-finished-n8n-page-320-dark'), fullPage: true });
	} finally {
		await context.close();
	}
}
