import type { ILoadOptionsFunctions, INodeListSearchResult, IDataObject } from 'n8n-workflow';

import { getPage, PAGE_SIZE } from '../transport';

/** Templates for the Template picker, searchable by name, one page of the service per scroll. */
export async function searchTemplates(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = Number(paginationToken ?? 1);
	const qs: IDataObject = filter ? { searchTerm: filter } : {};
	const { items, lastPage } = await getPage.call(this, '/templates', qs, page, PAGE_SIZE);
	return {
		results: items.map((template) => ({
			name: `${String(template.name)} (${String(template.language)}, ${String(template.status)})`,
			value: String(template.id),
		})),
		paginationToken:
			(lastPage !== undefined ? page < lastPage : items.length === PAGE_SIZE) ? String(page + 1) : undefined,
	};
}
