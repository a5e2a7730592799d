/**
 * The suites' own reading of n8n's executions (bench/lib/n8n-runs.ts): n8n's public API leaves the executions
 * its process is running out of a plain list, and the fault suite's lookups, which decide whether an event
 * answered 2xx was lost or ran twice, must still see them. Checked on every n8n version the smoke runs on.
 */
import { executionsSince, finishedExecutionsAfter, latestExecutionId } from '../../../bench/lib/n8n-runs';
import { waitFor } from '../../../tools/n8n/proc';
import type { Stack } from '../../../tools/n8n/stack';
import { chain, node, webhookIdFor, webhookTrigger, type Workflow } from '../../../tools/n8n/workflow';
import { assert, assertEqual, type Check } from '../lib/report';

const NAME = 'E2E: a run still running';
const HOOK_PATH = 'e2e-still-running';
/** Long enough to be listed while it waits under load; n8n waits less than 65 s in the process (status running). */
const WAIT_SECONDS = 10;

/** n8n's Webhook node, then a short Wait: the run is `running` for WAIT_SECONDS. */
export function stillRunningWorkflow(): Workflow {
	return chain('e2eStillRunning', NAME, [
		webhookTrigger(HOOK_PATH, 'Run', 'onReceived'),
		node('Wait', 'n8n-nodes-base.wait', 1.1, { resume: 'timeInterval', amount: WAIT_SECONDS, unit: 'seconds' }, { webhookId: webhookIdFor(`${HOOK_PATH}-wait`) }),
	]);
}

export function executionListChecks(stack: Stack): Check[] {
	return [
		{
			name: 'execution lists: the suites see a run n8n is still running, and then its end',
			fn: async () => {
				const { n8n } = stack;
				const workflow = stack.workflows.find((w) => w.name === NAME)!;
				const before = await latestExecutionId(n8n, workflow.id);
				const res = await fetch(`${n8n.baseUrl}/webhook/${HOOK_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
				assertEqual(res.status, 200, 'the Webhook node’s answer');
				const running = await waitFor('the run listed as running', async () => (await executionsSince(n8n, workflow.id, before)).find((e) => e.status === 'running'), WAIT_SECONDS * 1000, 200);
				assert(Number(running.id) === (await latestExecutionId(n8n, workflow.id)), `latestExecutionId is not the running execution ${running.id}`);
				const [finished] = await finishedExecutionsAfter(n8n, workflow.id, before, { atLeast: 1, timeoutMs: 60_000 });
				assertEqual([finished.id, finished.status], [running.id, 'success'], 'the run once it ended');
			},
		},
	];
}
