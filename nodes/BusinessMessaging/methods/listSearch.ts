import type { ILoadOptionsFunctions, INodeListSearchResult, IDataObject } from 'n8n-workflow';

import { drawnWidth } from '../helpers/editorWidth';
import { RunState } from '../helpers/runState';
import { placeholdersOf } from '../helpers/templates';
import { getPage, PAGE_SIZE } from '../transport';

/**
 * The Template field shows the chosen name at 13 px in 255 px at n8n's default panel width and cuts the
 * rest without a tooltip (docs/action-node.md, "Templates"); a little less keeps a margin.
 */
export const TEMPLATE_NAME_PX = 248;
const TEMPLATE_FONT_PX = 13;

/**
 * What a user needs before picking: the name and language, how many values the template needs, or that it
 * cannot be sent. The name comes first. The count goes when the whole would not fit the field once chosen
 * (the Values below show the count then); a name too long for the field n8n cuts.
 */
export function listName(template: IDataObject): string {
	const name = String(template.name);
	const language = String(template.language);
	if (template.status !== 'APPROVED') return `${name} (${language}, ${String(template.status)}: cannot be sent)`;
	const count = placeholdersOf(template).length;
	const withCount = `${name} (${language}, ${count === 0 ? 'no' : count} value${count === 1 ? '' : 's'})`;
	return drawnWidth(withCount, TEMPLATE_FONT_PX) <= TEMPLATE_NAME_PX ? withCount : `${name} (${language})`;
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
