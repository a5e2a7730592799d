import type { IDataObject } from 'n8n-workflow';

/**
 * n8n's database row of a trigger's static data: each request loads its own copy and saves the whole of it
 * afterwards, last write winning (the rule the registries in nodes/BusinessMessagingTrigger/sharing/ are built for).
 */
export class StaticDataRow {
	saved: IDataObject = {};
	load(): IDataObject {
		return structuredClone(this.saved);
	}
	save(copy: IDataObject): void {
		this.saved = structuredClone(copy);
	}
}
