/**
 * The docs' checks in test:release, each broken once: the README's opening (readme.ts), versions against where
 * they are decided (versions.ts), links against the repository's address (repository.ts), the first-publish
 * steps (first-publish.ts); and the two tools a maintainer runs, `npm run release` and `npm run set-repository`,
 * on a copy of the repository.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareRelease, userDocs } from '../../tools/release/release';
import { repositoryOf, setRepository } from '../../tools/release/repository';
import { installVersions } from '../../tools/release/versions';
import { repositoryLinkProblems } from '../e2e/checks/package';
import { bundledNpmVersion, firstPublishProblems, nodeChangelog, placeholderOf } from './first-publish';
import { readmeProblems } from './readme';
import { addressProblems } from './repository';
import { changelogProblems, versionProblems, workingNodeProblems } from './versions';
import { guardStepProblems, runStep, stepScript } from './workflows';

const ROOT = join(__dirname, '../..');
const read = (file: string, root = ROOT) => readFileSync(join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string; engines: { node: string }; name: string; files: string[]; devDependencies: Record<string, string> };
const README = read('README.md');
const docs = (root = ROOT) => Object.fromEntries(userDocs(root).filter((f) => f.startsWith('docs/')).map((f) => [f, read(f, root)]));
const versions = (readme: string, docFiles = docs(), version = pkg.version) => versionProblems({ packageVersion: version, enginesNode: pkg.engines.node, readme, docs: docFiles });

describe('the README opens for the user', () => {
	it('the real README passes', () => expect(readmeProblems(README)).toEqual([]));
	it('a contributor’s command as its first code block fails', () =>
		expect(readmeProblems(README.replace('## Quick start', '```bash\nnpm install && npm run demo\n```\n\n## Quick start')).join('\n')).toMatch(/first code block is a contributor's/));
	it('without "self-hosted only until n8n verifies it" fails', () =>
		expect(readmeProblems(README.replace(/until n8n verifies this package/, 'for now')).join('\n')).toMatch(/self-hosted n8n only until n8n verifies/));
	it('a quick start of four steps fails', () =>
		expect(readmeProblems(README.replace(/^4\. \*\*First trigger\.\*\*.*$/m, '')).join('\n')).toMatch(/Quick start: steps/));
	it('the contributor’s commands moved further down fails', () => {
		const moved = README.replace('## Working on the package', '## Install first\n\nSee below.\n\n## Working on the package');
		expect(readmeProblems(moved).join('\n')).toMatch(/section after Quick start does not hold the contributor/);
	});
});

describe('versions in the docs', () => {
	it('the real docs pass', () => expect(versions(README)).toEqual([]));
	it('the Docker snippet on another version than package.json', () =>
		expect(versions(README.replace(/"version":"[^"]*"/, '"version":"0.1.9"')).join('\n')).toMatch(/README\.md: installs n8n-nodes-business-messaging 0\.1\.9/));
	it('an install line in docs/ on another version', () => {
		const d = docs();
		d['docs/install.md'] += '\nnpm install n8n-nodes-business-messaging@0.0.1\n';
		expect(versions(README, d).join('\n')).toMatch(/docs\/install\.md: installs n8n-nodes-business-messaging 0\.0\.1/);
	});
	it('a minimum n8n other than the oldest the suites run', () =>
		expect(versions(README.replace(/n8n 1\.123\.81 or later/, 'n8n 1.100.0 or later')).join('\n')).toMatch(/minimum n8n 1\.100\.0/));
	it('a tested version in the compatibility table the suites do not run', () =>
		expect(versions(README.replace('| 2.41.1 |', '| 2.42.0 |')).join('\n')).toMatch(/Compatibility: tested/));
	it('a Node.js minimum other than engines.node', () =>
		expect(versions(README.replace('Node.js 20.19 or later', 'Node.js 18 or later')).join('\n')).toMatch(/Node\.js 18 or later/));
	it('another Node.js version than npm run test:node-versions runs, named in docs/compatibility.md', () => {
		const d = docs();
		d['docs/compatibility.md'] = d['docs/compatibility.md'].replace('Node.js 20.19.0 and', 'Node.js 20.20.2 and');
		expect(versions(README, d).join('\n')).toMatch(/compatibility\.md: tested on Node\.js 20\.20\.2 and 22\.23\.3, npm run test:node-versions runs 20\.19\.0 and 22\.23\.3/);
	});
});

describe('the Node.js for working on the package', () => {
	const lock = JSON.parse(read('package-lock.json')) as Parameters<typeof workingNodeProblems>[0]['lock'];
	const contributing = read('CONTRIBUTING.md');
	const working = (readme: string, text = contributing) => workingNodeProblems({ readme, contributing: text, lock });
	it('the real docs pass', () => expect(working(README)).toEqual([]));
	it('Node.js 20, on which a fresh npm install warns EBADENGINE, fails naming what needs more', () =>
		expect(working(README, contributing.replace(/Node\.js 24 with npm 11/, 'Node.js 20 with npm 11')).join('\n')).toMatch(/CONTRIBUTING\.md, Set-up: Node\.js 20; the development tools accept Node\.js 24 and no earlier one \(isolated-vm@/));
	it('"or later" fails while Node.js 25 is refused', () =>
		expect(working(README.replace(/Node\.js 24 with npm 11/, 'Node.js 24 or later with npm 11')).join('\n')).toMatch(/README\.md, Working on the package: "Node\.js 24 or later", but Node\.js 25 is refused by .*dependency-cruiser/));
});

describe('CHANGELOG.md', () => {
	const changelog = read('CHANGELOG.md');
	it('the real one passes', () => expect(changelogProblems(changelog, pkg.version)).toEqual([]));
	it('the old "## 0.2.0 - unreleased" heading fails', () =>
		expect(changelogProblems(changelog.replace('## Unreleased', '## 0.2.0 - unreleased'), pkg.version).join('\n')).toMatch(/neither "## Unreleased"/));
	it('"## Unreleased" below a release fails', () =>
		expect(changelogProblems(`${changelog.replace('## Unreleased', '## 0.2.0 - 2026-12-01')}\n## Unreleased\n- x\n`, pkg.version).join('\n')).toMatch(/below a released version/));
	it('package.json ahead of the newest release without "## Unreleased" fails', () =>
		expect(changelogProblems(changelog.replace('## Unreleased\n', ''), '0.2.0').join('\n')).toMatch(/neither CHANGELOG\.md's newest section/));
	it('package.json behind the newest release fails', () =>
		expect(changelogProblems(changelog.replace('## Unreleased', '## 0.2.0 - 2026-12-01'), '0.1.0').join('\n')).toMatch(/neither CHANGELOG\.md's newest section/));
	it('versions out of order fail', () =>
		expect(changelogProblems(`${changelog}\n## 0.3.0 - 2026-01-01\n`, pkg.version).join('\n')).toMatch(/0\.1\.0 listed above 0\.3\.0/));
});

describe('links against the repository’s address', () => {
	const repo = repositoryOf(ROOT)!;
	it('package.json names a GitHub repository', () => expect(repo.web).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/));
	it('the real docs pass', () => {
		for (const file of [...userDocs(ROOT), 'CHANGELOG.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md']) expect(addressProblems(file, read(file), repo)).toEqual([]);
	});
	it('a link on another owner fails', () =>
		expect(addressProblems('README.md', `[x](https://github.com/someone/${repo.name}/blob/main/README.md)`, repo)).toEqual([
			`README.md: https://github.com/someone/${repo.name}/blob/main/README.md is not package.json's repository ${repo.web}`,
		]));
	it('a link on the owner but another name fails', () => expect(addressProblems('docs/a.md', `[x](https://github.com/${repo.owner}/old-name)`, repo)).toHaveLength(1));
	it('a link into another branch fails', () => expect(addressProblems('docs/a.md', `[x](${repo.web}/blob/develop/README.md)`, repo).join('')).toMatch(/another branch/));
	it('links elsewhere on GitHub pass', () => expect(addressProblems('docs/a.md', '[n8n](https://github.com/n8n-io/n8n/blob/master/README.md)', repo)).toEqual([]));
});

describe('npm run release -- <version>, on a copy', () => {
	let root: string;
	beforeEach(() => {
		root = mkdtempSync(join(tmpdir(), 'bm-release-tool-'));
		for (const f of ['package.json', 'package-lock.json', 'CHANGELOG.md', 'README.md', 'docs']) cpSync(join(ROOT, f), join(root, f), { recursive: true });
	});
	afterEach(() => rmSync(root, { recursive: true, force: true }));

	it('renames "## Unreleased", sets every version, and the release’s tag check then passes', () => {
		const changed = prepareRelease(root, '0.3.0', '2026-12-24');
		expect(changed).toEqual(expect.arrayContaining(['CHANGELOG.md', 'package.json', 'package-lock.json', 'README.md', 'docs/install.md']));
		expect(read('CHANGELOG.md', root)).toMatch(/^## 0\.3\.0 - 2026-12-24$/m);
		expect(read('CHANGELOG.md', root)).not.toMatch(/^## Unreleased$/m);
		const lock = JSON.parse(read('package-lock.json', root)) as { version: string; packages: Record<string, { version: string }> };
		expect([JSON.parse(read('package.json', root)).version, lock.version, lock.packages[''].version]).toEqual(['0.3.0', '0.3.0', '0.3.0']);
		expect(new Set([read('README.md', root), ...Object.values(docs(root))].flatMap(installVersions))).toEqual(new Set(['0.3.0']));
		expect(changelogProblems(read('CHANGELOG.md', root), '0.3.0')).toEqual([]);
		const tagStep = stepScript(read('.github/workflows/release.yml'), 'check', '"$TAG"')!;
		expect(runStep(tagStep, { files: { 'package.json': read('package.json', root), 'CHANGELOG.md': read('CHANGELOG.md', root) }, env: { TAG: 'v0.3.0' } })).toBe(0);
	});

	it('refuses a version not later than the newest release, and one that is no version, changing nothing', () => {
		const before = read('CHANGELOG.md', root);
		expect(() => prepareRelease(root, '0.1.0')).toThrow(/not later than 0\.1\.0/);
		expect(() => prepareRelease(root, 'v0.3')).toThrow(/not a version/);
		expect(read('CHANGELOG.md', root)).toBe(before);
	});

	it('refuses when there is no "## Unreleased" on top', () => {
		prepareRelease(root, '0.3.0');
		expect(() => prepareRelease(root, '0.3.1')).toThrow(/no "## Unreleased"/);
	});
});

describe('npm run set-repository -- <owner>/<name> <e-mail>, on a copy', () => {
	const files = ['package.json', 'README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
	let root: string;
	beforeEach(() => {
		root = mkdtempSync(join(tmpdir(), 'bm-set-repo-'));
		for (const f of [...files, 'docs', 'examples', 'test', 'LICENSE']) cpSync(join(ROOT, f), join(root, f), { recursive: true });
	});
	afterEach(() => rmSync(root, { recursive: true, force: true }));
	const author = () => (JSON.parse(read('package.json', root)) as { author: { name: string; email: string } }).author;

	it('moves package.json and every link, and the link checks then pass on the new address', () => {
		const old = repositoryOf(root)!;
		const changed = setRepository(root, 'Acme-Labs/bm-nodes', { email: 'nodes@acme-labs.example', files });
		expect(changed).toEqual(expect.arrayContaining(['package.json', 'README.md', 'CONTRIBUTING.md']));
		const repo = repositoryOf(root)!;
		expect(repo.web).toBe('https://github.com/Acme-Labs/bm-nodes');
		for (const file of files.filter((f) => f.endsWith('.md'))) {
			expect(read(file, root)).not.toContain(`github.com/${old.owner}/${old.name}`);
			expect(addressProblems(file, read(file, root), repo)).toEqual([]);
		}
		expect(() => setRepository(root, 'not a repository', { files })).toThrow(/is not <owner>\/<name>/);
	});

	it('keeps CONTRIBUTING’s sentence about the placeholder naming the placeholder', () => {
		const before = placeholderOf(read('CONTRIBUTING.md', root));
		expect(before).toBe(`${repositoryOf(ROOT)!.owner}/${repositoryOf(ROOT)!.name}`);
		setRepository(root, 'Acme-Labs/bm-nodes', { email: 'nodes@acme-labs.example', files });
		expect(placeholderOf(read('CONTRIBUTING.md', root))).toBe(before);
	});

	it('sets the author e-mail it is given, keeping the author’s name; package.json stays as npm writes it', () => {
		const { name } = author();
		setRepository(root, 'Acme-Labs/bm-nodes', { email: 'nodes@acme-labs.example', files });
		expect(author()).toEqual({ name, email: 'nodes@acme-labs.example' });
		expect(read('package.json', root)).toBe(`${JSON.stringify(JSON.parse(read('package.json', root)), null, 2)}\n`);
	});

	it('refuses a new owner without an e-mail while the author e-mail is on the old owner’s domain, changing nothing', () => {
		expect(author().email.split('@')[1].split('.')[0]).toBe(repositoryOf(root)!.owner);
		const before = files.map((f) => read(f, root));
		expect(() => setRepository(root, 'Acme-Labs/bm-nodes', { files })).toThrow(
			/author e-mail maintainers@n8n-nodes-business-messaging\.dev is on the domain of the old owner n8n-nodes-business-messaging; give the maintainers' e-mail with the new owner: npm run set-repository -- Acme-Labs\/bm-nodes <e-mail>/,
		);
		expect(files.map((f) => read(f, root))).toEqual(before);
		expect(() => setRepository(root, 'Acme-Labs/bm-nodes', { email: 'not an address', files })).toThrow(/is not an e-mail address/);
	});

	it('needs no e-mail when only the name moves, nor for an e-mail on another domain than the owner’s', () => {
		const { email } = author();
		setRepository(root, `${repositoryOf(root)!.owner}/bm-nodes`, { files });
		expect(author().email).toBe(email);
		setRepository(root, 'Acme-Labs/bm-nodes', { email: 'maintainers@example.org', files });
		setRepository(root, 'Other-Owner/bm-nodes', { files });
		expect(author().email).toBe('maintainers@example.org');
		expect(repositoryOf(root)!.web).toBe('https://github.com/Other-Owner/bm-nodes');
	});

	it('the link check reads the address from package.json: the real README resolves', () => {
		expect(repositoryLinkProblems('README.md', README)).toEqual([]);
	});
});

describe('the first publish', () => {
	const inputs = () => ({
		contributing: read('CONTRIBUTING.md'),
		release: read('.github/workflows/release.yml'),
		test: read('.github/workflows/test.yml'),
		pkg,
		nodeChangelog: nodeChangelog(ROOT, pkg.devDependencies.node),
	});
	it('the real steps, workflow and image pass', () => expect(firstPublishProblems(inputs())).toEqual([]));
	it('steps that do not start by setting the address fail', () => {
		const i = inputs();
		i.contributing = i.contributing.replace(/^1\. \*\*Set the repository's address\*\*.*$/m, '1. **Prepare the repository** on GitHub,');
		expect(firstPublishProblems(i).join('\n')).toMatch(/step 1 does not set the repository/);
	});
	it('steps that never say the repository must be public fail', () => {
		const i = inputs();
		i.contributing = i.contributing.replace('must be **public**', 'should exist');
		expect(firstPublishProblems(i).join('\n')).toMatch(/never says must be \*\*public\*\*/);
	});
	it('steps naming another secret than the workflow reads fail', () => {
		const i = inputs();
		i.release = i.release.replace('secrets.NPM_TOKEN', 'secrets.NPM_PUBLISH_TOKEN');
		expect(firstPublishProblems(i).join('\n')).toMatch(/does not name the secret the workflow reads \(NPM_PUBLISH_TOKEN\)/);
	});
	it('an image whose npm is older than 11.5.1 fails', () => {
		const changelog = '<a id="22.9.0"></a>\n## Version 22.9.0\n* deps: upgrade npm to 10.8.3\n';
		const i = { ...inputs(), test: read('.github/workflows/test.yml').replace(/node:\d+\.\d+\.\d+-bookworm/, 'node:22.9.0-bookworm'), nodeChangelog: changelog };
		expect(firstPublishProblems(i).join('\n')).toMatch(/bundles npm 10\.8\.3; trusted publishing needs 11\.5\.1/);
	});
	it('a private package fails', () => expect(firstPublishProblems({ ...inputs(), pkg: { ...pkg, private: true } }).join('\n')).toMatch(/private/));
	it('the bundled npm is the latest upgrade at or below the version’s section', () => {
		const changelog = ['<a id="24.21.0"></a>', '## 24.21.0', '* other', '<a id="24.20.0"></a>', '## 24.20.0', '* deps: upgrade npm to 11.19.0', '* deps: upgrade npm to 11.18.0'].join('\n');
		expect(bundledNpmVersion(changelog, '24.21.0')).toBe('11.19.0');
		expect(bundledNpmVersion(changelog, '24.19.0')).toBeUndefined();
	});
	it('the guard steps pass on the real release workflow', () => expect(guardStepProblems(read('.github/workflows/release.yml'), 'repository')).toEqual([]));
});

describe('links to a heading of the same file', () => {
	it('a README link to a heading that does not exist fails', () => {
		expect(repositoryLinkProblems('README.md', `${README}\nSee [Quick start](#quickstart).\n`)).toEqual(['README.md: #quickstart (no heading #quickstart in README.md)']);
	});
});
