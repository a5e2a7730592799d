/**
 * 2e. Where n8n's time goes per event: V8's CPU profile of n8n's main thread while it receives signed
 * events through this trigger (version 2, duplicate store full) and through its Webhook node without
 * verification, under the same load as table 2, grouped by the code that ran. Shows which part of the
 * difference between the two is the trigger's own and which is n8n's.
 */
import type { Workflow } from '../tools/n8n/workflow';
import type { BenchContext } from './lib/context';
import { type CpuProfile, openInspector } from './lib/inspector';
import { runLoad } from './lib/loadgen';
import { executionsAfter, latestExecutionId } from './lib/n8n-runs';
import { settle } from './lib/procfs';
import { fmt, table } from './lib/stats';
import { CONCURRENCY, eventBody, signedLoadRequest, webhookNodePath } from './receiving';
import { triggerPath } from './workflows';

const SAMPLING_INTERVAL_US = 250;
const ROUNDS = 2;

/**
 * Where a profile sample's own time goes, by the package that ran (the path after the last
 * `node_modules/`: n8n's own install folder may contain this package's name); first match wins.
 */
const GROUPS: Array<{ label: string; matches: (module: string, functionName: string) => boolean }> = [
	{ label: 'This package (the trigger’s own code)', matches: (module) => module.startsWith('n8n-nodes-business-messaging/') },
	{ label: 'n8n’s database layer (sqlite3, TypeORM, @n8n/db)', matches: (module) => /^(sqlite3|@n8n\/typeorm|@n8n\/db)\//.test(module) },
	{ label: 'n8n-workflow (parameters, expressions, Workflow objects)', matches: (module) => module.startsWith('n8n-workflow/') },
	{ label: 'n8n-core (execution engine)', matches: (module) => module.startsWith('n8n-core/') },
	{ label: 'n8n server (webhooks, runner, hooks, permissions)', matches: (module) => /^(n8n|@n8n\/[^/]+)\//.test(module) },
	{ label: 'Garbage collector', matches: (_, name) => name === '(garbage collector)' },
	{ label: 'V8 and Node.js internals ("(program)")', matches: (_, name) => name === '(program)' },
	{ label: 'Node.js and other libraries', matches: (_, name) => name !== '(idle)' },
];

const moduleOf = (url: string) => {
	const at = url.lastIndexOf('node_modules/');
	return at < 0 ? url : url.slice(at + 'node_modules/'.length);
};

/** Microseconds of own time per group in one profile (idle excluded). */
function ownTimeByGroup(profile: CpuProfile): number[] {
	const groupOfNode = new Map(
		profile.nodes.map((node) => [node.id, GROUPS.findIndex((g) => g.matches(moduleOf(node.callFrame.url), node.callFrame.functionName))]),
	);
	const totals = GROUPS.map(() => 0);
	for (let i = 0; i < profile.samples.length; i++) {
		const group = groupOfNode.get(profile.samples[i]) ?? -1;
		if (group >= 0) totals[group] += profile.timeDeltas[i + 1] ?? 0;
	}
	return totals;
}

export async function benchReceivingProfile(ctx: BenchContext, workflows: Workflow[], seconds: number, tableId: string): Promise<string> {
	const { n8n, sandbox } = ctx.stack;
	const secret = sandbox.credentials.webhookSecret;
	const workflowOf = (key: string) => workflows.find((w) => w.name === `Bench: receive (${key})`)!;
	const receivers = [
		{ key: 'hook', label: 'Webhook node', path: webhookNodePath(workflows, 'hook') },
		{ key: 'trig', label: 'Trigger', path: triggerPath('trig') },
	].map((r) => ({ ...r, workflowId: workflowOf(r.key).id, totals: GROUPS.map(() => 0), events: 0 }));
	const inspector = await openInspector(ctx.n8nPids()[0]);
	try {
		for (let round = 1; round <= ROUNDS; round++) {
			for (const r of round % 2 ? receivers : [...receivers].reverse()) {
				await settle(ctx.n8nPids(), { maxMs: 60_000 });
				const idBefore = await latestExecutionId(n8n, r.workflowId);
				await inspector.startProfiling(SAMPLING_INTERVAL_US);
				const run = `profile-r${round}-${r.key}-${Date.now()}`;
				await runLoad({
					origin: n8n.baseUrl,
					concurrency: CONCURRENCY,
					durationMs: seconds * 1000,
					makeRequest: (n) => signedLoadRequest(secret, r.path, eventBody(run, n)),
					isOk: (status) => status === 200,
				});
				// Until n8n is idle again: the runs the load started are part of each event's cost.
				await settle(ctx.n8nPids(), { maxMs: 120_000 });
				const profile = await inspector.stopProfiling();
				const done = await executionsAfter(n8n, r.workflowId, idBefore);
				ownTimeByGroup(profile).forEach((us, g) => (r.totals[g] += us));
				r.events += done.count;
				ctx.log(`receiving profile round ${round}: ${r.label}: ${done.count} events profiled`);
			}
		}
	} finally {
		await inspector.close();
	}
	const [hook, trig] = receivers.map((r) => r.totals.map((us) => us / r.events));
	const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
	const rows = GROUPS.map((g, i) => [g.label, fmt(hook[i], 0), fmt(trig[i], 0), fmt(trig[i] - hook[i], 0)]);
	rows.push(['Total', fmt(sum(hook), 0), fmt(sum(trig), 0), fmt(sum(trig) - sum(hook), 0)]);
	return table(
		`${tableId}. Where n8n's main thread spends its time per event (µs): CPU profile under N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true, ${seconds} s of the same load as table 2b and the runs it started, ${ROUNDS} rounds each (${receivers.map((r) => `${r.events} events`).join(' / ')})`,
		['Code', 'Webhook node (no verification)', 'This trigger (store full)', 'Difference'],
		rows,
		[
			'Own time of each function (not of what it calls), sampled every 250 µs by V8’s profiler through n8n’s inspector.',
			'The database layer is where n8n’s own checks for a credential land: before every run of a workflow whose node',
			'has a credential, n8n queries its database in CredentialsPermissionChecker.check and DynamicCredentialsContextHook',
			'(n8n/dist). n8n’s sqlite3 threads and the profiler’s own cost are not counted.',
		],
	);
}
