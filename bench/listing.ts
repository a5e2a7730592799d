/**
 * 4. Listing: Return All over sandboxes with 1,000 and 10,000 templates: requests made (the sandbox's
 * record), time, and time per template at each size.
 */
import { join } from 'node:path';
import type { SandboxProcess } from '../tools/n8n/sandbox';
import type { Workflow } from '../tools/n8n/workflow';
import { CREDENTIAL_TYPE } from '../tools/n8n/workflows';
import type { BenchContext } from './lib/context';
import { createActiveWorkflow, createCredential, outputOf, runWorkflow } from './lib/n8n-runs';
import { settle } from './lib/procfs';
import { startTemplateSandbox } from './lib/sandboxes';
import { fmt, median, table, verdict } from './lib/stats';
import { LIST_NODE, listWorkflow } from './workflows';

const PAGE = 100;

export interface ListingSandbox {
	templates: number;
	sandbox: SandboxProcess;
}

export async function startListingSandboxes(dir: string, sizes: number[]) {
	const started = await Promise.all(sizes.map((n) => startTemplateSandbox(join(dir, `sandbox-templates-${n}.log`), n)));
	return {
		sandboxes: started.map((s, i) => ({ templates: sizes[i], sandbox: s.sandbox })),
		stop: async () => {
			await Promise.all(started.map((s) => s.stop()));
		},
	};
}

export async function benchListing(ctx: BenchContext, sandboxes: ListingSandbox[]): Promise<string> {
	const { n8n } = ctx.stack;
	const setups: Array<ListingSandbox & { workflow: Workflow }> = [];
	for (const s of sandboxes) {
		const credential = await createCredential(n8n, `Business Messaging (${s.templates} templates)`, CREDENTIAL_TYPE, {
			...s.sandbox.credentials,
		});
		const workflow = await createActiveWorkflow(n8n, listWorkflow(String(s.templates), credential));
		setups.push({ ...s, workflow });
	}
	// Warm-up
	for (const s of setups) await runWorkflow(n8n, s.workflow, {});

	const results = setups.map(() => ({ ms: [] as number[], wall: [] as number[], requests: [] as number[], items: [] as number[] }));
	for (let round = 1; round <= ctx.rounds; round++) {
		for (const [i, s] of setups.entries()) {
			await settle(ctx.n8nPids());
			const since = await s.sandbox.mark();
			const run = await runWorkflow(n8n, s.workflow, {});
			const requests = (await s.sandbox.requests(since)).filter((r) => r.path === '/templates');
			const items = outputOf(run.execution, LIST_NODE).length;
			results[i].ms.push(run.nodeMs(LIST_NODE));
			results[i].wall.push(run.wallMs);
			results[i].requests.push(requests.length);
			results[i].items.push(items);
			ctx.log(`listing round ${round}: ${s.templates} templates: ${requests.length} requests, ${items} items, ${fmt(run.nodeMs(LIST_NODE), 0)} ms`);
		}
	}
	const perTemplate = (i: number) => (median(results[i].ms) * 1000) / setups[i].templates;
	const rows = setups.map((s, i) => {
		const pages = Math.ceil(s.templates / PAGE);
		const requests = Math.max(...results[i].requests);
		const items = Math.min(...results[i].items);
		const ok = requests === pages && Math.min(...results[i].requests) === pages && items === s.templates;
		return [
			s.templates.toLocaleString('en-US'),
			String(items),
			String(requests),
			String(pages),
			`${verdict(ok)}`,
			fmt(median(results[i].ms), 0),
			fmt(median(results[i].wall), 0),
			fmt(perTemplate(i), 1),
		];
	});
	const growth = perTemplate(setups.length - 1) / perTemplate(0);
	const sizeRatio = setups[setups.length - 1].templates / setups[0].templates;
	return table(
		`4. Listing: Template → Get Many, Return All (median of ${ctx.rounds} rounds)`,
		['Templates', 'Items out', 'Requests', 'Pages needed', 'Requests = pages', 'Node ms', 'Run ms', 'µs per template'],
		rows,
		[
			`Time per template at ${setups[setups.length - 1].templates.toLocaleString('en-US')} vs ${setups[0].templates.toLocaleString('en-US')}: ${growth.toFixed(2)}× ` +
				`(time grew ${(growth * sizeRatio).toFixed(1)}× for ${sizeRatio}× the templates) — ${verdict(growth <= 1.25)} (linear: per-template time within 1.25×)`,
			'Node ms: the node’s own time (n8n’s executionTime); Run ms: webhook call until n8n answered, saving the items included.',
		],
	);
}
