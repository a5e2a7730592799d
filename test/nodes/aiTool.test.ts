/**
 * The node as an AI agent's tool (n8n runs its `…Tool` variant): a failing item becomes the tool's answer,
 * with the message a user would see, instead of an exception. AI Agent 1.x-2.2 hands the model an empty
 * result for a tool that throws (LangChain's AgentExecutor), so the model could not correct its call.
 * The real agent end to end is in test/e2e/checks/agent.ts.
 */
import { NodeHelpers, type INode, type INodeParameters, type INodeProperties } from 'n8n-workflow';

import { runAction, toolVariant } from '../helpers/actionNode';
import { allOperations, samples } from '../helpers/operationSamples';
import { BusinessMessaging } from '../../nodes/BusinessMessaging/BusinessMessaging.node';
import { operationsByResource } from '../../nodes/BusinessMessaging/actions/router';
import { type Sandbox } from '../../tools/sandbox';
import { useSandbox } from '../helpers/useSandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

const CUSTOMER = '+4915112345678';
const OTHER = '+15550009999';
const sendText = (phone: string, allowedRecipients?: string) => ({
	resource: 'message',
	operation: 'sendText',
	phone,
	text: 'Your order has shipped',
	...(allowedRecipients !== undefined && { allowedRecipients }),
});
const badPhone = sendText('12', CUSTOMER);

describe('as an AI agent’s tool', () => {
	it('answers an invalid phone with the field’s error, sending nothing', async () => {
		const result = await runAction(sandbox, badPhone, { asAiTool: true });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json.error).toMatch(/^Recipient Phone: /);
		expect(result.items[0].json.description).toEqual(expect.any(String));
		expect(sandbox.requests).toHaveLength(0);
	});

	it('answers a service error with the service’s own message and code', async () => {
		const result = await runAction(
			sandbox,
			{ resource: 'template', operation: 'get', templateId: { __rl: true, mode: 'id', value: '999999' } },
			{ asAiTool: true },
		);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ error: 'The service answered 404: Template not found.', httpCode: '404' });
	});

	it('still fails the node, as before, when it is not a tool', async () => {
		const result = await runAction(sandbox, badPhone);
		expect(result.error?.message).toMatch(/^Recipient Phone: /);
		expect(result.items).toHaveLength(0);
	});
});

describe('as an AI agent’s tool: Allowed Recipients', () => {
	it('refuses a number outside Allowed Recipients with a message the model reads, sending nothing', async () => {
		const result = await runAction(sandbox, sendText(OTHER, CUSTOMER), { asAiTool: true });
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.error)).toEqual([`Refused: ${OTHER} is not an allowed recipient of this tool`]);
		expect(result.items[0].json.description).toMatch(/Allowed Recipients/);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('sends to an allowed number written another way (spaces, no +), once', async () => {
		const result = await runAction(sandbox, sendText(CUSTOMER, '49 151 1234 5678, +1 555 000 1111'), { asAiTool: true });
		expect(result.items[0].json.error).toBeUndefined();
		expect(sandbox.messages.map((m) => m.phone)).toEqual([CUSTOMER]);
	});

	it('allows none when empty, and says where to set it', async () => {
		const result = await runAction(sandbox, sendText(CUSTOMER), { asAiTool: true });
		expect(result.items[0].json).toMatchObject({ error: `Refused: ${CUSTOMER} is not an allowed recipient of this tool` });
		expect(result.items[0].json.description).toMatch(/Allowed Recipients is empty/);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('allows any number with *', async () => {
		await runAction(sandbox, sendText(OTHER, '*'), { asAiTool: true });
		expect(sandbox.messages.map((m) => m.phone)).toEqual([OTHER]);
	});

	it('takes the allowed number per item from an expression: of items sent at once, only the matching ones go out', async () => {
		const input = [CUSTOMER, OTHER, '+4915199999999', CUSTOMER].map((to, i) => ({
			json: { conversationPhone: i === 2 ? '+4915199999999' : CUSTOMER, to },
		}));
		const result = await runAction(
			sandbox,
			{ ...sendText('={{ $json.to }}', '={{ $json.conversationPhone }}') },
			{ asAiTool: true, input },
		);
		expect(result.items.map((item) => (item.json.error ? 'refused' : 'sent'))).toEqual(['sent', 'refused', 'sent', 'sent']);
		expect(sandbox.messages.map((m) => m.phone).sort()).toEqual([CUSTOMER, CUSTOMER, '+4915199999999'].sort());
	});

	it('applies to Send Media as well', async () => {
		const result = await runAction(
			sandbox,
			{ resource: 'message', operation: 'sendMedia', phone: OTHER, mediaType: 'image', allowedRecipients: CUSTOMER },
			{ asAiTool: true, input: [{ json: {}, binary: { data: { data: Buffer.from('png'), mimeType: 'image/png', fileName: 'a.png' } } }] },
		);
		expect(result.items[0].json.error).toBe(`Refused: ${OTHER} is not an allowed recipient of this tool`);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('is not part of the plain node: its sends are not limited', async () => {
		const result = await runAction(sandbox, sendText(OTHER, CUSTOMER));
		expect(result.error).toBeUndefined();
		expect(sandbox.messages.map((m) => m.phone)).toEqual([OTHER]);
	});
});

/** The operations of the router's table that wait for a person: never an agent's. */
const waiting = allOperations.filter(([, operation]) => operation.kind === 'sendAndWait').map(([name]) => name);

describe('as an AI agent’s tool: the operations it may do', () => {
	it.each(waiting)('refuses %s (the agent would wait on a person), sending nothing', async (name) => {
		const [resource, operation] = name.split('.');
		const result = await runAction(sandbox, { resource, operation, ...samples[name].parameters }, { asAiTool: true });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ error: 'Refused: not available to an AI agent', refused: true });
		expect(sandbox.requests).toHaveLength(0);
	});
	it('cannot be pointed at another operation by the model: n8n does not evaluate an expression in Operation', async () => {
		const result = await runAction(
			sandbox,
			{ resource: 'order', operation: "={{ $fromAI('operation', 'update', 'string') }}", orderId: '6', updateFields: { status: 'accepted' } },
			{ asAiTool: true },
		);
		expect(result.error?.message).toBe('The operation (none set) of "order" is not supported');
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('as an AI agent’s tool: what the editor offers', () => {
	const shown = (type: BusinessMessaging, parameters: INodeParameters) => {
		const { description } = type;
		const node = { name: 'n', type: description.name, typeVersion: 1, parameters } as unknown as INode;
		const values = NodeHelpers.getNodeParameters(description.properties, parameters, true, false, node, description) ?? {};
		const visible = description.properties.filter((p: INodeProperties) =>
			NodeHelpers.displayParameter(values, p, node, description),
		);
		return { values, visible };
	};
	const operations = (type: BusinessMessaging, resource = 'message') =>
		shown(type, { resource })
			.visible.filter((p) => p.name === 'operation')
			.flatMap((p) => (p.options as Array<{ value: string }>).map((o) => o.value));

	it('offers every operation of the router’s table on the plain node, all but those that wait on the tool', () => {
		for (const [resource, byName] of Object.entries(operationsByResource)) {
			const names = Object.keys(byName).sort();
			expect(operations(new BusinessMessaging(), resource).sort()).toEqual(names);
			expect(operations(toolVariant(), resource).sort()).toEqual(names.filter((name) => !waiting.includes(`${resource}.${name}`)));
		}
		expect(waiting.length).toBeGreaterThan(0);
	});

	it('has the model fill Recipient Phone and Text by default on the tool, with hints; the plain node starts empty', () => {
		const tool = shown(toolVariant(), { resource: 'message', operation: 'sendText' });
		expect(tool.values.phone).toMatch(/^=\{\{ \$fromAI\('phone', '[^']*international format[^']*', 'string'\) \}\}$/);
		expect(tool.values.text).toMatch(/\$fromAI\('text', /);
		expect(tool.visible.map((p) => p.name)).toContain('allowedRecipients');
		const plain = shown(new BusinessMessaging(), { resource: 'message', operation: 'sendText' });
		expect([plain.values.phone, plain.values.text]).toEqual(['', '']);
		expect(plain.visible.map((p) => p.name)).not.toContain('allowedRecipients');
	});

	it('gives every operation offered to an agent its own automatic tool description, naming what it acts on', () => {
		const tool = toolVariant();
		const resources = (tool.description.properties.find((p) => p.name === 'resource')?.options as Array<{ value: string }>).map((o) => o.value);
		const offered = resources.flatMap((resource) => operations(tool, resource).map((operation) => ({ resource, operation })));
		const descriptions = offered.map((parameters) =>
			NodeHelpers.getToolDescriptionForNode({ parameters: { ...parameters, descriptionType: 'auto' } } as unknown as INode, tool),
		);
		expect(offered.length).toBeGreaterThanOrEqual(9);
		expect(new Set(descriptions).size).toBe(descriptions.length);
		for (const [i, text] of descriptions.entries()) {
			expect(text).toMatch(new RegExp(`${{ message: 'message|media', order: 'order', template: 'template', contact: 'contact', webhook: 'webhook' }[offered[i].resource]}.* in Business Messaging$`, 'i'));
		}
	});
});
