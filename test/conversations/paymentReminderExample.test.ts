/**
 * The shipped example examples/payment-reminder.json (issue 52: a reminder that escalates when it is not read in
 * time), in process: its Send Reminder node, exactly as shipped, through n8n-core's engine against the sandbox,
 * with the real Business Messaging Trigger (Share With Other Workflows on) behind a stand-in n8n, started with
 * the body its sticky note tells the user to post. What its If reads and where each branch goes is read from
 * the file, so a change to the example that breaks the escalation fails here. A real n8n 2.41.1 runs it too:
 * test/e2e/checks/statusWaits.ts, paymentReminderChecks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ACTION_NODE_TYPE, runAction } from '../helpers/actionNode';
import { reportStatus, useStatusStandIn } from '../helpers/conversation';
import type { RunResult } from '../helpers/engine';
import { callResumeAddress } from '../helpers/resume';
import { useSandbox } from '../helpers/useSandbox';
import type { Sandbox } from '../../tools/sandbox';
import { LIMIT_FALLBACK_MS } from '../../nodes/shared/sharing';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));
const standIn = useStatusStandIn(() => sandbox);

interface ExampleNode {
	name: string;
	type: string;
	parameters: IDataObject;
}
interface Example {
	nodes: ExampleNode[];
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}

const example = JSON.parse(readFileSync(join(__dirname, '../../examples/payment-reminder.json'), 'utf8')) as Example;
const byName = (name: string) => example.nodes.find((n) => n.name === name)!;
const reminder = example.nodes.find((n) => n.type === ACTION_NODE_TYPE && n.parameters.waitForStatus !== undefined)!;
const check = example.nodes.find((n) => n.type === 'n8n-nodes-base.if')!;
/** What the sticky note tells the user to post (the first JSON in backticks). */
const posted = JSON.parse(/`(\{.*?\})`/.exec(String(byName('Sticky Note').parameters.content))![1]) as IDataObject;

/** The field of the Send Reminder's output the If tests, and the If's two branches (true, false). */
function branches(): { field: string; onTrue: string[]; onFalse: string[] } {
	const condition = (check.parameters.conditions as { conditions: Array<{ leftValue: string; operator: { type: string; operation: string } }> }).conditions;
	expect(condition).toHaveLength(1);
	expect(condition[0].operator).toMatchObject({ type: 'boolean', operation: 'true' });
	const field = /^=\{\{\s*\$json\.(\w+)\s*\}\}$/.exec(condition[0].leftValue)?.[1];
	const [onTrue, onFalse] = example.connections[check.name].main.map((out) => out.map((c) => c.node));
	return { field: field ?? `(not a field of the item: ${condition[0].leftValue})`, onTrue, onFalse };
}

const report = async (messageId: string, status: 'sent' | 'delivered' | 'read') => await reportStatus(sandbox, messageId, status);

async function sendReminder(): Promise<RunResult> {
	const run = await runAction(sandbox, reminder.parameters as INodeParameters, { input: [{ json: { body: posted } }], n8nUrl: standIn().url });
	expect([run.error?.message, run.run.status]).toEqual([undefined, 'waiting']);
	return run;
}

test('the example starts Send Reminder from its Webhook, and its If follows Send Reminder', () => {
	const start = example.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!;
	expect(example.connections[start.name].main[0].map((c) => c.node)).toEqual([reminder.name]);
	expect(example.connections[reminder.name].main[0].map((c) => c.node)).toEqual([check.name]);
	expect(reminder.parameters).toMatchObject({ operation: 'sendText', waitForStatus: 'read' });
});

test('read in time: the run goes on with reached: true, which takes the If’s branch that escalates nothing', async () => {
	const run = await sendReminder();
	const [message] = sandbox.messages;
	expect(message.phone).toBe(posted.phone);
	expect(message.body).toContain(String(posted.invoice));
	for (const status of ['sent', 'delivered', 'read'] as const) expect(await report(message.message_id, status)).toBe(200);
	const [call] = standIn().resumes.filter((c) => c.method === 'POST');
	const outcome = await callResumeAddress(sandbox, run, { query: new URL(call.url, 'http://n8n').search.slice(1), headers: call.headers as Record<string, string>, body: call.body });
	expect(outcome.body).toEqual({ outcome: 'resumed' });
	const { field, onTrue, onFalse } = branches();
	expect(outcome.resumedWith![field]).toBe(true);
	expect(onTrue.filter((n) => byName(n).type === ACTION_NODE_TYPE)).toEqual([]);
	expect(onFalse.length).toBeGreaterThan(0);
});

test('not read by Limit Wait Time (2 hours): reached: false takes the If’s branch that messages the staff number', async () => {
	const run = await sendReminder();
	// The trigger hands the run what it counted at the limit; n8n's own resume is the fallback.
	expect(Math.abs(run.run.waitTill!.getTime() - Date.now() - 2 * 3_600_000 - LIMIT_FALLBACK_MS)).toBeLessThan(10_000);
	// Delivered, never read.
	expect(await report(sandbox.messages[0].message_id, 'delivered')).toBe(200);
	expect(standIn().resumes).toEqual([]);
	const atLimit = run.run.data.executionData!.nodeExecutionStack[0].data.main[0]!.map((i) => i.json);
	const { field, onFalse } = branches();
	expect(atLimit.map((item) => item[field])).toEqual([false]);
	const escalations = onFalse.map(byName).filter((n) => n.type === ACTION_NODE_TYPE && n.parameters.operation === 'sendText');
	expect(escalations).toHaveLength(1);
	// It writes to the staff number the user posts, not to the customer.
	expect(String(escalations[0].parameters.phone)).toMatch(/\.body\.staff_phone\b/);
	expect(posted.staff_phone).toEqual(expect.any(String));
	expect(posted.staff_phone).not.toBe(posted.phone);
});
