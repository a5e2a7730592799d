/**
 * The README's table of the action node's operations (section "Action node: Business Messaging") against
 * the node's own description: every resource and operation the node offers has its row and no row names
 * one it does not; each field a row names is a field of that operation, and each choice it lists is one
 * of that field's options. The browser suite (test/ui/fields.ts) checks the same rows in n8n's editor.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { BusinessMessaging } from '../../nodes/BusinessMessaging/BusinessMessaging.node';
import { readmeFieldRows } from '../ui/readme-fields';

const { properties } = new BusinessMessaging().description;
const rows = readmeFieldRows();

const optionsOf = (property: INodeProperties) => (property.options ?? []) as Array<INodeProperties | INodePropertyOptions>;
const shownFor = (property: INodeProperties, name: string, value: string) => {
	const show = property.displayOptions?.show?.[name] as unknown[] | undefined;
	return !show || show.includes(value);
};
/** As a user sees the plain node (not an AI agent's tool variant). */
const onPlainNode = (property: INodeProperties) => !(property.displayOptions?.show?.['@tool'] as unknown[] | undefined)?.includes(true);

/** A field's label in the editor: a resource mapper shows its values' label (Template's "Values"). */
const labelOf = (property: INodeProperties) => property.typeOptions?.resourceMapper?.valuesLabel ?? property.displayName;

/** Resource and operation by their names in the editor, with the operation's fields. */
const choicesOf = (property: INodeProperties) => (property.options ?? []) as INodePropertyOptions[];
const offered = choicesOf(properties.find((p) => p.name === 'resource')!).flatMap((resource) => {
	const operationField = properties.find((p) => p.name === 'operation' && onPlainNode(p) && shownFor(p, 'resource', String(resource.value)))!;
	return choicesOf(operationField).map((operation) => ({
		resource: resource.name,
		operation: operation.name,
		fields: properties.filter(
			(p) =>
				p.name !== 'resource' &&
				p.name !== 'operation' &&
				p.type !== 'notice' &&
				onPlainNode(p) &&
				shownFor(p, 'resource', String(resource.value)) &&
				shownFor(p, 'operation', String(operation.value)),
		),
	}));
});

test('the README has one row for each operation the node offers, and none for another', () => {
	const named = (list: Array<{ resource: string; operation: string }>) => list.map((r) => `${r.resource} → ${r.operation}`).sort();
	expect(named(rows)).toEqual(named(offered));
});

test.each(offered.map((o) => [`${o.resource} → ${o.operation}`, o] as const))('%s: the README names its fields and their choices', (_, operation) => {
	const row = rows.find((r) => r.resource === operation.resource && r.operation === operation.operation)!;
	expect(row).toBeDefined();
	for (const { label, options } of row.fields) {
		const field = operation.fields.find((p) => labelOf(p) === label);
		expect({ label, found: Boolean(field) }).toEqual({ label, found: true });
		const choices = optionsOf(field!).map((o) => ('displayName' in o ? o.displayName : o.name));
		for (const option of options) expect({ label, option, isAChoice: choices.includes(option) }).toEqual({ label, option, isAChoice: true });
	}
});
