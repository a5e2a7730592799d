/**
 * Message → Send and Wait for Response in a real n8n: the link in the message opens the answer page,
 * the answer resumes the waiting execution with one item, a second answer (also two at the same
 * moment) resumes nothing, and Limit Wait Time ends the wait with the item the node received.
 * A forged, stripped or altered link resumes nothing, on every n8n version (also in the versions smoke).
 */
import { createHash, randomBytes } from 'node:crypto';
import { type ExecutionSummary, type N8n, nodeOutput, underWay } from '../../../tools/n8n/n8n';
import { waitFor } from '../../../tools/n8n/proc';
import { assert, assertEqual, type Check } from '../lib/report';
import type { Stack } from '../../../tools/n8n/stack';
import { chain, node, webhookTrigger, type Workflow } from '../../../tools/n8n/workflow';
import { action, type CredentialRef } from '../../../tools/n8n/workflows';
import { postToWebhook } from '../../../tools/n8n/webhookPost';

const ASK_NODE = 'Ask';
const FORGE_PHONE = '+15550000104';
const FORGE_MESSAGE = 'Can we ship order #1042 today?';

export interface Asked {
	workflow: Workflow;
	executionId: string;
	link: string;
	phone: string;
}

export function waitWorkflow(credential: CredentialRef, key: string, phone: string, parameters: Record<string, unknown>): Workflow {
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
export function loopWorkflow(credential: CredentialRef): Workflow {
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
		waitWorkflow(credential, 'Forge', FORGE_PHONE, { responseType: 'approval', approvalType: 'double', message: FORGE_MESSAGE }),
		// The question as sent differs from the parameter evaluated later: the answer must still count.
		waitWorkflow(credential, 'Now', '+15550000105', { responseType: 'approval', message: '=Ship at {{ $now.toISO() }}?' }),
		waitWorkflow(credential, 'Timeout', '+15550000103', {
			responseType: 'approval',
			options: {
				limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '={{ $now.plus({ seconds: 3 }).toISO() }}' } },
			},
		}),
	];
}

/**
 * One execution by id: n8n 1.x leaves a waiting execution out of its list (it is still active there). n8n 1.x on
 * SQLite saves a resumed run's status before its data, in two statements (@n8n/db updateExistingExecution): a
 * `success` still holding the waiting run's data (its waitTill, which the resume clears) is read as running.
 */
export async function execution(n8n: N8n, workflowId: string, id: string): Promise<ExecutionSummary | undefined> {
	const res = await n8n.api<ExecutionSummary & { data?: { waitTill?: unknown } }>('GET', `/executions/${encodeURIComponent(id)}?includeData=true`);
	if (res.status !== 200 || res.body.workflowId !== workflowId) return undefined;
	return res.body.status === 'success' && res.body.data?.waitTill ? { ...res.body, status: 'running' } : res.body;
}

/** Starts the workflow (with `body`) and reads the link from the message the sandbox received. */
export async function ask(stack: Stack, workflow: Workflow, body: unknown = {}, to?: string): Promise<Asked> {
	const { sandbox } = stack;
	const phone = to ?? String(workflow.nodes.find((n) => n.name === ASK_NODE)!.parameters.phone);
	const since = await sandbox.mark();
	const hook = workflow.nodes[0];
	const { status } = await postToWebhook(stack.n8n.baseUrl, String(hook.parameters.path), body);
	assertEqual(status, 200, 'starting the workflow');
	return await question(stack, workflow, since, phone);
}

/** The next question to `phone` (sent after `since`), its link and the execution waiting for it. */
export async function question(stack: Stack, workflow: Workflow, since: number, phone: string): Promise<Asked> {
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
	const executionId = /\/webhook-waiting\/([^/]+)\//.exec(link)?.[1];
	assert(executionId, `the link ${link} names no execution`);
	const waiting = await waitFor(
		`execution ${executionId} to wait`,
		async () => (await execution(n8n, workflow.id, executionId))?.status === 'waiting' || undefined,
		60_000,
		300,
	);
	assert(waiting, `execution ${executionId} is not waiting`);
	return { workflow, executionId, link, phone };
}

export const answer = (link: string, value: string) =>
	fetch(link, {
		method: 'POST',
		headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams({ answer: value }).toString(),
	});

export async function finished(n8n: N8n, asked: Asked): Promise<ExecutionSummary> {
	return await waitFor(
		`execution ${asked.executionId} to finish`,
		async () => {
			const e = await execution(n8n, asked.workflow.id, asked.executionId);
			if (!e || underWay(e.status)) return undefined;
			// n8n 1.123 may show the status a moment before the resumed node's output.
			const resumedNode = asked.workflow.nodes.some((n) => n.name === ASK_NODE);
			return e.status !== 'success' || !resumedNode || nodeOutput(e, ASK_NODE).length > 0 ? e : undefined;
		},
		180_000,
		500,
	);
}

function byKey(workflows: Workflow[], key: string): Workflow {
	return workflows.find((w) => w.name === `E2E: send and wait (${key})`)!;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Links an attacker makes from a genuine one (received earlier, or by someone else) or from public facts:
 * execution ids are sequential, the node id is in every earlier link, and the message may be known.
 */
const FORGERIES: Array<[string, (genuine: URL, asked: Asked, nodeId: string) => URL]> = [
	['signature removed', (link) => without(link, 'signature')],
	['wrong signature (64 hex)', (link) => withParams(link, { signature: randomBytes(32).toString('hex') })],
	[
		'built from scratch: execution id, node id, to, q = sha256(phone + "\\n" + message)',
		(link, asked, nodeId) => {
			const built = new URL(`/webhook-waiting/${asked.executionId}/${nodeId}`, link);
			built.searchParams.set('to', asked.phone);
			built.searchParams.set('q', sha256(`${asked.phone}\n${FORGE_MESSAGE}`).slice(0, 16));
			return built;
		},
	],
	['`to` changed', (link) => withParams(link, { to: '+15559999999' })],
	['`to` changed, signature removed', (link) => without(withParams(link, { to: '+15559999999' }), 'signature')],
	['a `q` of its own, signature removed', (link) => without(withParams(link, { q: randomBytes(8).toString('hex') }), 'signature')],
];

function withParams(link: URL, params: Record<string, string>): URL {
	const changed = new URL(link);
	for (const [key, value] of Object.entries(params)) changed.searchParams.set(key, value);
	return changed;
}

function without(link: URL, param: string): URL {
	const changed = new URL(link);
	changed.searchParams.delete(param);
	return changed;
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
			// Each case on a fresh waiting run; the genuine link then answers Decline, so a forgery that
			// resumed the run shows as an approval (or as a different answeredBy) in the output.
			name: 'send and wait: a forged, stripped or altered link resumes nothing; the genuine link then answers',
			timeoutMs: 240_000,
			fn: async () => {
				const workflow = byKey(workflows, 'Forge');
				const nodeId = workflow.nodes.find((n) => n.name === ASK_NODE)!.id;
				const resumed: string[] = [];
				for (const [what, forge] of FORGERIES) {
					const asked = await ask(stack, workflow);
					const forged = forge(new URL(asked.link), asked, nodeId);
					const res = await answer(forged.toString(), 'approve');
					const text = await res.text();
					const refused = res.status >= 400 && !text.includes('Your answer was received');
					await (await answer(asked.link, 'decline')).text();
					const done = await finished(n8n, asked);
					const [item] = nodeOutput(done, ASK_NODE);
					const tookForged = item?.answer !== 'declined' || item?.answeredBy !== FORGE_PHONE;
					if (!refused || tookForged) {
						resumed.push(`${what}: the forged link got ${res.status}; the run ended ${done.status} with ${JSON.stringify(item ?? null)}`);
					}
				}
				assert(resumed.length === 0, `forged links were taken:\n${resumed.join('\n')}`);
			},
		},
		{
			name: 'send and wait: a Message with {{ $now }} takes the answer (the question asked is kept, not evaluated again); the link opened again shows n8n’s page',
			fn: async () => {
				const asked = await ask(stack, byKey(workflows, 'Now'));
				const page = await fetch(asked.link);
				const html = await page.text();
				assertEqual(page.status, 200, 'GET the link');
				const res = await answer(asked.link, 'approve');
				const text = await res.text();
				assertEqual(res.status, 200, `answer (${text.slice(0, 200)})`);
				const done = await finished(n8n, asked);
				assertEqual(done.status, 'success', 'status');
				const [item] = nodeOutput(done, ASK_NODE);
				assertEqual([item.answer, item.answeredBy], ['approved', asked.phone], 'answer and who answered');
				assert(/Ship at \d{4}-/.test(html), 'the page does not show the question as sent');
				// The answered link opened again: n8n answers a finished execution's send-and-wait link with its
				// own page and never calls the node (waiting-webhooks.js, docs/compatibility.md) on every version.
				const reopened = await fetch(asked.link);
				const again = await reopened.text();
				assertEqual(reopened.status, 200, 'the answered link opened again');
				assert(again.includes('<title>No action required</title>') && !again.includes('You approved'), `the answered link opened again shows: ${again.slice(0, 300)}`);
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
			name: 'send and wait in Loop Over Items: each person gets a question and answers it; the first link, tapped again during the second wait, answers nothing and names its question',
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
				const staleText = await stale.text();
				assert(staleText.includes('No answer needed'), 'the stale link does not say so');
				assert(staleText.includes('<div class="question">May Ann have the day off?</div>'), `the stale link's page does not name its question: ${staleText.slice(0, 600)}`);
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
