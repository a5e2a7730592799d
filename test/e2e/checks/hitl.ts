/**
 * The human-review tool n8n 2.41 generates from this node (`businessMessagingHitlTool`: the node has
 * Send and Wait and a webhook, see n8n/dist/tool-generation/hitl-tools.js): an AI Agent 3.1 with the
 * scripted model calls Send Text, gated by Business Messaging's human review. The reviewer gets the
 * question by text message with the answer link; Approve lets the send go out, Decline stops it and
 * the model reads that the call was rejected.
 */
import type { Scenario, ScriptedModel } from '../lib/model';
import { type N8n, n8nId } from '../../../tools/n8n/n8n';
import { waitFor } from '../../../tools/n8n/proc';
import { assert, assertEqual, type Check } from '../lib/report';
import type { Stack } from '../../../tools/n8n/stack';
import { chain, node, webhookTrigger, type Workflow } from '../../../tools/n8n/workflow';
import { ACTION_TYPE, CREDENTIAL_TYPE, type CredentialRef, OPENAI_CREDENTIAL_TYPE, TOOL_TYPE } from '../../../tools/n8n/workflows';
import { answer, execution, finished } from './sendAndWait';
import { postToWebhook } from '../../../tools/n8n/webhookPost';

const REVIEWER = '+15550000401';
const CUSTOMER = '+15550000402';
const NAME = 'E2E: AI agent with Business Messaging human review';

const call = (text: string): Scenario => (results) =>
	results.length === 0
		? { tool: 'Send_Text', args: { toolParameters: { phone: CUSTOMER, text }, hitlParameters: {} } }
		: { answer: `Tool said: ${results[0]}` };

export const HITL_SCENARIOS: Record<string, Scenario> = {
	'hitl-approve': call('Your refund of 20 EUR is approved.'),
	'hitl-decline': call('Your refund of 9999 EUR is approved.'),
};

export function hitlWorkflow(credential: CredentialRef, openAi: CredentialRef): Workflow {
	const hook = webhookTrigger('e2e-hitl', 'Run', 'onReceived');
	const agent = node('AI Agent', '@n8n/n8n-nodes-langchain.agent', 3.1, {
		promptType: 'define',
		text: '={{ $json.body.prompt }}',
		options: {},
	});
	const model = node('OpenAI Chat Model', '@n8n/n8n-nodes-langchain.lmChatOpenAi', 1.2, {
		model: { __rl: true, mode: 'id', value: 'scripted-model' },
		options: {},
	}, { credentials: { [OPENAI_CREDENTIAL_TYPE]: openAi } });
	const review = node('Ask the Manager', `${ACTION_TYPE}HitlTool`, 1, {
		resource: 'message',
		operation: 'sendAndWait',
		phone: REVIEWER,
		// n8n's default message with the input as JSON (n8n's own `{{ $tool.parameters }}` prints [object Object]).
		message: '=The agent wants to run this tool: {{ $tool.name }}\n\nInput:\n{{ JSON.stringify($tool.parameters) }}',
		responseType: 'approval',
		approvalType: 'double',
	}, { credentials: { [CREDENTIAL_TYPE]: credential } });
	const send = node('Send Text', TOOL_TYPE, 1, { resource: 'message', operation: 'sendText', allowedRecipients: CUSTOMER }, {
		credentials: { [CREDENTIAL_TYPE]: credential },
	});
	const wf = chain('e2eHitl', NAME, [hook, agent]);
	wf.id = n8nId('e2eHitl');
	wf.nodes.push(model, review, send);
	wf.connections[model.name] = { ai_languageModel: [[{ node: agent.name, type: 'ai_languageModel', index: 0 }]] };
	wf.connections[review.name] = { ai_tool: [[{ node: agent.name, type: 'ai_tool', index: 0 }]] };
	wf.connections[send.name] = { ai_tool: [[{ node: review.name, type: 'ai_tool', index: 0 }]] };
	return wf;
}

async function start(stack: Stack, workflow: Workflow, scenario: string): Promise<{ link: string; executionId: string; question: string }> {
	const { n8n, sandbox } = stack;
	const since = await sandbox.mark();
	const { status } = await postToWebhook(n8n.baseUrl, 'e2e-hitl', { prompt: `scenario: ${scenario}. Tell the customer.` });
	assertEqual(status, 200, `starting ${workflow.name}`);
	// The first agent run loads LangChain: give it time on a busy machine.
	const sent = await waitFor(
		'the review question to the reviewer',
		async () => (await sandbox.requests(since)).find((r) => r.path.endsWith('/w/message/text') && (r.json as { phone?: string })?.phone === REVIEWER),
		180_000,
		500,
	);
	const body = String((sent.json as { body: string }).body);
	const link = /(http\S+)$/.exec(body)?.[1];
	assert(link, `no link in the review question: ${body}`);
	const executionId = /\/webhook-waiting\/([^/]+)\//.exec(link)?.[1];
	assert(executionId, `no execution in ${link}`);
	// The message goes out just before n8n saves the execution as waiting; until then the link answers 409.
	await waitFor(`execution ${executionId} to wait`, async () => (await execution(n8n, workflow.id, executionId))?.status === 'waiting' || undefined, 60_000, 300);
	return { link, executionId, question: body };
}

async function sentTo(stack: Stack, phone: string, since: number): Promise<string[]> {
	return (await stack.sandbox.requests(since))
		.filter((r) => r.path.endsWith('/w/message/text') && (r.json as { phone?: string })?.phone === phone)
		.map((r) => String((r.json as { body: string }).body));
}

export function hitlChecks(stack: Stack, model: ScriptedModel): Check[] {
	const { n8n } = stack;
	const workflow = () => stack.workflows.find((w) => w.name === NAME)!;
	const review = async (scenario: string, choice: 'approve' | 'decline') => {
		const since = await stack.sandbox.mark();
		const asked = await start(stack, workflow(), scenario);
		assert(asked.question.includes('Send_Text') && asked.question.includes(CUSTOMER), `the review question does not say what the agent wants: ${asked.question}`);
		assertEqual(await sentTo(stack, CUSTOMER, since), [], 'messages to the customer before the review');
		const page = await (await fetch(asked.link)).text();
		assert(page.includes('Send_Text'), 'the answer page does not show what the agent wants');
		const res = await answer(asked.link, choice);
		assertEqual(res.status, 200, `the reviewer's answer (${(await res.text()).slice(0, 200)})`);
		const done = await finished(n8n as N8n, { workflow: workflow(), executionId: asked.executionId, link: asked.link, phone: REVIEWER });
		assertEqual([done.status, done.data?.resultData.error?.message], ['success', undefined], `execution ${asked.executionId}`);
		return { since, results: model.toolResults(scenario) };
	};
	return [
		{
			name: 'human review (businessMessagingHitlTool, AI Agent 3.1): the reviewer gets the question by text; Approve lets the gated Send Text go out once',
			timeoutMs: 300_000,
			fn: async () => {
				const { since, results } = await review('hitl-approve', 'approve');
				assertEqual(await sentTo(stack, CUSTOMER, since), ['Your refund of 20 EUR is approved.'], 'messages to the customer');
				assert(results.length === 1 && /message_id|wamid/.test(results[0]), `the model got: ${JSON.stringify(results)}`);
			},
		},
		{
			name: 'human review (businessMessagingHitlTool, AI Agent 3.1): Decline stops the gated Send Text and the model reads that it was rejected',
			timeoutMs: 300_000,
			fn: async () => {
				const { since, results } = await review('hitl-decline', 'decline');
				assertEqual(await sentTo(stack, CUSTOMER, since), [], 'messages to the customer');
				assert(results.length === 1 && /rejected/i.test(results[0]), `the model got: ${JSON.stringify(results)}`);
			},
		},
	];
}
