/**
 * For every row of the README's table of resources and operations: choose them in one node panel and
 * check that every field the README names is shown (collections: their label, and the options their
 * "Add" button offers), and that each resource offers exactly the operations the README lists.
 */
import type { Locator, Page } from 'playwright-core';
import { byTestId, chooseOption, closeDropdown, openDropdown, visibleLabels, WAIT } from './browser';
import { readmeFieldRows } from './readme-fields';
import { waitFor } from '../../tools/n8n/proc';

/** n8n adds this resource and operation to nodes whose credential the HTTP Request node can use; not ours to document. */
const N8N_ADDED = 'Custom API Call';
/** A sandbox template with one body placeholder (tools/sandbox/seed.ts: template 7). */
const TEMPLATE_WITH_PLACEHOLDERS = 'order_update_0007';
/** How long a field the README names may take to appear before it counts as missing (a loaded machine). */
const FIELDS_WAIT = 20_000;

export async function checkFieldsAgainstReadme(page: Page, panel: Locator): Promise<string[]> {
	const rows = readmeFieldRows();
	const problems: string[] = [];
	const readmeResources = [...new Set(rows.map((r) => r.resource))];
	let resources: string[] | undefined;
	for (const row of rows) {
		let operations: string[];
		try {
			const offered = await chooseOption(page, panel, 'resource', row.resource);
			resources ??= offered.filter((r) => r !== N8N_ADDED);
			operations = (await chooseOption(page, panel, 'operation', row.operation)).filter((o) => o !== N8N_ADDED);
		} catch (error) {
			problems.push(`${row.resource} → ${row.operation}: ${(error as Error).message}`);
			continue;
		}
		const readmeOperations = rows.filter((r) => r.resource === row.resource).map((r) => r.operation);
		const firstOfResource = rows.find((r) => r.resource === row.resource) === row;
		if (firstOfResource && operations.sort().join(', ') !== [...readmeOperations].sort().join(', ')) {
			problems.push(`${row.resource}: the editor offers ${operations.join(', ')}; the README lists ${readmeOperations.join(', ')}`);
		}
		let labels: string[] = [];
		const missing = () => row.fields.filter((f) => !labels.includes(f.label)).map((f) => f.label);
		const template = byTestId(panel, 'rlc-input').filter({ visible: true }).first();
		const templateEmpty = async () => labels.includes('Template') && (await template.evaluate((e) => ((e.tagName === 'INPUT' ? e : e.querySelector('input')) as unknown as { value: string } | null)?.value ?? '')) === '';
		// The panel re-renders for the new operation; fields that depend on the template wait for one.
		const settled = () =>
			waitFor(`${row.resource} → ${row.operation}: ${missing().join(', ')}`, async () => {
				labels = await visibleLabels(panel);
				return missing().length === 0 || (await templateEmpty()) ? true : undefined;
			}, FIELDS_WAIT, 100).catch(() => undefined);
		await settled();
		// Values (one per placeholder) show once a template with placeholders is chosen, as a user would.
		if (missing().length && (await templateEmpty())) {
			await template.click();
			await page.getByPlaceholder('Search...').filter({ visible: true }).first().fill(TEMPLATE_WITH_PLACEHOLDERS);
			await byTestId(page, 'rlc-item').filter({ visible: true }).filter({ hasText: TEMPLATE_WITH_PLACEHOLDERS }).first().click();
			await waitFor('the chosen template', async () => ((await templateEmpty()) ? undefined : true), WAIT, 100);
			await settled();
		}
		if (missing().length) problems.push(`${row.resource} → ${row.operation}: not shown: ${missing().join(', ')} (shown: ${labels.join(', ')})`);
		for (const field of row.fields.filter((f) => f.options.length)) {
			const item = byTestId(panel, 'parameter-item').filter({ visible: true }).filter({ has: byTestId(page, 'input-label').getByText(field.label, { exact: true }) });
			const add = byTestId(item, 'collection-parameter-add');
			const options = (await add.count()) ? await collectionOptions(page, item, add) : await selectOptions(page, item);
			const absent = field.options.filter((o) => !options.includes(o));
			if (absent.length) problems.push(`${row.resource} → ${row.operation} → ${field.label}: does not offer ${absent.join(', ')} (offers: ${options.join(', ')})`);
		}
	}
	if (resources?.sort().join(', ') !== readmeResources.sort().join(', ')) {
		problems.push(`the editor offers the resources ${resources?.join(', ')}; the README lists ${readmeResources.join(', ')}`);
	}
	return problems;
}

/**
 * A collection's "Add …" control: a dropdown of its options, or, when one option is left, a button that
 * adds it at once (then its label shows inside the collection). Adding changes the node; the suite never
 * saves this workflow.
 */
async function collectionOptions(page: Page, item: Locator, add: Locator): Promise<string[]> {
	if (await add.locator('input[role="combobox"]').count()) {
		const { list, headlines } = await openDropdown(page, add);
		await closeDropdown(page, list);
		return headlines;
	}
	const before = await visibleLabels(item);
	await add.click();
	return await waitFor('the added option', async () => {
		const after = await visibleLabels(item);
		return after.length > before.length ? after.slice(1) : undefined;
	}, WAIT, 100);
}

/** An options parameter ("Message: Text or From Template"): what its dropdown offers. */
async function selectOptions(page: Page, item: Locator): Promise<string[]> {
	const { list, headlines } = await openDropdown(page, item.locator('[data-test-id^="parameter-input-"]').first());
	await closeDropdown(page, list);
	return headlines;
}
