/**
 * The shipped examples open in the editor as they are saved. n8n's resource mapper (a template's Values) fetches
 * its fields when its stored `schema` is empty and writes them into the node: that marks the node's parameters
 * changed after its run started, so the output of a run that waits there says "Node parameters have changed"
 * (docs/conversations.md, "In the editor"). So each example's Values carry the fields the node offers, exactly
 * as the editor saves them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ACTION_NODE_TYPE, templatePlaceholderFields } from '../helpers/actionNode';
import { useSandbox } from '../helpers/useSandbox';
import type { Sandbox } from '../../tools/sandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

const EXAMPLES = join(__dirname, '../../examples');

interface ExampleNode {
	name: string;
	type: string;
	parameters: { templateId?: { value?: string }; placeholderValues?: { value?: Record<string, unknown>; schema?: unknown[] } };
}

const withValues = readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.flatMap((file) => (JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as { nodes: ExampleNode[] }).nodes.map((node) => [file, node] as const))
	.filter(([, node]) => node.type === ACTION_NODE_TYPE && node.parameters.placeholderValues)
	.map(([file, node]) => [file, node.name, node] as const);

test('there is an example with Values to check (examples/order-confirmation.json)', () => {
	expect(withValues.map(([file, name]) => `${file}: ${name}`)).toContain('order-confirmation.json: Ask the Customer');
});

test.each(withValues)('%s, %s: its Values hold the fields the editor would fetch and write on opening', async (_file, _name, node) => {
	const { fields } = await templatePlaceholderFields(sandbox, String(node.parameters.templateId?.value));
	const stored = node.parameters.placeholderValues!;
	// What a failing diff says: the schema to store, as n8n's editor saves it.
	expect({ schema: stored.schema }).toEqual({ schema: fields });
	expect(Object.keys(stored.value ?? {}).every((id) => fields.some((f) => f.id === id))).toBe(true);
});
