/**
 * Templates filled and checked: Template → Render, Send Text From Template, and the Placeholder Values
 * fields the editor shows per template.
 */
import { NodeHelpers, type IDataObject, type INode, type INodeParameters } from 'n8n-workflow';

import { BusinessMessaging } from '../../nodes/BusinessMessaging/BusinessMessaging.node';
import { placeholdersOf, renderTemplate } from '../../nodes/BusinessMessaging/helpers/templates';
import { drawnWidth } from '../../nodes/BusinessMessaging/helpers/editorWidth';
import { TEMPLATE_NAME_PX } from '../../nodes/BusinessMessaging/methods/listSearch';
import { placeholderLabel } from '../../nodes/BusinessMessaging/methods/resourceMapping';
import { ACTION_NODE_TYPE, runAction, searchTemplates, templatePlaceholderFields } from '../helpers/actionNode';
import { type Sandbox, type Template } from '../../tools/sandbox';
import { labelProblem } from '../helpers/placeholderLabel';
import { useSandbox } from '../helpers/useSandbox';
import { makeTemplate } from '../../tools/sandbox/seed';

const template = (components: IDataObject[], status = 'APPROVED'): IDataObject => ({ id: 1, name: 'demo', status, components });

describe('renderTemplate', () => {
	test('fills repeated and out-of-order placeholders in one pass', () => {
		const t = template([{ type: 'BODY', text: 'Hi {{2}}, order {{1}} ({{1}}) for {{ 2 }}.' }]);
		expect(renderTemplate(t, { 'body.1': '#7', 'body.2': 'Ann' }).body).toBe('Hi Ann, order #7 (#7) for Ann.');
	});

	test('braces next to a placeholder stay as text; a value that looks like a placeholder is not filled again', () => {
		const t = template([{ type: 'BODY', text: '{{{1}}} {{1}}}} {{{{2}} {x} {{a}}' }]);
		expect(renderTemplate(t, { 'body.1': '{{2}}', 'body.2': 'B' }).body).toBe('{{{2}}} {{2}}}} {{B {x} {{a}}');
	});

	test('renders header, body and buttons, each numbered on its own', () => {
		const t = template([
			{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
			{ type: 'BODY', text: 'Dear {{1}}, see {{2}}' },
			{ type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Track {{1}}' }, { type: 'QUICK_REPLY', text: 'Stop' }] },
		]);
		const values = { 'header.1': '42', 'body.1': 'Ann', 'body.2': 'the link', 'button1.1': 'parcel' };
		expect(renderTemplate(t, values)).toEqual({
			header: 'Order 42',
			body: 'Dear Ann, see the link',
			buttons: [
				{ type: 'QUICK_REPLY', text: 'Track parcel' },
				{ type: 'QUICK_REPLY', text: 'Stop' },
			],
		});
		expect(placeholdersOf(t).map((p) => p.label)).toEqual(['Header {{1}}', 'Body {{1}}', 'Body {{2}}', 'Button 1 {{1}}']);
	});

	test.each(['PENDING', 'REJECTED', undefined])('refuses a template that is %s', (status) => {
		const t = { ...template([{ type: 'BODY', text: 'Hi' }]), status };
		expect(() => renderTemplate(t, {})).toThrow(/only APPROVED templates can be sent/);
	});

	test('refuses missing and empty values, naming each placeholder', () => {
		const t = template([{ type: 'BODY', text: '{{1}} {{2}} {{3}}' }]);
		expect(() => renderTemplate(t, { 'body.1': 'a', 'body.3': '  ' })).toThrow(
			'Placeholder values: no value for Body {{2}}, Body {{3}} of template "demo"',
		);
	});

	test('refuses a value for a placeholder the template does not have', () => {
		const t = template([{ type: 'BODY', text: '{{1}}' }]);
		expect(() => renderTemplate(t, { 'body.1': 'a', 'body.5': 'b' })).toThrow('template "demo" has no placeholder Body {{5}}');
	});
});

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

/** The first seeded template with this status and at least this many body placeholders. */
function seeded(status: Template['status'], minPlaceholders: number): Template {
	for (let id = 1; id < 250; id++) {
		const t = makeTemplate(id);
		const body = t.components.find((c) => c.type === 'BODY')?.text ?? '';
		if (t.status === status && (body.match(/\{\{\d+\}\}/g) ?? []).length >= minPlaceholders) return t;
	}
	throw new Error('no such template in the seed');
}

/** The body as the service would show it: each {{n}} replaced by the n-th value (split and join, not the node's code). */
function expectedBody(t: Template, values: string[]): string {
	let text = t.components.find((c) => c.type === 'BODY')!.text!;
	values.forEach((value, i) => (text = text.split(`{{${i + 1}}}`).join(value)));
	return text;
}

const locator = (id: number) => ({ __rl: true, mode: 'id', value: String(id) });
const mapping = (value: IDataObject) => ({ mappingMode: 'defineBelow', value });

test('the panel shows one required field per placeholder, per component, labelled with the template’s sample value', async () => {
	const t = seeded('APPROVED', 2);
	const { fields } = await templatePlaceholderFields(sandbox, String(t.id));
	const body = t.components.find((c) => c.type === 'BODY')!;
	const samples = body.example!.body_text[0];
	const bodyFields = fields.filter((f) => f.id.startsWith('Body'));
	expect(bodyFields.map((f) => [f.id, f.required])).toEqual(samples.map((_, i) => [`Body {{${i + 1}}}`, true]));
	expect(bodyFields.map((f, i) => labelProblem(f.displayName, f.id, samples[i])).filter(Boolean)).toEqual([]);
});

test('a label has room for the sample in the editor: a long sample is shortened, its beginning kept', async () => {
	const long = 'Chrome on Windows 11 in Lisbon';
	const label = placeholderLabel('Body {{3}}', long);
	expect(labelProblem(label, 'Body {{3}}', long)).toBeUndefined();
	expect(label).toMatch(/^Body \{\{3\}\} \(Chrome .*…\)$/);
	expect(placeholderLabel('Body {{1}}', 'ORD-0042')).toBe('Body {{1}} (ORD-0042)');
	// No room left for a sample worth reading: the label alone.
	expect(placeholderLabel('Button 12 {{10}} with a long name', 'ORD-0042')).toBe('Button 12 {{10}} with a long name');
});

test('the Template picker says how many values each template needs, and which cannot be sent, before the pick', async () => {
	const { results } = await searchTemplates(sandbox);
	const byId = new Map(results.map((r) => [Number(r.value), r.name]));
	for (const id of [1, 7, 13, 19, 25, 3, 69]) {
		const t = makeTemplate(id);
		const count = placeholdersOf(t as unknown as IDataObject).length;
		const withCount = `${t.name} (${t.language}, ${count === 0 ? 'no' : count} value${count === 1 ? '' : 's'})`;
		// The count goes when the chosen name would not fit the Template field (13 px font) with it.
		const expected =
			t.status !== 'APPROVED'
				? `${t.name} (${t.language}, ${t.status}: cannot be sent)`
				: drawnWidth(withCount, 13) <= TEMPLATE_NAME_PX
					? withCount
					: `${t.name} (${t.language})`;
		expect(byId.get(id)).toBe(expected);
	}
	// payment_reminder_0069 (en_GB, 3 values) is too wide for the field: its count goes.
	expect(byId.get(69)).toBe('payment_reminder_0069 (en_GB)');
	expect(results.some((r) => r.name.includes('PENDING: cannot be sent'))).toBe(true);
	expect(results.some((r) => r.name.includes('REJECTED: cannot be sent'))).toBe(true);
	expect(results.some((r) => / 2 values\)$/.test(r.name))).toBe(true);
});

describe('every error about a placeholder names the field as the editor labels it', () => {
	const description = new BusinessMessaging().description;
	/** What the editor shows on the node for these parameters (n8n-workflow's own check, as the editor runs it). */
	const editorIssues = (parameters: INodeParameters): string[] => {
		const node: INode = { id: 'n', name: 'Send Text', type: ACTION_NODE_TYPE, typeVersion: 1, position: [0, 0], parameters };
		const issues = NodeHelpers.getNodeParametersIssues(description.properties, node, description);
		return Object.values(issues?.parameters ?? {}).flat();
	};
	/** The label without the sample value: "Body {{2}} (#1042)" -> "Body {{2}}". */
	const shortLabel = (displayName: string) => displayName.replace(/ \(.*\)$/, '');

	test('each field of Send Text → From Template, left empty: in the editor, and when run', async () => {
		const t = seeded('APPROVED', 3);
		const { fields } = await templatePlaceholderFields(sandbox, String(t.id));
		expect(fields.length).toBeGreaterThanOrEqual(3);
		for (const field of fields) {
			const label = shortLabel(field.displayName);
			const filled = Object.fromEntries(fields.map((f) => [f.id, 'x']));
			const parameters = (value: IDataObject | null) => ({
				resource: 'message',
				operation: 'sendText',
				phone: '+4915100000001',
				textSource: 'template',
				templateId: locator(t.id),
				placeholderValues: { mappingMode: 'defineBelow', value, matchingColumns: [], schema: fields, attemptToConvertTypes: false, convertFieldsToString: false },
			});
			// The editor's issue for a field the user never filled.
			const { [field.id]: _left, ...others } = filled;
			expect(editorIssues(parameters(others) as INodeParameters)).toEqual([`Placeholder "${label}" is required`]);
			// A value left empty (or an expression that resolves to nothing) when the node runs.
			const run = await runAction(sandbox, parameters({ ...filled, [field.id]: '' }) as INodeParameters);
			expect(run.error?.message).toBe(`Placeholder values: no value for ${label} of template "${t.name}"`);
		}
		expect(sandbox.messages).toHaveLength(0);
	});

	test('header and button placeholders, and a value for a placeholder the template does not have', () => {
		const t = template([
			{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
			{ type: 'BODY', text: 'Hi {{1}}' },
			{ type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track {{1}}' }] },
		]);
		const labels = placeholdersOf(t).map((p) => p.label);
		expect(labels).toEqual(['Header {{1}}', 'Body {{1}}', 'Button 1 {{1}}']);
		for (const label of labels) {
			const values = Object.fromEntries(labels.filter((l) => l !== label).map((l) => [l, 'x']));
			expect(() => renderTemplate(t, values)).toThrow(`no value for ${label} of template "demo"`);
		}
		const all = Object.fromEntries(labels.map((l) => [l, 'x']));
		expect(() => renderTemplate(t, { ...all, 'Body {{5}}': 'y' })).toThrow('template "demo" has no placeholder Body {{5}}');
		// Values saved under the keys used before (body.1) still fill, and are named by label when extra.
		expect(renderTemplate(t, { 'header.1': '#7', 'body.1': 'Ann', 'button1.1': 'it' }).body).toBe('Hi Ann');
		expect(() => renderTemplate(t, { ...all, 'body.5': 'y' })).toThrow('has no placeholder Body {{5}}');
	});
});

test('the panel says why there are no fields for a template that is not approved', async () => {
	const t = seeded('PENDING', 0);
	const result = await templatePlaceholderFields(sandbox, String(t.id));
	expect(result.fields).toEqual([]);
	expect(result.emptyFieldsNotice).toContain('PENDING');
});

test('Template → Render outputs the rendered header, body and buttons', async () => {
	const t = seeded('APPROVED', 2);
	const values = ['Ann', '#1042', 'Friday'].slice(0, (t.components[1].text!.match(/\{\{\d+\}\}/g) ?? []).length);
	const placeholderValues = Object.fromEntries(values.map((v, i) => [`body.${i + 1}`, v]));
	const result = await runAction(sandbox, {
		resource: 'template',
		operation: 'render',
		templateId: locator(t.id),
		placeholderValues: mapping(placeholderValues),
	} as INodeParameters);
	expect(result.error).toBeUndefined();
	const out = result.items[0].json;
	expect(out.body).toBe(expectedBody(t, values));
	expect(out.template).toEqual({ id: t.id, name: t.name, language: t.language, status: 'APPROVED' });
	expect(out.buttons).toEqual(t.components.find((c) => c.type === 'BUTTONS')?.buttons ?? []);
	expect(sandbox.messages).toHaveLength(0);
});

test('Template → Render refuses a pending template and a missing value, naming it', async () => {
	const pending = seeded('PENDING', 1);
	const refused = await runAction(sandbox, {
		resource: 'template',
		operation: 'render',
		templateId: locator(pending.id),
		placeholderValues: mapping({ 'body.1': 'x', 'body.2': 'y', 'body.3': 'z' }),
	} as INodeParameters);
	expect(refused.error?.message).toContain(`"${pending.name}" is PENDING`);

	const t = seeded('APPROVED', 2);
	const missing = await runAction(sandbox, {
		resource: 'template',
		operation: 'render',
		templateId: locator(t.id),
		placeholderValues: mapping({ 'body.1': 'Ann' }),
	} as INodeParameters);
	expect(missing.error?.message).toContain('no value for Body {{2}}');
});

test('Send Text From Template sends the rendered body, per item, reading the template once', async () => {
	const t = seeded('APPROVED', 3);
	const result = await runAction(
		sandbox,
		{
			resource: 'message',
			operation: 'sendText',
			phone: '={{ $json.phone }}',
			textSource: 'template',
			templateId: locator(t.id),
			placeholderValues: mapping({ 'body.1': '={{ $json.name }}', 'body.2': '={{ $json.order }}', 'body.3': 'Friday' }),
		} as INodeParameters,
		{
			input: [
				{ json: { phone: '+4915100000001', name: 'Ann', order: '#1' } },
				{ json: { phone: '+4915100000002', name: 'Bo', order: '#2' } },
			],
		},
	);
	expect(result.error).toBeUndefined();
	expect(sandbox.messages.map((m) => m.body)).toEqual([
		expectedBody(t, ['Ann', '#1', 'Friday']),
		expectedBody(t, ['Bo', '#2', 'Friday']),
	]);
	expect(result.items[0].json.template).toEqual({ id: t.id, name: t.name });
	// The text that went out, since the service's answer does not repeat it.
	expect(result.items.map((item) => item.json.body)).toEqual(sandbox.messages.map((m) => m.body));
	expect(sandbox.requests.filter((r) => r.path === `/templates/${t.id}`)).toHaveLength(1);
});

test('Send Text From Template refuses an extra value before sending anything', async () => {
	const t = seeded('APPROVED', 1);
	const count = (t.components[1].text!.match(/\{\{\d+\}\}/g) ?? []).length;
	const values = Object.fromEntries(Array.from({ length: count + 1 }, (_, i) => [`body.${i + 1}`, 'v']));
	const result = await runAction(sandbox, {
		resource: 'message',
		operation: 'sendText',
		phone: '+4915100000001',
		textSource: 'template',
		templateId: locator(t.id),
		placeholderValues: mapping(values),
	} as INodeParameters);
	expect(result.error?.message).toContain(`has no placeholder Body {{${count + 1}}}`);
	expect(sandbox.messages).toHaveLength(0);
});
