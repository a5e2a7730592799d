/**
 * Version matrix smoke: the e2e suite's smoke checks (the package loads, one action, genuine and forged
 * deliveries, chat replies, …) for every run in versions.ts's SMOKE_RUNS: the other n8n versions, and the
 * default version under the expression-engine setting the docs recommend. The full suite runs on the default
 * version with n8n's defaults in `npm run test:e2e`. npm run test:versions
 */
import { createReporter, runSuite } from './lib/report';
import { installCleanupHandlers } from '../../tools/n8n/proc';
import { SMOKE_RUNS } from '../../tools/n8n/versions';
import { e2eSuite } from './run';

async function main(): Promise<number> {
	installCleanupHandlers();
	const report = createReporter();
	for (const { version, label, setting } of SMOKE_RUNS) {
		const started = Date.now();
		process.stdout.write(`# n8n ${label} (smoke)\n`);
		await e2eSuite({ report, n8nVersion: version, setting, smoke: true, prefix: `n8n ${label}: ` });
		process.stdout.write(`# n8n ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
	}
	const { passed, failed } = report.totals();
	process.stdout.write(`${passed} passed, ${failed} failed\n`);
	return failed > 0 ? 1 : 0;
}

runSuite(main);
