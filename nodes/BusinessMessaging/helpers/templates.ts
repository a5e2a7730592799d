import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest } from '../transport';
import type { RunState } from './runState';
import { checkPositiveInteger } from './validation';

/** `{{n}}`, with spaces allowed inside the braces; a brace right before or after is left as text. */
const PLACEHOLDER = /\{\{\s*(\d+)\s*\}\}/g;

/** The distinct placeholder numbers in a text, ascending. */
export function placeholdersIn(text: string): number[] {
	return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => Number(match[1])))].sort((a, b) => a - b);
}

/** One text of a template that can hold placeholders: the header, the body, or one button. */
interface TemplateText {
	/** Prefix of its values' keys: `header`, `body`, `button1`, … */
	part: string;
	label: string;
	text: string;
}

function componentsOf(template: IDataObject): IDataObject[] {
	return Array.isArray(template.components) ? (template.components as IDataObject[]) : [];
}

function textsOf(template: IDataObject): TemplateText[] {
	const texts: TemplateText[] = [];
	for (const component of componentsOf(template)) {
		const type = String(component.type ?? '').toUpperCase();
		if (type === 'HEADER' && typeof component.text === 'string') texts.push({ part: 'header', label: 'Header', text: component.text });
		if (type === 'BODY' && typeof component.text === 'string') texts.push({ part: 'body', label: 'Body', text: component.text });
		if (type === 'BUTTONS' && Array.isArray(component.buttons)) {
			(component.buttons as IDataObject[]).forEach((button, index) => {
				if (typeof button.text === 'string') {
					texts.push({ part: `button${index + 1}`, label: `Button ${index + 1}`, text: button.text });
				}
			});
		}
	}
	return texts;
}

/**
 * A value a template needs. `label` ("Body {{2}}") is what the editor shows and the key of its value in
 * Placeholder Values, so n8n's own messages ("Placeholder "Body {{2}}" is required") name the field as
 * the user sees it. `key` (`body.2`) was the value's key before; values saved under it still count.
 */
export interface Placeholder {
	key: string;
	label: string;
	/** The template's sample value for it (`example.body_text`), when it has one. */
	sample?: string;
}

/** The body's sample values: `example.body_text[0][n - 1]` is the sample for {{n}}. */
function samplesOf(template: IDataObject): unknown[] {
	const body = componentsOf(template).find((c) => String(c.type ?? '').toUpperCase() === 'BODY');
	const rows = (body?.example as IDataObject | undefined)?.body_text;
	return Array.isArray(rows) && Array.isArray(rows[0]) ? (rows[0] as unknown[]) : [];
}

/** Every value the template needs, per component in the template's order, each number once. */
export function placeholdersOf(template: IDataObject): Placeholder[] {
	const samples = samplesOf(template);
	return textsOf(template).flatMap(({ part, label, text }) =>
		placeholdersIn(text).map((n) => {
			const sample = part === 'body' ? samples[n - 1] : undefined;
			return {
				key: `${part}.${n}`,
				label: `${label} {{${n}}}`,
				...(typeof sample === 'string' && sample.trim() !== '' ? { sample } : {}),
			};
		}),
	);
}

/** The label of an old-style key (`body.5` -> `Body {{5}}`), else the key as given. */
function labelOfKey(key: string): string {
	const match = /^(header|body|button(\d+))\.(\d+)$/.exec(key);
	if (!match) return key;
	const part = match[2] ? `Button ${match[2]}` : match[1] === 'header' ? 'Header' : 'Body';
	return `${part} {{${match[3]}}}`;
}

/**
 * Adds how many distinct {{n}} placeholders a template has, per component and in all, so a user sees
 * how many values a send with this template needs.
 */
export function withPlaceholderCounts(template: IDataObject): IDataObject {
	const byComponent: IDataObject = {};
	let total = 0;
	for (const component of componentsOf(template)) {
		const text = typeof component.text === 'string' ? component.text : '';
		const count = placeholdersIn(text).length;
		if (count > 0) byComponent[String(component.type ?? 'UNKNOWN')] = count;
		total += count;
	}
	return { ...template, placeholderCount: total, placeholdersByComponent: byComponent };
}

export interface RenderedTemplate {
	header?: string;
	body: string;
	buttons: Array<{ type: string; text: string }>;
}

/** Why a template cannot be filled: the message names the placeholder or the status. */
export class TemplateError extends Error {}

/**
 * Fills every `{{n}}` of the header, body and buttons with the value keyed `<part>.<n>`, in one pass
 * (a value that itself contains `{{1}}` stays as written). Refuses a template that is not APPROVED,
 * and any missing, empty or extra value.
 */
export function renderTemplate(template: IDataObject, values: Record<string, unknown>): RenderedTemplate {
	const name = String(template.name ?? template.id ?? '');
	if (template.status !== 'APPROVED') {
		throw new TemplateError(
			`Template "${name}" is ${String(template.status ?? 'of unknown status')}: only APPROVED templates can be sent`,
		);
	}
	const needed = placeholdersOf(template);
	const known = new Set(needed.flatMap((p) => [p.key, p.label]));
	// By key: a value under the label the editor shows, or under the old key.
	const byKey = Object.fromEntries(needed.map((p) => [p.key, values[p.label] ?? values[p.key]]));
	const missing = needed.filter((p) => String(byKey[p.key] ?? '').trim() === '');
	if (missing.length > 0) {
		throw new TemplateError(`Placeholder values: no value for ${missing.map((p) => p.label).join(', ')} of template "${name}"`);
	}
	const extra = Object.keys(values).filter((key) => !known.has(key));
	if (extra.length > 0) {
		throw new TemplateError(`Placeholder values: template "${name}" has no placeholder ${extra.map(labelOfKey).join(', ')}`);
	}
	const fill = (part: string, text: string) =>
		text.replace(PLACEHOLDER, (_match, n: string) => String(byKey[`${part}.${Number(n)}`]));
	const rendered: RenderedTemplate = { body: '', buttons: [] };
	for (const { part, text } of textsOf(template)) {
		if (part === 'header') rendered.header = fill(part, text);
		else if (part === 'body') rendered.body = fill(part, text);
	}
	for (const component of componentsOf(template)) {
		if (String(component.type ?? '').toUpperCase() !== 'BUTTONS' || !Array.isArray(component.buttons)) continue;
		(component.buttons as IDataObject[]).forEach((button, index) => {
			rendered.buttons.push({ type: String(button.type ?? ''), text: fill(`button${index + 1}`, String(button.text ?? '')) });
		});
	}
	return rendered;
}

async function readTemplate(run: RunState<IExecuteFunctions | ILoadOptionsFunctions>, id: number, itemIndex?: number) {
	const response = await apiRequest(run, 'GET', `/templates/${id}`, { itemIndex });
	return (response.data as IDataObject) ?? response;
}

/** The template chosen in the Template field of an item. */
export async function getTemplate(run: RunState, itemIndex: number): Promise<IDataObject> {
	const id = checkPositiveInteger(
		run.ctx,
		{ label: 'Template', itemIndex },
		run.ctx.getNodeParameter('templateId', itemIndex, '', { extractValue: true }),
	);
	let template = run.templates.get(id);
	if (!template) {
		template = readTemplate(run, id, itemIndex);
		run.templates.set(id, template);
		template.catch(() => run.templates.delete(id));
	}
	return await template;
}

/** The chosen template filled with the item's Placeholder Values; refusals name the field. */
export async function renderItemTemplate(
	run: RunState,
	itemIndex: number,
): Promise<{ template: IDataObject; rendered: RenderedTemplate }> {
	const template = await getTemplate(run, itemIndex);
	const mapping = run.ctx.getNodeParameter('placeholderValues', itemIndex, {}) as { value?: IDataObject | null };
	const values = Object.fromEntries(
		Object.entries(mapping.value ?? {}).filter(([, value]) => value !== null && value !== undefined),
	);
	try {
		return { template, rendered: renderTemplate(template, values) };
	} catch (error) {
		throw new NodeOperationError(run.ctx.getNode(), (error as Error).message, { itemIndex });
	}
}

/** Fields of Placeholder Values for the template chosen in the panel. */
export async function placeholderFieldsOf(run: RunState<ILoadOptionsFunctions>): Promise<{
	fields: Placeholder[];
	notice?: string;
}> {
	const id = Number(run.ctx.getNodeParameter('templateId', undefined, { extractValue: true }));
	if (!Number.isInteger(id) || id < 1) return { fields: [], notice: 'Choose a template first' };
	const template = await readTemplate(run, id);
	if (template.status !== 'APPROVED') {
		return { fields: [], notice: `Template "${String(template.name)}" is ${String(template.status)}: only APPROVED templates can be sent` };
	}
	const fields = placeholdersOf(template);
	return { fields, notice: fields.length ? undefined : `Template "${String(template.name)}" has no placeholders` };
}
