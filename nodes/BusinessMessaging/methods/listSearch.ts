import type { ILoadOptionsFunctions, INodeListSearchResult, IDataObject } from 'n8n-workflow';

import { RunState } from '../helpers/runState';
import { placeholdersOf } from '../helpers/templates';
import { getPage, PAGE_SIZE } from '../transport';

/**
 * What a user needs before picking: how many values the template needs, or that it cannot be sent.
 * The name comes first and the rest is short, because n8n cuts the chosen name at the field's width
 * without a tooltip (docs/action-node.md, "Templates"); the status only when it blocks sending.
 */
export function listName(template: IDataObject): string {
	const name = String(template.name);
	const language = String(template.language);
	if (template.status !== 'APPROVED') return `${name} (${language}, ${String(template.status)}: cannot be sent)`;
	const count = placeholdersOf(template).length;
	return `${name} (${language}, ${count === 0 ? 'no' : count} value${count === 1 ? '' : 's'})`;
}

/** Templates for the Template picker, searchable by name, one page of the service per scroll. */
export async function searchTemplates(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = Number(paginationToken ?? 1);
	const qs: IDataObject = filter ? { searchTerm: filter } : {};
	const { items, lastPage } = await getPage(new RunState(this), '/templates', qs, page, PAGE_SIZE);
	return {
		results: items.map((template) => ({ name: listName(template), value: String(template.id) })),
		paginationToken:
			(lastPage !== undefined ? page < lastPage : items.length === PAGE_SIZE) ? String(page + 1) : undefined,
	};
}
