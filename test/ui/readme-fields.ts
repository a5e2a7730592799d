/**
 * The README's table of the action node's resources, operations and fields (section "Action node:
 * Business Messaging"), read so the browser suite checks the editor against it: README and editor
 * cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/n8n/n8n';

export interface FieldRow {
	resource: string;
	operation: string;
	/** Top-level fields by label, in README order. */
	fields: Array<{ label: string; /** For a collection ("Update Fields: Status, …"): the options it offers. */ options: string[] }>;
}

/** Text in (…) explains a field; it is not a field. Leaves `*`/backticks out too. */
const clean = (text: string) => text.replace(/\([^()]*\)/g, '').replace(/[*`]/g, '').trim();

export function readmeFieldRows(readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')): FieldRow[] {
	const section = readme.split(/^## /m).find((s) => s.startsWith('Action node: Business Messaging'));
	if (!section) throw new Error('README: no section "## Action node: Business Messaging"');
	// The section's first table: its rows are the lines from the first `|` up to the first line without one.
	const all = section.split('\n');
	const start = all.findIndex((l) => l.startsWith('|'));
	const end = all.findIndex((l, i) => i > start && !l.startsWith('|'));
	const lines = all.slice(start, end);
	const header = lines[0]?.split('|').map((c) => c.trim());
	if (header?.slice(1, 4).join(',') !== 'Resource,Operation,Fields') throw new Error(`README: unexpected table header ${lines[0]}`);
	return lines.slice(2).map((line) => {
		const [resource, operation, fields] = line.split('|').slice(1, 4).map((c) => c.trim());
		return { resource, operation, fields: parseFields(fields) };
	});
}

/**
 * "Order ID (required); Update Fields: Status, Payment Status" → Order ID, and the collection Update Fields
 * with its options. "Return All / Limit" → two fields. "Message: *Text* or *From Template*" → Message.
 */
function parseFields(cell: string): FieldRow['fields'] {
	if (/^[—-]$/.test(cell)) return [];
	const fields: FieldRow['fields'] = [];
	for (const segment of clean(cell).split(';').map((s) => s.trim()).filter(Boolean)) {
		const colon = segment.indexOf(':');
		if (colon > 0) {
			const options = segment.slice(colon + 1).split(/,| or /).map((s) => s.trim());
			fields.push({ label: segment.slice(0, colon).trim(), options });
		} else {
			for (const label of segment.split(/[,/]/).map((s) => s.trim()).filter(Boolean)) fields.push({ label, options: [] });
		}
	}
	return fields;
}
