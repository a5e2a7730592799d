/**
 * Version matrix smoke: for every version in versions.ts's SMOKE_N8N_VERSIONS, the e2e suite's smoke checks
 * (the package loads, one action against the sandbox, genuine and forged deliveries). The full suite runs
 * on the default version in `npm run test:e2e`. npm run test:versions
 */
import { createReporter, runSuite } from './lib/report';
import { installCleanupHandlers } from '../../tools/n8n/proc';
import { SMOKE_N8N_VERSIONS } from '../../tools/n8n/versions';
import { e2eSuite } from './run';

async function main(): Promise<number> {
	installCleanupHandlers();
	const report = createReporter();
	for (const version of SMOKE_N8N_VERSIONS) {
		const started = Date.now();
		process.stdout.write(`# n8n ${version} (smoke)\n`);
		await e2eSuite({ report, n8nVersion: version, smoke: true, prefix: `n8n ${version}: ` });
		process.stdout.write(`# n8n ${version}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
	}
	const { passed, failed } = report.totals();
	process.stdout.write(`${passed} passed, ${failed} failed\n`);
	return failed > 0 ? 1 : 0;
}

runSuite(main);
