/**
 * Version matrix smoke: the e2e suite's smoke checks (the package loads, one action, genuine and forged
 * deliveries, chat replies, …) for every run in versions.ts's SMOKE_RUNS: the other n8n versions, and the
 * default version under the expression-engine setting the docs recommend. The full suite runs on the default
 * version with n8n's defaults in `npm run test:e2e`. Three runs at a time (VERSIONS_LANES), each on its own ports,
 * folder and sandbox; every line names its run. npm run test:versions
 */
import { closingLine, createReporter, runSuite } from './lib/report';
import { inLanes, lanesFromEnv } from '../../tools/n8n/lanes';
import { installCleanupHandlers, stopAll } from '../../tools/n8n/proc';
import { SMOKE_RUNS } from '../../tools/n8n/versions';
import { e2eSuite } from './run';

/**
 * How many runs side by side (VERSIONS_LANES, default 3: every run at once; 1: one after another): much of a run
 * is waiting (n8n's start, imports, polling). docs/results/2026-11-30-versions-3-lanes-quiet.txt.
 */
const LANES = lanesFromEnv('VERSIONS_LANES', 3);

/** VERSIONS=<label>,…: only the runs whose labels start with one of these (while working on some); all when not set. */
function selectedRuns(): typeof SMOKE_RUNS {
	const wanted = (process.env.VERSIONS ?? '').split(',').map((v) => v.trim()).filter(Boolean);
	if (wanted.length === 0) return SMOKE_RUNS;
	const runs = SMOKE_RUNS.filter((run) => wanted.some((w) => run.label.startsWith(w)));
	if (runs.length === 0) throw new Error(`VERSIONS=${process.env.VERSIONS} matches no run of ${SMOKE_RUNS.map((r) => r.label).join('; ')}`);
	return runs;
}

async function main(): Promise<number> {
	installCleanupHandlers();
	// One reporter per run: each run's logs stay when that run failed.
	const runs = selectedRuns();
	const reports = runs.map(() => createReporter());
	await inLanes(runs, LANES, async ({ version, label, setting }, i) => {
		const started = Date.now();
		process.stdout.write(`# n8n ${label} (smoke)\n`);
		await e2eSuite({ report: reports[i], n8nVersion: version, setting, smoke: true, prefix: `n8n ${label}: ` });
		process.stdout.write(`# n8n ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
	});
	await stopAll();
	return closingLine(...reports);
}

runSuite(main);
