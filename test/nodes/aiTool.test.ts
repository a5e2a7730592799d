/**
 * The node as an AI agent's tool (n8n runs its `…Tool` variant): a failing item becomes the tool's answer,
 * with the message a user would see, instead of an exception. AI Agent 1.x-2.2 hands the model an empty
 * result for a tool that throws (LangChain's AgentExecutor), so the model could not correct its call.
 * The real agent end to end is in test/e2e/checks/agent.ts.
 */
import { runAction } from '../helpers/actionNode';
import { type Sandbox } from '../sandbox';
import { useSandbox } from '../helpers/useSandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

const badPhone = { resource: 'message', operation: 'sendText', phone: '12', text: 'Your order has shipped' };

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
