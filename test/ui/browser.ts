/** Small helpers over n8n's editor for the browser suite: its data-test-id attributes and dropdowns. */
import type { Locator, Page } from 'playwright-core';
import { waitFor } from '../../tools/n8n/proc';

/** Generous: the CPU is shared with other n8n instances. */
export const WAIT = 60_000;

export const byTestId = (scope: Page | Locator, id: string) => scope.locator(`[data-test-id="${id}"]`);

/** The labels of the visible parameters in the node panel, as a user reads them. */
export async function visibleLabels(scope: Locator): Promise<string[]> {
	return (await byTestId(scope, 'input-label').filter({ visible: true }).allInnerTexts()).map((t) => t.split('\n')[0].trim());
}

/**
 * Opens the dropdown of a select (a parameter's input, or a collection's "Add" control) and returns its
 * list: the list the select's own combobox points at, so a list still fading out cannot be read instead.
 */
export async function openDropdown(page: Page, select: Locator): Promise<{ list: Locator; headlines: string[] }> {
	await select.click();
	const id = await select.locator('input[role="combobox"]').first().getAttribute('aria-controls');
	if (!id) throw new Error('the select has no list');
	const list = page.locator(`[id="${id}"]`);
	await list.getByRole('option').first().waitFor();
	// An option reads as its name, then its description on the next line.
	const headlines = (await list.getByRole('option').allInnerTexts()).map((t) => t.split('\n')[0].trim());
	return { list, headlines };
}

/** Closes an open dropdown without choosing. */
export async function closeDropdown(page: Page, list: Locator): Promise<void> {
	await page.keyboard.press('Escape');
	await list.waitFor({ state: 'hidden' });
}

/** Picks `option` (by its name) in the dropdown of parameter `name`; waits until the input shows it. Returns what was offered. */
export async function chooseOption(page: Page, scope: Locator, name: string, option: string): Promise<string[]> {
	const select = byTestId(scope, `parameter-input-${name}`);
	const { list, headlines } = await openDropdown(page, select);
	if (!headlines.includes(option)) {
		await closeDropdown(page, list);
		throw new Error(`${name} does not offer ${option} (offers: ${headlines.join(', ')})`);
	}
	await list.getByRole('option').filter({ has: page.getByText(option, { exact: true }) }).first().click();
	await list.waitFor({ state: 'hidden' });
	await waitFor(`${name} to show ${option}`, async () => ((await select.locator('input').first().inputValue()) === option ? true : undefined), WAIT, 100);
	return headlines;
}
