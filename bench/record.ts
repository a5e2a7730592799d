/**
 * Keeps a suite's output as evidence, the way `npm run bench` keeps its own: `npm run record -- faults`
 * runs `npm run test:faults` and writes its standard output, unedited, to docs/results/<date>-faults.txt
 * under the header (command, machine, versions, commit, date) that figures in docs/ link to. Run it on a
 * quiet machine; `N8N_VERSION` and `E2E_ONLY` pass through to the suite and are named in the header.
 */
import { spawn } from 'node:child_process';
import { headerLines, machineHeader, openResults, REPO_ROOT, shownPath } from './lib/results';
import { DEPLOYMENTS, deploymentLabel } from '../test/faults/deployments';
import { DEFAULT_N8N_VERSION, SMOKE_RUNS } from '../tools/n8n/versions';

const SUITES = ['faults', 'queue', 'versions', 'e2e'];

async function main(): Promise<void> {
	const [suite] = process.argv.slice(2);
	if (!SUITES.includes(suite)) {
		process.stderr.write(`npm run record -- <suite>: the suite is one of ${SUITES.join(', ')}\n`);
		process.exitCode = 2;
		return;
	}
	const vars = Object.keys(process.env)
		.filter((k) => /^(N8N_VERSION|E2E_ONLY)$/.test(k))
		.sort()
		.map((k) => `${k}=${/^[\w.:/-]*$/.test(process.env[k] ?? '') ? process.env[k] : `'${process.env[k]}'`}`);
	const command = [...vars, `npm run record -- ${suite}`, `(npm run test:${suite})`].join(' ');
	// The versions suite runs its smoke runs; the fault suite its deployments.
	const n8n = process.env.N8N_VERSION ?? { faults: DEPLOYMENTS.map(deploymentLabel).join('; '), versions: SMOKE_RUNS.map((r) => r.label).join('; ') }[suite] ?? DEFAULT_N8N_VERSION;
	const results = openResults([], process.env.BENCH_RESULTS_DIR || undefined, suite);
	const out = (text: string) => {
		process.stdout.write(text);
		results.write(text);
	};
	out(`${headerLines(machineHeader(command, { node: process.version, n8n })).join('\n')}\n\n`);
	const child = spawn('npm', ['run', '--silent', `test:${suite}`], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
	child.stdout.on('data', (chunk: Buffer) => out(chunk.toString()));
	const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
	process.stderr.write(`raw output: ${shownPath(results.path)}\n`);
	process.exitCode = code ?? 1;
}

void main();
