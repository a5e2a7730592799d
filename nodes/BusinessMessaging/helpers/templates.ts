import type { IDataObject } from 'n8n-workflow';

/**
 * Adds how many distinct {{n}} placeholders a template has, per component and in all, so a user sees
 * how many values a send with this template needs.
 */
export function withPlaceholderCounts(template: IDataObject): IDataObject {
	const byComponent: IDataObject = {};
	let total = 0;
	const components = Array.isArray(template.components) ? (template.components as IDataObject[]) : [];
	for (const component of components) {
		const text = typeof component.text === 'string' ? component.text : '';
		const count = new Set(text.match(/\{\{\s*\d+\s*\}\}/g)?.map((p) => p.replace(/\s/g, ''))).size;
		if (count > 0) byComponent[String(component.type ?? 'UNKNOWN')] = count;
		total += count;
	}
	return { ...template, placeholderCount: total, placeholdersByComponent: byComponent };
}
