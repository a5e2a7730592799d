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

/** How long a navigation inside the editor may take before the page is loaded instead. */
const IN_EDITOR_GIVE_UP_MS = 15_000;

/** The page's n8n router (the Vue app on #app), as the editor's links use it; none before the editor loaded. */
type Router = { push: (path: string) => Promise<unknown> };
type AppElement = { __vue_app__?: { config: { globalProperties: { $router?: Router } } } };
const editorRouter = (): Router | undefined =>
	(globalThis as unknown as { document: { querySelector: (selector: string) => AppElement | null } }).document.querySelector('#app')?.__vue_app__?.config.globalProperties.$router;

/**
 * Opens `path` of n8n's editor. Once the editor is loaded, inside it, as a click on one of its links does (n8n's
 * router), instead of loading the whole editor again: each load costs Chromium about 9 CPU s, most of the suite's
 * CPU on a busy machine (docs/evidence/2026-12-04-cpu-by-process/). n8n's "Save changes before leaving?" is answered
 * Leave without saving, as a new load of the page discards unsaved changes.
 */
export async function openInEditor(page: Page, baseUrl: string, path: string): Promise<void> {
	const target = new URL(path, baseUrl);
	const inEditor = page.url().startsWith(baseUrl) && (await page.evaluate(`Boolean((${editorRouter})())`));
	if (!inEditor) {
		await page.goto(target.href);
		return;
	}
	await closeOverlays(page);
	const from = new URL(page.url()).pathname;
	const push = `void (${editorRouter})().push(${JSON.stringify(target.pathname + target.search)})`;
	const leave = page.getByRole('button', { name: 'Leave without saving' }).filter({ visible: true });
	// Not awaited: with unsaved changes the navigation waits for the answer to n8n's question. Asked again
	// while nothing happens: a navigation of n8n's own still under way (the one after logging in) cancels it.
	let pushedAt = 0;
	const startedAt = Date.now();
	const opened = await waitFor(`the editor to open ${target.pathname}`, async () => {
		const now = new URL(page.url()).pathname;
		// Left the page it showed: where n8n redirects instead, the steps' own waits see it.
		if (now === target.pathname || now !== from) return 'inside';
		// Once, under load, the router never left the workflow list (npm test of 0e402d9): the page is loaded instead, as before.
		if (Date.now() - startedAt > IN_EDITOR_GIVE_UP_MS) return 'loaded';
		if (await leave.count()) await leave.first().click().catch(() => undefined);
		else if (Date.now() - pushedAt > 3_000) {
			await page.evaluate(push);
			pushedAt = Date.now();
		}
		return undefined;
	}, WAIT, 100);
	if (opened === 'loaded') {
		process.stderr.write(`# the editor did not open ${target.pathname} within ${IN_EDITOR_GIVE_UP_MS / 1000} s: loaded the page instead\n`);
		await page.goto(target.href);
	}
}

/**
 * Closes what a step left open over the editor (a credential's dialog, a node's panel) with Escape, as a user does
 * before going elsewhere: n8n keeps them open across its own navigation, where a page load discarded them.
 */
async function closeOverlays(page: Page): Promise<void> {
	const open = page.locator('#app-modals [role="dialog"], [data-test-id="ndv"]').filter({ visible: true });
	for (let tries = 0; tries < 5 && (await open.count()) > 0; tries++) {
		await page.keyboard.press('Escape');
		await open.first().waitFor({ state: 'hidden', timeout: 1_000 }).catch(() => undefined);
	}
}

/**
 * Opens `workflow` on the canvas: by way of the workflow list, so that nothing of the workflow shown before
 * (its canvas, its run) is left when the steps look; returns once n8n shows the workflow (the tab's title names
 * it) and its nodes are drawn.
 */
export async function openWorkflow(page: Page, baseUrl: string, workflow: { id: string; name: string }): Promise<void> {
	if (page.url().startsWith(`${baseUrl}/workflow/`)) {
		await openInEditor(page, baseUrl, '/home/workflows');
		await byTestId(page, 'canvas-node').first().waitFor({ state: 'detached' });
	}
	await openInEditor(page, baseUrl, `/workflow/${workflow.id}`);
	// n8n titles the tab "<state> <workflow name> - n8n" (n8n[DEV] and the like on other release channels) once it opened the workflow.
	await waitFor(`the editor to open "${workflow.name}"`, async () => (/^\S+ (.*) - n8n(\[\w+\])?$/.exec(await page.title())?.[1] === workflow.name ? true : undefined), WAIT, 100);
	await byTestId(page, 'canvas-node').first().waitFor();
}
