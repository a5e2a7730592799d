import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_PARALLEL_REQUESTS, MAX_PARALLEL_REQUESTS } from '../helpers/parallel';
import { ORDER_STATUSES } from '../helpers/validation';
import { DEFAULT_TIMEOUT_SECONDS } from '../transport';

export const senderField: INodeProperties = {
	displayName: 'Sender (Phone Number ID)',
	name: 'phoneNumberId',
	type: 'string',
	default: '',
	placeholder: 'Leave empty to use the credential’s default sender',
	description: 'The sender number’s ID (phone_number_id). Empty uses the credential’s Default Sender.',
};

export function listFields(noun: string): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
			hint: `Pages through the ${noun} 100 at a time`,
		},
	];
}

/** Settings every operation has; the transport reads them. */
export const optionsField: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 0.1 },
			default: DEFAULT_TIMEOUT_SECONDS,
			description:
				'How long to wait for the service’s answer. A message send that times out is not repeated, because the service may have sent it.',
		},
	],
};

/** Options of the message sends: the common ones plus parallel sending. */
export const sendOptionsField: INodeProperties = {
	...optionsField,
	options: [
		{
			displayName: 'Parallel Requests',
			name: 'parallelRequests',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_PARALLEL_REQUESTS },
			default: DEFAULT_PARALLEL_REQUESTS,
			description:
				'How many messages to send at the same time. Messages to the same recipient still go out one after another, in item order, and all slow down together when the service asks to (429).',
		},
		{
			displayName: 'Max Messages per Second',
			name: 'maxMessagesPerSecond',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 10,
			description:
				'Spreads the sends of this node evenly: at most this many requests start per second, however many run at once. 0 means no limit.',
		},
		{
			displayName: 'Skip Repeats Within (Minutes)',
			name: 'skipRepeatsWithin',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 1440,
			description:
				'Do not send a message whose Repeat Key was already sent by this node within this many minutes, also in earlier executions. 0 turns it off.',
		},
		{
			displayName: 'Repeat Key',
			name: 'repeatKey',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.order_id }}-shipped',
			description:
				'What makes two messages the same for Skip Repeats Within. Empty: the recipient and the message (text, or media type, caption and file).',
		},
		...(optionsField.options as INodeProperties[]),
	],
};

export const recipientField: INodeProperties = {
	displayName: 'Recipient Phone',
	name: 'phone',
	type: 'string',
	required: true,
	default: '',
	placeholder: '+4915112345678',
	description: 'The customer’s number in international format',
};

/** What an agent's model is told to put in Recipient Phone (the tool variant's default `$fromAI`). */
export const RECIPIENT_HINT = 'The customer’s phone number in international format, for example +4915112345678';

export const orderStatusOptions = ORDER_STATUSES.map((status) => ({
	name: status.charAt(0).toUpperCase() + status.slice(1),
	value: status,
}));

/** The template picker: a searchable list, or an ID. */
export const templateField: INodeProperties = {
	displayName: 'Template',
	name: 'templateId',
	type: 'resourceLocator',
	required: true,
	default: { mode: 'list', value: '' },
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchTemplates', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 42',
			validation: [
				{
					type: 'regex',
					properties: { regex: '^\\s*[1-9][0-9]*\\s*$', errorMessage: 'Not a template ID (a whole number)' },
				},
			],
		},
	],
};

/** A value for each {{n}} of the chosen template, per component; the fields come from the template itself. */
export const placeholderValuesField: INodeProperties = {
	displayName: 'Placeholder Values',
	name: 'placeholderValues',
	type: 'resourceMapper',
	noDataExpression: true,
	default: { mappingMode: 'defineBelow', value: null },
	required: true,
	typeOptions: {
		loadOptionsDependsOn: ['templateId.value'],
		resourceMapper: {
			resourceMapperMethod: 'getTemplatePlaceholders',
			mode: 'add',
			valuesLabel: 'Values',
			fieldWords: { singular: 'placeholder', plural: 'placeholders' },
			addAllFields: true,
			multiKeyMatch: false,
			supportAutoMap: false,
		},
	},
	description: 'One value for each {{n}} of the template, listed per component (Header, Body, Button)',
};

/**
 * Message: the text typed in, or an approved template's body (Template, then its Placeholder Values). Send
 * Text and Ask and Wait for Chat Reply; each adds its own Text field, shown for `textSource` `text`.
 */
export function messageSourceFields(says: { text: string; template: string }): INodeProperties[] {
	const forTemplate = { show: { textSource: ['template'] } };
	return [
		{
			displayName: 'Message',
			name: 'textSource',
			type: 'options',
			default: 'text',
			options: [
				{ name: 'Text', value: 'text', description: says.text },
				{ name: 'From Template', value: 'template', description: says.template },
			],
		},
		{ ...templateField, displayOptions: forTemplate },
		{ ...placeholderValuesField, displayOptions: forTemplate },
	];
}
