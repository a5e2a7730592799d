import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

import type { RefusalReason } from './refusals';

/** Selects every event, including names the service adds later. */
export const ALL_EVENTS = '*';

export const MESSAGE_STATUS_EVENT = 'message.status.updated';

/** The event types of the spec's Events part. */
export const EVENT_TYPE_OPTIONS: INodePropertyOptions[] = [
	// The editor shows an option's name on the chip of a selected value, so the name must read well.
	{ name: 'All Events', value: ALL_EVENTS, description: 'Any event, including event types added later' },
	{ name: 'Contact Created', value: 'contact.created', description: 'A new contact is created' },
	{ name: 'Contact Updated', value: 'contact.updated', description: 'Contact information changes' },
	{ name: 'Conversation Created', value: 'conversation.created', description: 'A new conversation starts' },
	{ name: 'Conversation Updated', value: 'conversation.updated', description: 'Conversation details change' },
	{ name: 'Message Received', value: 'message.received', description: 'A new message is received' },
	{
		name: 'Message Status Updated',
		value: MESSAGE_STATUS_EVENT,
		description: 'A sent message is delivered or read',
	},
	{ name: 'Order Created', value: 'order.created', description: 'A new order is created' },
	{ name: 'Order Status Updated', value: 'order.status.updated', description: 'An order changes status' },
];

export const MESSAGE_STATUS_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Delivered', value: 'delivered' },
	{ name: 'Read', value: 'read' },
	{ name: 'Sent', value: 'sent' },
];

export interface EventEnvelope {
	event: string;
	timestamp: string;
	data: IDataObject;
}

function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as a JSON object, or undefined when it is not JSON or not an object. A leading BOM is ignored, as n8n does. */
export function parseJsonObject(rawBody: Buffer): IDataObject | undefined {
	let text = rawBody.toString('utf8');
	if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
	try {
		const value: unknown = JSON.parse(text);
		return isPlainObject(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

/** The challenge of a set-up handshake (`{"type":"verification","challenge":"…"}`), if this is one. */
export function verificationChallenge(body: IDataObject | undefined): string | undefined {
	if (body?.type !== 'verification' || typeof body.challenge !== 'string') return undefined;
	return body.challenge;
}

/** What is wrong with an event envelope, or undefined when it has `event`, `timestamp` and `data`. */
export function envelopeProblem(body: IDataObject | undefined): RefusalReason | undefined {
	if (body === undefined) return 'body is not a JSON object';
	if (typeof body.event !== 'string' || body.event === '') return 'missing event field';
	if (typeof body.timestamp !== 'string' || body.timestamp === '') return 'missing timestamp field';
	if (!isPlainObject(body.data)) return 'missing data field';
	return undefined;
}

/**
 * The service's test event (Webhook → Send Test Event). The spec does not show its payload; this is the
 * one place that decides how it is recognised: a `data.test` of `true` (docs/assumptions.md).
 */
export function testEventMark(data: IDataObject): IDataObject {
	if (data.test !== true) return {};
	return {
		testEvent: true,
		note: 'This is the service’s test event (Webhook → Send Test Event): the webhook URL, the signature and the credential’s Webhook Secret all work.',
	};
}

/** What a trigger selects: its Events and the message statuses it ignores. */
export interface EventFilter {
	events: string[];
	ignoreStatuses: string[];
}

/**
 * Whether a trigger with this filter takes the event. Event names not in the list (added by the service
 * later) are taken when "*" is selected and ignored otherwise. The sharing trigger applies the same rule
 * to the triggers that receive through it.
 */
export function selects(filter: EventFilter, event: string, data: IDataObject): boolean {
	if (!filter.events.includes(ALL_EVENTS) && !filter.events.includes(event)) return false;
	return !(event === MESSAGE_STATUS_EVENT && filter.ignoreStatuses.includes(String(data.status)));
}
