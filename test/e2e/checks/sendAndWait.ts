/**
 * Message → Send and Wait for Response in a real n8n: the link in the message opens the answer page,
 * the answer resumes the waiting execution with one item, a second answer (also two at the same
 * moment) resumes nothing, and Limit Wait Time ends the wait with the item the node received.
 */
import { type ExecutionSummary, type N8n, nodeOutput } from '../lib/n8n';
import { waitFor } from '../lib/proc';
import { assert, assertEqual, type Check } from '../lib/report';
import type { Stack } from '../lib/stack';
import { chain, node, webhookTrigger, type Workflow } from '../lib/workflow';
import { action, type CredentialRef } from '../lib/workflows';

const ASK_NODE = 'Ask';

interface Asked {
	workflow: Workflow;
	executionId: string;
	link: string;
	phone: string;
}

function waitWorkflow(credential: CredentialRef, key: string, phone: string, parameters: Record<string, unknown>): Workflow {
	return chain(`e2eWait${key}`, `E2E: send and wait (${key})`, [
		// Answers the request at once: the execution goes on waiting for the answer.
		webhookTrigger(`e2e-wait-${key.toLowerCase()}`, 'Run', 'onReceived'),
		action(ASK_NODE, credential, {
			resource: 'message',
			operation: 'sendAndWait',
			phoneNumberId: '',
			phone,
			message: `Question for ${key}`,
			...parameters,
		}),
	]);
}

/** The README's recipe for several items: Loop Over Items (batch size 1) around the node. */
function loopWorkflow(credential: CredentialRef): Workflow {
	const split = node('Split Out', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'body.people', options: {} });
	const loop = node('Loop Over Items', 'n8n-nodes-base.splitInBatches', 3, { options: {} });
	const askEach = action(ASK_NODE, credential, {
		resource: 'message',
		operation: 'sendAndWait',
		phoneNumberId: '',
		phone: '={{ $json.phone }}',
		message: '=May {{ $json.name }} have the day off?',
		responseType: 'approval',
		approvalType: 'double',
	});
	const done = node('Done', 'n8n-nodes-base.noOp', 1, {});
	const wf = chain('e2eWaitLoop', 'E2E: send and wait (Loop)', [webhookTrigger('e2e-wait-loop', 'Run', 'onReceived'), split, loop]);
	wf.nodes.push(askEach, done);
	const to = (name: string) => ({ node: name, type: 'main' as const, index: 0 });
	wf.connections[loop.name] = { main: [[to(done.name)], [to(askEach.name)]] };
	wf.connections[askEach.name] = { main: [[to(loop.name)]] };
	return wf;
}

export function sendAndWaitWorkflows(credential: CredentialRef): Workflow[] {
	return [
		loopWorkflow(credential),
		waitWorkflow(credential, 'Approval', '+15550000101', { responseType: 'approval', approvalType: 'double' }),
		waitWorkflow(credential, 'Text', '+15550000102', { responseType: 'freeText' }),
		waitWorkflow(credential, 'Timeout', '+15550000103', {
			responseType: 'approval',
			options: {
				limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '={{ $now.plus({ seconds: 3 }).toISO() }}' } },
			},
		}),
	];
}

async function waitingExecution(n8n: N8n, workflowId: string): Promise<ExecutionSummary> {
	return await waitFor(
		`a waiting execution of ${workflowId}`,
		async () => (await n8n.executions(workflowId)).find((e) => e.status === 'waiting'),
		60_000,
		400,
	);
}

async function execution(n8n: N8n, workflowId: string, id: string): Promise<ExecutionSummary | undefined> {
	return (await n8n.executions(workflowId)).find((e) => e.id === id);
}

/** Starts the workflow (with `body`) and reads the link from the message the sandbox received. */
async function ask(stack: Stack, workflow: Workflow, body: unknown = {}, to?: string): Promise<Asked> {
	const { sandbox } = stack;
	const phone = to ?? String(workflow.nodes.find((n) => n.name === ASK_NODE)!.parameters.phone);
	const since = await sandbox.mark();
	const hook = workflow.nodes[0];
	// Just after activation n8n may not have registered the webhook yet: a 404 started nothing, so try again.
	const status = await waitFor(
		`the webhook of ${workflow.name}`,
		async () => {
			const res = await fetch(`${stack.n8n.baseUrl}/webhook/${String(hook.parameters.path)}`, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
			await res.text();
			return res.status === 404 ? undefined : res.status;
		},
		30_000,
		500,
	);
	assertEqual(status, 200, 'starting the workflow');
	return await question(stack, workflow, since, phone);
}

/** The next question to `phone` (sent after `since`), its link and the execution waiting for it. */
async function question(stack: Stack, workflow: Workflow, since: number, phone: string): Promise<Asked> {
	const { n8n, sandbox } = stack;
	const sent = await waitFor(
		`the question to ${phone}`,
		async () => (await sandbox.requests(since)).find((r) => r.path.endsWith('/w/message/text') && (r.json as { phone?: string })?.phone === phone),
		60_000,
		300,
	);
	const body = String((sent.json as { body: string }).body);
	const link = /(http\S+)$/.exec(body)?.[1];
	assert(link, `no link in the message: ${body}`);
	const waiting = await waitingExecution(n8n, workflow.id);
	assert(link.includes(`/webhook-waiting/${waiting.id}/`), `the link ${link} is not for execution ${waiting.id}`);
	return { workflow, executionId: waiting.id, link, phone };
}

const answer = (link: string, value: string) =>
	fetch(link, {
		method: 'POST',
		headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams({ answer: value }).toString(),
	});

async function finished(n8n: N8n, asked: Asked): Promise<ExecutionSummary> {
	return await waitFor(
		`execution ${asked.executionId} to finish`,
		async () => {
			const e = await execution(n8n, asked.workflow.id, asked.executionId);
			return e && !['running', 'new', 'waiting'].includes(e.status) ? e : undefined;
		},
		180_000,
		500,
	);
}

function byKey(workflows: Workflow[], key: string): Workflow {
	return workflows.find((w) => w.name === `E2E: send and wait (${key})`)!;
}

export function sendAndWaitChecks(stack: Stack): Check[] {
	const { n8n, workflows } = stack;
	let timeout: Asked | undefined;
	return [
		{
			// Started first and checked last: n8n looks for due waits once a minute.
			name: 'send and wait: Limit Wait Time — the question goes out with a link, the execution waits',
			fn: async () => {
				timeout = await ask(stack, byKey(workflows, 'Timeout'));
			},
		},
		{
			name: 'send and wait (approval): opening the link shows the buttons and resumes nothing; Decline resumes with who answered and when; a second answer resumes nothing',
			fn: async () => {
				const asked = await ask(stack, byKey(workflows, 'Approval'));
				const page = await fetch(asked.link);
				const html = await page.text();
				assertEqual(page.status, 200, 'GET the link');
				assert(html.includes('value="approve">Approve</button>') && html.includes('value="decline">Decline</button>'), `the page has no Approve and Decline buttons: ${html.slice(0, 300)}`);
				assertEqual((await execution(n8n, asked.workflow.id, asked.executionId))?.status, 'waiting', 'status after opening the link');
				// A link changed by hand (another recipient) fails n8n's signature check.
				const forged = new URL(asked.link);
				forged.searchParams.set('to', '+15559999999');
				const refused = await fetch(forged, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'answer=approve' });
				await refused.text();
				assertEqual(refused.status, 401, 'a changed link');
				assertEqual((await execution(n8n, asked.workflow.id, asked.executionId))?.status, 'waiting', 'status after a changed link');

				const before = Date.now();
				// Two answers at the same moment, then one more: exactly one resumes the execution.
				const [first, second] = await Promise.all([answer(asked.link, 'decline'), answer(asked.link, 'approve')]);
				const texts = [await first.text(), await second.text()];
				const done = await finished(n8n, asked);
				assertEqual(done.status, 'success', 'status after the answer');
				const late = await answer(asked.link, 'approve');
				const lateText = await late.text();
				assert(!lateText.includes('Your answer was received'), 'a late answer was accepted');
				assert(lateText.includes('No action required') || late.status === 409, `a late answer got ${late.status}: ${lateText.slice(0, 200)}`);
				// Both may see the thank-you page (it is written before n8n claims the execution); one answer counts.
				assert(texts.some((t) => t.includes('Your answer was received')), 'neither answer was thanked');

				const again = await execution(n8n, asked.workflow.id, asked.executionId);
				const output = nodeOutput(again!, ASK_NODE);
				assertEqual(output.length, 1, 'items out of the node');
				const item = output[0];
				assert(['approved', 'declined'].includes(String(item.answer)), `answer ${String(item.answer)}`);
				assertEqual(item.approved, item.answer === 'approved', 'approved');
				assertEqual(item.answeredBy, asked.phone, 'answeredBy');
				assertEqual(item.answeredVia, 'link', 'answeredVia');
				const at = Date.parse(String(item.answeredAt));
				assert(at >= before - 1000 && at <= Date.now() + 1000, `answeredAt ${String(item.answeredAt)} is not the time of the answer`);
				assertEqual((await n8n.executions(asked.workflow.id)).length, 1, 'executions of the workflow');
			},
		},
		{
			name: 'send and wait (free text): an empty answer is refused on the page; the text resumes the execution',
			fn: async () => {
				const asked = await ask(stack, byKey(workflows, 'Text'));
				const page = await (await fetch(asked.link)).text();
				assert(page.includes('<textarea'), 'the page has no text box');
				const empty = await answer(asked.link, '   ');
				assertEqual(empty.status, 400, 'empty answer');
				assert((await empty.text()).includes('Please write an answer.'), 'the empty answer is not explained');
				assertEqual((await execution(n8n, asked.workflow.id, asked.executionId))?.status, 'waiting', 'status after an empty answer');
				const text = 'Tomorrow at 9 – ünïcödé ✓';
				assertEqual((await answer(asked.link, text)).status, 200, 'answer');
				const done = await finished(n8n, asked);
				assertEqual(done.status, 'success', 'status');
				const [item] = nodeOutput(done, ASK_NODE);
				assertEqual(item.answer, text, 'answer');
				assertEqual(item.answeredBy, asked.phone, 'answeredBy');
			},
		},
		{
			name: 'send and wait in Loop Over Items: each person gets a question and answers it; the first link, tapped again during the second wait, answers nothing',
			fn: async () => {
				const workflow = byKey(workflows, 'Loop');
				const people = [
					{ phone: '+15550000201', name: 'Ann' },
					{ phone: '+15550000202', name: 'Bob' },
				];
				const first = await ask(stack, workflow, { people }, people[0].phone);
				const since = await stack.sandbox.mark();
				assertEqual((await answer(first.link, 'approve')).status, 200, 'first answer');
				const second = await question(stack, workflow, since, people[1].phone);
				assertEqual(second.executionId, first.executionId, 'one execution asks both');
				const stale = await answer(first.link, 'decline');
				assertEqual(stale.status, 410, 'the first link during the second wait');
				assert((await stale.text()).includes('No answer needed'), 'the stale link does not say so');
				assertEqual((await execution(n8n, workflow.id, second.executionId))?.status, 'waiting', 'status after the stale link');
				assertEqual((await answer(second.link, 'decline')).status, 200, 'second answer');
				const done = await finished(n8n, second);
				assertEqual(done.status, 'success', 'status');
				const output = nodeOutput(done, 'Done').map((i) => [i.answer, i.answeredBy]);
				assertEqual(output, [['approved', people[0].phone], ['declined', people[1].phone]], 'answers after the loop');
			},
		},
		{
			name: 'send and wait: at the limit the execution goes on with the item the node received, without an answer; the link then resumes nothing',
			timeoutMs: 240_000,
			fn: async () => {
				assert(timeout, 'the timeout workflow did not start');
				const done = await finished(n8n, timeout);
				assertEqual(done.status, 'success', 'status');
				const output = nodeOutput(done, ASK_NODE);
				assertEqual(output.length, 1, 'items');
				assert(!('answer' in output[0]) && !('answeredAt' in output[0]), `a timed-out wait has an answer: ${JSON.stringify(output[0])}`);
				const late = await answer(timeout.link, 'approve');
				assert(!(await late.text()).includes('Your answer was received'), 'an answer after the limit was accepted');
				assertEqual((await n8n.executions(timeout.workflow.id)).length, 1, 'executions of the workflow');
			},
		},
	];
}
