/**
 * The Send and Wait answer page as the recipient sees it on a phone (390x844): the question and who
 * asks above the buttons, and after Approve what was approved. Also at 320 px in dark mode with the
 * text at 200%: nothing runs off the side. One screenshot per view.
 */
import type { Browser } from 'playwright-core';
import { ask, waitWorkflow } from '../e2e/checks/sendAndWait';
import type { Stack } from '../../tools/n8n/stack';
import type { Workflow } from '../../tools/n8n/workflow';
import type { CredentialRef } from '../../tools/n8n/workflows';
import { WAIT } from './browser';

export const ANSWER_QUESTION = 'Can we ship order #1042 today?\nThe <b>courier</b> comes at 3 pm.';
export const ASKED_BY = 'Acme Shop';

export const answerPageWorkflows = (credential: CredentialRef): Workflow[] => [
	waitWorkflow(credential, 'UiApproval', '+15550000301', {
		responseType: 'approval',
		approvalType: 'double',
		message: ANSWER_QUESTION,
		options: { askedBy: ASKED_BY },
	}),
	waitWorkflow(credential, 'UiText', '+15550000302', { responseType: 'freeText', message: ANSWER_QUESTION }),
];

export async function checkAnswerPage(browser: Browser, stack: Stack, shot: (name: string) => string): Promise<void> {
	const [approval, text] = stack.workflows.filter((w) => /UiApproval|UiText/.test(w.name));
	const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
	const page = await phone.newPage();
	page.setDefaultTimeout(WAIT);
	try {
		// Approval: who asks, the question (its markup shown as text, not applied), then the buttons.
		const asked = await ask(stack, approval);
		await page.goto(asked.link);
		const question = page.locator('.question');
		await page.getByText(`From ${ASKED_BY}`, { exact: true }).waitFor();
		const shown = await question.innerText();
		if (shown.trim() !== ANSWER_QUESTION) throw new Error(`the page shows ${JSON.stringify(shown)}`);
		const approve = page.getByRole('button', { name: 'Approve' });
		await approve.waitFor();
		const [q, a] = [await question.boundingBox(), await approve.boundingBox()];
		if (!q || !a || a.y < q.y + q.height) throw new Error('the buttons are not under the question');
		if (a.y + a.height > 844) throw new Error('Approve is below the first screen');
		await page.screenshot({ path: shot('answer-page-question-390') });
		await approve.click();
		await page.getByRole('heading', { name: 'You approved:' }).waitFor();
		if ((await page.locator('.question').innerText()).trim() !== ANSWER_QUESTION) throw new Error('the answered page does not show the question');
		await page.screenshot({ path: shot('answer-page-approved-390') });

		// Free text at 320 px, dark mode, text at 200%.
		const small = await browser.newContext({ viewport: { width: 320, height: 640 }, colorScheme: 'dark', isMobile: true });
		const narrow = await small.newPage();
		narrow.setDefaultTimeout(WAIT);
		try {
			const askedText = await ask(stack, text);
			await narrow.goto(askedText.link);
			await narrow.addStyleTag({ content: 'html{font-size:200%}' });
			await narrow.locator('.question').waitFor();
			const overflow = Number(await narrow.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
			if (overflow > 0) throw new Error(`the page is ${overflow} px wider than the 320 px screen at 200% text`);
			const background = String(await narrow.evaluate('getComputedStyle(document.body).backgroundColor'));
			if (background === 'rgb(244, 245, 247)') throw new Error('dark mode shows the light background');
			await narrow.screenshot({ path: shot('answer-page-free-text-320-dark-200'), fullPage: true });
			await narrow.locator('textarea').fill('Yes, at 3 pm');
			await narrow.getByRole('button', { name: 'Send' }).click();
			await narrow.getByRole('heading', { name: 'You answered:' }).waitFor();
			await narrow.getByText('Yes, at 3 pm', { exact: true }).waitFor();
			if (!(await narrow.locator('.question').last().innerText()).includes('Can we ship order #1042 today?')) {
				throw new Error('the answered page does not show the question');
			}
			await narrow.screenshot({ path: shot('answer-page-answered-320-dark-200'), fullPage: true });
		} finally {
			await small.close();
		}
	} finally {
		await phone.close();
	}
}
