import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RunState } from './runState';

/**
 * What an AI agent may do with this node as its tool. An agent does what the text it reads asks, and
 * a customer writes that text, so the limits are the workflow author's, checked here before any
 * request, and a breach answers the model with a refusal it can read.
 */

/** n8n names an agent's tool variant `<node>Tool`; its human-review variant (`…HitlTool`) is not one. */
export function runsAsAgentTool(ctx: IExecuteFunctions): boolean {
	const type = ctx.getNode().type;
	return type.endsWith('Tool') && !type.endsWith('HitlTool');
}

/** Shown only on the tool variant (n8n's `@tool` display option). */
const ON_TOOL = { '@tool': [true] };
const OFF_TOOL = { '@tool': [false] };

/** Operations never offered to an agent, with why (the refusal the model reads). */
const NOT_FOR_AGENTS: Record<string, string> = {
	'message.sendAndWait':
		'Send and Wait for Response pauses the whole run until a person answers, so an agent’s tool call would never return',
	'message.askAndWaitForReply':
		'Ask and Wait for Chat Reply pauses the whole run until the customer replies, so an agent’s tool call would never return',
};

/**
 * A resource's Operation field twice when some of its operations are not for agents: all of them on the
 * plain node, the others on the tool variant.
 */
export function operationsOffered(resource: string, property: INodeProperties): INodeProperties[] {
	const options = (property.options ?? []) as Array<{ value: string }>;
	const offered = options.filter((option) => !NOT_FOR_AGENTS[`${resource}.${option.value}`]);
	if (offered.length === options.length) return [property];
	return [
		{ ...property, displayOptions: shownWhen(property, OFF_TOOL) },
		{ ...property, options: offered as INodeProperties['options'], displayOptions: shownWhen(property, ON_TOOL) },
	];
}

/**
 * A tool does the one operation its author picked (n8n strips expressions from Resource and Operation,
 * which are `noDataExpression`, so a `$fromAI` there cannot choose one): refused when it is one of
 * those above. Undefined when allowed.
 */
export function operationRefusal(resource: string, operation: string): IDataObject | undefined {
	const why = NOT_FOR_AGENTS[`${resource}.${operation}`];
	return why ? { error: 'Refused: not available to an AI agent', description: `${why}.`, refused: true } : undefined;
}

const ANY_RECIPIENT = '*';

/** The tool variant's limit on message sends. */
export const allowedRecipientsField: INodeProperties = {
	displayName: 'Allowed Recipients',
	name: 'allowedRecipients',
	type: 'string',
	default: '',
	placeholder: "e.g. {{ $('Business Messaging Trigger').item.json.data.from }}",
	description:
		'The only numbers the agent may send to, separated by commas: usually an expression for the number of the conversation that started the run. * allows any number. Empty allows none.',
	displayOptions: { show: ON_TOOL },
};

/**
 * Refuses a send to a number outside Allowed Recipients. `phone` is the recipient the operation declared
 * (its `recipientOf`, already checked), whatever its field is called.
 */
export function checkAllowedRecipient(run: RunState, itemIndex: number, phone: string): void {
	const ctx = run.ctx;
	const allowed = ctx.getNodeParameter('allowedRecipients', itemIndex, '') as unknown;
	const entries = (Array.isArray(allowed) ? allowed.map(String) : String(allowed ?? '').split(/[,;\n]/))
		.map((entry) => entry.trim())
		.filter(Boolean);
	if (entries.includes(ANY_RECIPIENT)) return;
	if (entries.some((entry) => digitsOf(entry) === digitsOf(phone))) return;
	throw new NodeOperationError(ctx.getNode(), `Refused: ${phone} is not an allowed recipient of this tool`, {
		itemIndex,
		description:
			entries.length === 0
				? 'Allowed Recipients is empty, so this tool may send to no one. Set it in the node (an expression for the conversation’s number, or * for any).'
				: 'This tool may only send to the numbers in its Allowed Recipients field, set by the workflow’s author. Do not try other numbers.',
	});
}

function digitsOf(phone: string): string {
	return phone.replace(/\D/g, '');
}

/**
 * The same field twice: as the user knows it on the plain node, and on the tool variant filled by the
 * model by default, with a `$fromAI` hint saying what the model should put there.
 */
export function filledByModel(property: INodeProperties, hint: string): INodeProperties[] {
	const fromAi = `={{ $fromAI('${property.name}', '${hint.replace(/'/g, '’')}', 'string') }}`;
	return [
		{ ...property, displayOptions: shownWhen(property, OFF_TOOL) },
		{
			...property,
			default: property.type === 'resourceLocator' ? { __rl: true, mode: 'id', value: fromAi } : fromAi,
			displayOptions: shownWhen(property, ON_TOOL),
		},
	];
}

function shownWhen(property: INodeProperties, variant: typeof ON_TOOL): INodeProperties['displayOptions'] {
	return { ...property.displayOptions, show: { ...property.displayOptions?.show, ...variant } };
}
