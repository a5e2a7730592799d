/** Sending that does not embarrass: n8n's Retry and Retry On Fail do not send twice, repeats are skipped. */
import { makeTemplate, type Template } from '../../../tools/sandbox/seed';
import type { ExecutionSummary } from '../../../tools/n8n/n8n';
import { nodeOutput } from '../../../tools/n8n/n8n';
import { runThroughServer } from './actions';
import { ACTION_TYPE, CREDENTIAL_TYPE } from '../../../tools/n8n/workflows';
import { assert, assertEqual, type Check } from '../lib/report';
import { labelProblem } from '../../helpers/placeholderLabel';
import type { Stack } from '../../../tools/n8n/stack';
import type { Workflow } from '../../../tools/n8n/workflow';

export const RETRY_HOOK = 'e2e-bulk-retry';
export const RETRY_ON_FAIL_HOOK = 'e2e-bulk-retry-on-fail';
export const RETRY_AFTER_REQUEST_HOOK = 'e2e-bulk-after-request';
export const REPEATS_HOOK = 'e2e-bulk-repeats';
export const TEST_MODE_HOOK = 'e2e-bulk-test-mode';
export const TEST_MODE_CREDENTIAL = 'Business Messaging (sandbox, Test Mode)';
export const TEST_RECIPIENT = '+15559990000';
export const TEST_MODE_REPEATS_HOOK = 'e2e-bulk-test-mode-repeats';
export const DEFAULT_HOOK = 'e2e-bulk-default';
export const PACED_HOOK = 'e2e-bulk-paced';
export const PACED_RATE = 5;
export const TEMPLATE_RECIPIENT = '+15553330000';

/** An approved seeded template with three body placeholders (the sandbox serves the same seed). */
export const TEMPLATE: Template = (() => {
	for (let id = 1; id < 250; id++) {
		const t = makeTemplate(id);
		if (t.status === 'APPROVED' && (t.components.find((c) => c.type === 'BODY')?.text?.match(/\{\{\d+\}\}/g) ?? []).length === 3) return t;
	}
	throw new Error('no approved template with three placeholders in the seed');
})();
export const TEMPLATE_VALUES = { 'Body {{1}}': 'Ann', 'Body {{2}}': '#1042', 'Body {{3}}': 'Friday' };

interface Message {
	phone: string;
	text: string;
	order_id?: number;
}

function workflowOf(stack: Stack, hookPath: string): Workflow {
	const wf = stack.workflows.find((w) => w.name.includes(`(${hookPath})`));
	assert(wf, `no workflow for ${hookPath}`);
	return wf;
}

/** Posts the messages to the workflow's webhook and returns its new execution. */
async function runBulk(stack: Stack, hookPath: string, messages: Message[]): Promise<ExecutionSummary> {
	const wf = workflowOf(stack, hookPath);
	const before = (await stack.n8n.executions(wf.id)).length;
	const res = await fetch(`${stack.n8n.baseUrl}/webhook/${hookPath}`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ messages }),
	});
	await res.text();
	return (await stack.n8n.waitForExecutions(wf.id, before + 1))[0];
}

const bulk = (tag: string, count: number): Message[] =>
	Array.from({ length: count }, (_, i) => ({ phone: `+1555200000${i % 3}`, text: `${tag} ${i}` }));

/** How often the sandbox got each text that starts with `tag`. */
async function sentCounts(stack: Stack, tag: string): Promise<Map<string, number>> {
	const counts = new Map<string, number>();
	for (const m of await stack.sandbox.messages()) {
		if (m.body?.startsWith(`${tag} `)) counts.set(m.body, (counts.get(m.body) ?? 0) + 1);
	}
	return counts;
}

function assertEachOnce(counts: Map<string, number>, messages: Message[], what: string) {
	for (const m of messages) assertEqual(counts.get(m.text) ?? 0, 1, `${what}: times "${m.text}" was sent`);
}

/** Fourth send answers 500 (not repeated by the node), the others go through. */
async function failFourthSend(stack: Stack) {
	await stack.sandbox.fault({ delayMs: 0, count: 3, path: '/w/message/text' });
	await stack.sandbox.fault({ status: 500, count: 1, path: '/w/message/text' });
}

/** n8n's Retry of an execution over REST (as the editor's button), and the execution it started. */
async function retryOverRest(stack: Stack, hookPath: string, executionId: string, loadWorkflow: boolean): Promise<ExecutionSummary> {
	const retry = await stack.n8n.rest<{ data?: { id?: string } }>('POST', `/executions/${executionId}/retry`, { loadWorkflow });
	assertEqual(retry.status, 200, `POST /rest/executions/${executionId}/retry: ${JSON.stringify(retry.body).slice(0, 300)}`);
	const executions = await stack.n8n.waitForExecutions(workflowOf(stack, hookPath).id, 1);
	const retried = executions.find((e) => e.id === retry.body.data?.id);
	assert(retried, `no execution ${retry.body.data?.id} after the retry of ${executionId}`);
	assertEqual(retried.mode, 'retry', `mode of execution ${retried.id}`);
	return retried;
}

export function sendingChecks(stack: Stack): Check[] {
	const { n8n } = stack;
	const retryCase = (loadWorkflow: boolean): Check => ({
		name: `Retry ${loadWorkflow ? '“with currently saved workflow”' : '“with original workflow”'} (POST /rest/executions/:id/retry) sends only what did not go out, and the output names the skipped items`,
		fn: async () => {
			const tag = `retry-${loadWorkflow ? 'saved' : 'original'}`;
			const messages = bulk(tag, 6);
			await failFourthSend(stack);
			const failed = await runBulk(stack, RETRY_HOOK, messages);
			await stack.sandbox.clearFaults();
			assertEqual(failed.status, 'error', 'first execution status');
			const sentBefore = await sentCounts(stack, tag);
			assert(sentBefore.size > 0 && sentBefore.size < 6, `first attempt sent ${sentBefore.size} of 6`);

			const retry = await n8n.rest<{ data?: { id?: string } }>('POST', `/executions/${failed.id}/retry`, { loadWorkflow });
			assertEqual(retry.status, 200, `POST /rest/executions/${failed.id}/retry: ${JSON.stringify(retry.body).slice(0, 300)}`);
			const wf = workflowOf(stack, RETRY_HOOK);
			const executions = await n8n.waitForExecutions(wf.id, 1);
			const retried = executions.find((e) => e.mode === 'retry' && e.id === retry.body.data?.id) ?? executions[0];
			assertEqual(retried.mode, 'retry', 'mode of the newest execution');
			assertEqual(retried.status, 'success', 'retried execution status');
			assertEachOnce(await sentCounts(stack, tag), messages, 'after the retry');
			const output = nodeOutput(retried, 'Send Text');
			assertEqual(output.length, 6, 'items out of the retried node');
			output.forEach((item, i) => {
				const skipped = sentBefore.has(messages[i].text);
				assertEqual(item.skipped === true, skipped, `item ${i} skipped`);
				if (skipped) assert(String(item.skipReason).includes('Retry'), `item ${i} skipReason: ${String(item.skipReason)}`);
			});
		},
	});
	return [
		{
			name: 'Fast by default: without options the node has several sends in flight at once; nothing lost or doubled, order per recipient kept',
			fn: async () => {
				const messages = bulk('default', 12);
				const since = await stack.sandbox.mark();
				await stack.sandbox.fault({ delayMs: 300, count: 12, path: '/w/message/text' });
				const execution = await runBulk(stack, DEFAULT_HOOK, messages);
				await stack.sandbox.clearFaults();
				assertEqual(execution.status, 'success', 'execution status');
				assertEachOnce(await sentCounts(stack, 'default'), messages, 'default send');
				const got = (await stack.sandbox.messages()).filter((m) => m.body?.startsWith('default '));
				for (const phone of new Set(messages.map((m) => m.phone))) {
					assertEqual(
						got.filter((m) => m.phone === phone).map((m) => m.body),
						messages.filter((m) => m.phone === phone).map((m) => m.text),
						`order of ${phone}'s messages`,
					);
				}
				// In flight at once: requests that reached the sandbox before it had answered the first one.
				const firstAnswer = Math.min(...got.map((m) => Date.parse(m.created_at)));
				const requests = (await stack.sandbox.requests(since)).filter((r) => r.path === '/w/message/text');
				const early = requests.filter((r) => Date.parse(r.receivedAt) < firstAnswer).length;
				assert(early >= 2, `only ${early} request(s) had arrived before the first answer: not sent concurrently`);
			},
		},
		{
			name: `Max Messages per Second ${PACED_RATE}: six messages take the node at least a second`,
			fn: async () => {
				const messages = bulk('paced', 6);
				const execution = await runBulk(stack, PACED_HOOK, messages);
				assertEqual(execution.status, 'success', 'execution status');
				assertEachOnce(await sentCounts(stack, 'paced'), messages, 'paced send');
				// n8n's own record of the node's time (the sandbox's clock runs faster in this suite).
				const task = execution.data?.resultData.runData['Send Text']?.[0] as { executionTime?: number };
				const least = ((messages.length - 1) / PACED_RATE) * 1000;
				assert((task.executionTime ?? 0) >= least, `the paced node took ${task.executionTime} ms, less than ${least} ms`);
			},
		},
		{
			name: 'Template: the editor’s resource-mapper call lists one field per placeholder; Render and Send Text From Template fill them',
			fn: async () => {
				const fields = await n8n.rest<{ data: { fields: Array<{ id: string; displayName: string; required: boolean }> } }>(
					'POST',
					'/dynamic-node-parameters/resource-mapper-fields',
					{
						path: 'parameters.placeholderValues',
						nodeTypeAndVersion: { name: ACTION_TYPE, version: 1 },
						currentNodeParameters: {
							resource: 'template',
							operation: 'render',
							templateId: { __rl: true, mode: 'id', value: String(TEMPLATE.id) },
						},
						methodName: 'getTemplatePlaceholders',
						credentials: { [CREDENTIAL_TYPE]: stack.credential },
					},
				);
				assertEqual(fields.status, 200, `resource-mapper-fields: ${JSON.stringify(fields.body).slice(0, 300)}`);
				const bodyFields = fields.body.data.fields.filter((f) => f.id.startsWith('Body'));
				const samples = TEMPLATE.components.find((c) => c.type === 'BODY')!.example!.body_text[0];
				assertEqual(bodyFields.map((f) => [f.id, f.required]), samples.map((_, i) => [`Body {{${i + 1}}}`, true]), 'Placeholder Values fields');
				assertEqual(bodyFields.map((f, i) => labelProblem(f.displayName, f.id, samples[i])).filter(Boolean), [], 'labels with the samples');
				const wf = stack.workflows.find((w) => w.name.startsWith('E2E: render a template'));
				assert(wf, 'no template workflow');
				const execution = await runThroughServer(n8n, wf);
				assertEqual(execution.status, 'success', 'execution status');
				let expected = TEMPLATE.components.find((c) => c.type === 'BODY')!.text!;
				for (const [key, value] of Object.entries(TEMPLATE_VALUES)) expected = expected.split(key.replace(/^Body /, '')).join(value);
				assertEqual(nodeOutput(execution, 'Render')[0]?.body, expected, 'rendered body');
				const sent = (await stack.sandbox.messages()).filter((m) => m.phone === TEMPLATE_RECIPIENT).map((m) => m.body);
				assertEqual(sent, [expected], 'text the sandbox got');
			},
		},
		{
			name: 'Test Mode in the credential: every message goes to the test recipient; output and output-panel hint say so',
			fn: async () => {
				const messages = bulk('test-mode', 2);
				const execution = await runBulk(stack, TEST_MODE_HOOK, messages);
				assertEqual(execution.status, 'success', 'execution status');
				const got = (await stack.sandbox.messages()).filter((m) => m.body?.startsWith('test-mode '));
				assertEqual(got.map((m) => [m.phone, m.body]), messages.map((m) => [TEST_RECIPIENT, m.text]), 'messages the sandbox got');
				const output = nodeOutput(execution, 'Send Text');
				assertEqual(
					output.map((item) => [item.testMode, item.intendedRecipient]),
					messages.map((m) => ['redirected', m.phone]),
					'testMode and intendedRecipient',
				);
				const task = execution.data?.resultData.runData['Send Text']?.[0] as { hints?: Array<{ message: string }> };
				assert(
					task.hints?.some((hint) => hint.message.includes(`test recipient ${TEST_RECIPIENT}`)),
					`no Test Mode hint in the node's run data: ${JSON.stringify(task.hints)}`,
				);
			},
		},
		{
			name: 'Test Mode: a message sent to the test recipient does not count as sent for Skip Repeats Within',
			fn: async () => {
				const message: Message = { phone: '+15552000020', text: 'tm-repeats: order 9 shipped', order_id: 9 };
				const one = await runBulk(stack, TEST_MODE_REPEATS_HOOK, [message]);
				const two = await runBulk(stack, TEST_MODE_REPEATS_HOOK, [message]);
				for (const [run, what] of [[one, 'first'], [two, 'second']] as const) {
					assertEqual(run.status, 'success', `${what} run status`);
					assertEqual(nodeOutput(run, 'Send Text').map((item) => [item.skipped ?? false, item.testMode]), [[false, 'redirected']], `${what} run output`);
				}
				const got = (await stack.sandbox.messages()).filter((m) => m.body === message.text).map((m) => m.phone);
				assertEqual(got, [TEST_RECIPIENT, TEST_RECIPIENT], 'messages the sandbox got');
			},
		},
		retryCase(false),
		retryCase(true),
		{
			name: 'Retry chain: the original failed execution retried again after its retry succeeded sends nothing twice (both retry modes)',
			fn: async () => {
				const messages = bulk('retry-chain', 3);
				// The third recipient refuses once.
				await stack.sandbox.fault({ delayMs: 0, count: 2, path: '/w/message/text' });
				await stack.sandbox.fault({ status: 422, count: 1, path: '/w/message/text' });
				const original = await runBulk(stack, RETRY_HOOK, messages);
				await stack.sandbox.clearFaults();
				assertEqual(original.status, 'error', 'original execution status');
				const retried = await retryOverRest(stack, RETRY_HOOK, original.id, false);
				assertEqual(retried.status, 'success', 'first retry status');
				assertEachOnce(await sentCounts(stack, 'retry-chain'), messages, 'after the first retry');
				for (const loadWorkflow of [true, false]) {
					const again = await retryOverRest(stack, RETRY_HOOK, original.id, loadWorkflow);
					assertEqual(again.status, 'success', `status of the original's retry (loadWorkflow ${loadWorkflow})`);
					assertEachOnce(await sentCounts(stack, 'retry-chain'), messages, `after retrying the original again (loadWorkflow ${loadWorkflow})`);
					assertEqual(nodeOutput(again, 'Send Text').map((item) => item.skipped === true), [true, true, true], 'items skipped');
				}
			},
		},
		{
			name: 'Retry chain: two retries of an execution that failed before the node ran send each message once',
			fn: async () => {
				const messages = bulk('retry-chain-upstream', 3);
				await stack.sandbox.fault({ status: 500, count: 1, path: '/orders' });
				const original = await runBulk(stack, RETRY_AFTER_REQUEST_HOOK, messages);
				await stack.sandbox.clearFaults();
				assertEqual(original.status, 'error', 'original execution status');
				assertEqual(original.data?.resultData.runData['Send Text'], undefined, 'Send Text ran in the original');
				assertEqual((await sentCounts(stack, 'retry-chain-upstream')).size, 0, 'messages sent by the original');
				const first = await retryOverRest(stack, RETRY_AFTER_REQUEST_HOOK, original.id, false);
				assertEqual(first.status, 'success', 'first retry status');
				const second = await retryOverRest(stack, RETRY_AFTER_REQUEST_HOOK, original.id, true);
				assertEqual(second.status, 'success', 'second retry status');
				assertEachOnce(await sentCounts(stack, 'retry-chain-upstream'), messages, 'after both retries');
				assertEqual(nodeOutput(second, 'Send Text').map((item) => item.skipped === true), [true, true, true], 'items skipped by the second retry');
			},
		},
		{
			name: 'Retry On Fail repeats the node without sending the earlier try’s messages again',
			fn: async () => {
				const messages = bulk('retry-on-fail', 6);
				await failFourthSend(stack);
				const execution = await runBulk(stack, RETRY_ON_FAIL_HOOK, messages);
				await stack.sandbox.clearFaults();
				assertEqual(execution.status, 'success', 'execution status');
				assertEachOnce(await sentCounts(stack, 'retry-on-fail'), messages, 'after Retry On Fail');
				const skipped = nodeOutput(execution, 'Send Text').filter((item) => item.skipped === true);
				assert(skipped.length > 0, 'no item was reported as skipped');
			},
		},
		{
			name: 'Skip Repeats Within (n8n’s processed-data store) skips a Repeat Key already sent, within a run and across runs',
			fn: async () => {
				const first: Message[] = [
					{ phone: '+15552000010', text: 'repeats: order 1 shipped', order_id: 1 },
					{ phone: '+15552000011', text: 'repeats: order 2 shipped', order_id: 2 },
					{ phone: '+15552000011', text: 'repeats: order 2 shipped (again)', order_id: 2 },
				];
				const one = await runBulk(stack, REPEATS_HOOK, first);
				assertEqual(one.status, 'success', 'first run status');
				assertEqual(
					nodeOutput(one, 'Send Text').map((item) => item.skipped === true),
					[false, false, true],
					'first run: skipped items',
				);
				const second: Message[] = [
					{ phone: '+15552000010', text: 'repeats: order 1 shipped (next run)', order_id: 1 },
					{ phone: '+15552000012', text: 'repeats: order 3 shipped', order_id: 3 },
				];
				const two = await runBulk(stack, REPEATS_HOOK, second);
				assertEqual(two.status, 'success', 'second run status');
				const out = nodeOutput(two, 'Send Text');
				assertEqual(out.map((item) => item.skipped === true), [true, false], 'second run: skipped items');
				assert(String(out[0].skipReason).includes('Skip Repeats Within'), `skipReason: ${String(out[0].skipReason)}`);
				const texts = (await stack.sandbox.messages()).map((m) => m.body).filter((b) => b?.startsWith('repeats:'));
				assertEqual(texts, ['repeats: order 1 shipped', 'repeats: order 2 shipped', 'repeats: order 3 shipped'], 'texts the sandbox got');
			},
		},
	];
}
