/**
 * The fault suite's receiver for "several workflows, one URL" (docs/sharing.md): a trigger that shares (Share
 * With Other Workflows), whose URL the bursts go to, and two trigger workflows receiving through it. Every
 * event answered 2xx must run once in each of the three.
 */
import { executionsSince, latestExecutionId } from '../../bench/lib/n8n-runs';
import type { N8n } from '../../tools/n8n/n8n';
import { sleep, waitFor } from '../../tools/n8n/proc';
import { chain, webhookIdFor, type Workflow } from '../../tools/n8n/workflow';
import { type CredentialRef, triggerProductionPath } from '../../tools/n8n/workflows';
import { deliver, messageEvent, nowSeconds } from '../queue/deliver';
import { triggerNode } from '../queue/workflows';

const HOOK = webhookIdFor('fault-sharing');

/** Where the service posts: the sharing trigger's production URL. */
export const SHARING_PATH = triggerProductionPath(HOOK);

/** The sharing trigger's workflow first, then the two receiving through it; every one selects every event. */
export function sharingWorkflows(credential: CredentialRef): Workflow[] {
	const sharing = triggerNode(credential, HOOK);
	sharing.parameters.resumeWaitingRuns = true;
	const receiving = (n: number) => {
		const trigger = triggerNode(credential, webhookIdFor(`fault-sharing-${n}`));
		trigger.parameters.receiveFrom = 'sharingTrigger';
		return chain(`faultShareRecv${n}`, `Faults: receiving through the sharing trigger (${n})`, [trigger]);
	};
	return [chain('faultShareHub', 'Faults: sharing trigger', [sharing]), receiving(1), receiving(2)];
}

/**
 * Waits until a probe event posted to the sharing trigger runs in every workflow: the receiving triggers
 * register in the background after their activation (and again after a restart), and a burst must not start
 * before they have. Probes are not the cases' events: they run before the round notes each workflow's last
 * execution, and are neither in the suite's ledger nor looked up.
 */
export async function everyWorkflowReceives(target: N8n, reader: N8n, secret: string, workflows: Array<{ id: string }>, tag: string): Promise<void> {
	const before = await Promise.all(workflows.map(async (w) => await latestExecutionId(reader, w.id)));
	const probes: string[] = [];
	await waitFor(
		'every workflow to receive through the sharing trigger',
		async () => {
			probes.push(`probe-${tag}-${probes.length}`);
			await deliver(secret, { url: `${target.baseUrl}${SHARING_PATH}`, body: messageEvent(probes.at(-1)!), timestamp: nowSeconds() });
			await sleep(1000);
			const ran = await Promise.all(
				workflows.map(async (w, i) => {
					const data = (await executionsSince(reader, w.id, before[i], true)).map((e) => JSON.stringify(e.data ?? {})).join('\n');
					return new Set(probes.filter((p) => data.includes(`wamid.queue.${p}"`)));
				}),
			);
			// One probe that ran in every workflow.
			return probes.some((p) => ran.every((set) => set.has(p))) ? true : undefined;
		},
		120_000,
		500,
	);
}
