/**
 * Versions the docs state, each against the one place it is decided (CONTRIBUTING.md, "Versions in the docs"):
 * - this package's version wherever a user copies it (`n8n-nodes-business-messaging@X`, the
 *   `N8N_COMMUNITY_PACKAGES` entry) in README.md and docs/: package.json's `version`;
 * - the README's minimum n8n: the oldest n8n the suites run (tools/n8n/versions.ts);
 * - the n8n versions the compatibility tables call tested: exactly the ones the suites run;
 * - the README's Node.js minimum: package.json's `engines.node`;
 * - the other Node.js versions docs/compatibility.md says the package's own use of Node is tested on: the ones
 *   `npm run test:node-versions` runs (tools/n8n/versions.ts);
 * - the Node.js that working on the package needs (README's "Working on the package", CONTRIBUTING's set-up): the
 *   lowest major every package in package-lock.json accepts (`engines.node`), so a fresh `npm install` warns of none;
 * - CHANGELOG.md: `## Unreleased` only on top, then `## x.y.z - YYYY-MM-DD` sections, newest first; package.json's
 *   version is the newest dated one, or the next one while `## Unreleased` is on top.
 */
import { DEFAULT_N8N_VERSION, otherNodeVersions, SMOKE_N8N_VERSIONS } from '../../tools/n8n/versions';
import { changelogSections, installVersions, newer, PACKAGE } from '../../tools/release/versions';

/** The n8n versions the suites run: the default and the smoke versions, oldest first. */
export function testedN8nVersions(): string[] {
	return [DEFAULT_N8N_VERSION, ...SMOKE_N8N_VERSIONS].sort((a, b) => (newer(a, b) ? 1 : newer(b, a) ? -1 : 0));
}

export function changelogProblems(changelog: string, packageVersion: string): string[] {
	const problems: string[] = [];
	const sections = changelogSections(changelog);
	for (const [i, s] of sections.entries()) {
		if (s.version) continue;
		if (s.heading !== 'Unreleased') problems.push(`CHANGELOG.md: "## ${s.heading}" is neither "## Unreleased" nor "## x.y.z - YYYY-MM-DD"`);
		else if (i > 0) problems.push('CHANGELOG.md: "## Unreleased" below a released version (it belongs on top)');
	}
	const dated = sections.filter((s) => s.version);
	if (!dated.length) problems.push('CHANGELOG.md: no "## x.y.z - YYYY-MM-DD" section');
	for (let i = 1; i < dated.length; i++) {
		if (!newer(dated[i - 1].version!, dated[i].version!)) problems.push(`CHANGELOG.md: ${dated[i - 1].version} listed above ${dated[i].version}`);
		if (dated[i - 1].date! < dated[i].date!) problems.push(`CHANGELOG.md: ${dated[i - 1].version} dated before ${dated[i].version}`);
	}
	const newest = dated[0]?.version;
	const unreleasedOnTop = sections[0]?.heading === 'Unreleased';
	if (newest && packageVersion !== newest && !(unreleasedOnTop && newer(packageVersion, newest))) {
		problems.push(
			`package.json's version ${packageVersion} is neither CHANGELOG.md's newest section (${newest}) nor, below "## Unreleased", a later one`,
		);
	}
	return problems;
}

export interface VersionInputs {
	packageVersion: string;
	enginesNode: string;
	readme: string;
	/** Markdown files under docs/, by repository path. */
	docs: Record<string, string>;
}

/** The text of a `## ` section of a markdown file (up to the next `## `). */
export function section(markdown: string, heading: string): string {
	const start = markdown.search(new RegExp(`^## ${heading}$`, 'm'));
	if (start < 0) return '';
	const rest = markdown.slice(start + 1);
	const end = rest.search(/^## /m);
	return end < 0 ? rest : rest.slice(0, end);
}

/** n8n versions in the first column of a markdown table's rows whose second column is not "Not …". */
export function testedVersionsInTable(markdown: string): string[] {
	return markdown
		.split('\n')
		.filter((line) => /^\|/.test(line))
		.map((line) => line.split('|').map((cell) => cell.trim()))
		.filter((cells) => cells[1] && !/^Not\b/.test(cells[2] ?? '') && !/^-+$/.test(cells[1]) && !/^n8n$/.test(cells[1]))
		.flatMap((cells) => cells[1].match(/\d+\.\d+\.\d+/g) ?? []);
}

export function versionProblems(input: VersionInputs): string[] {
	const problems: string[] = [];
	for (const [file, text] of [['README.md', input.readme], ...Object.entries(input.docs)]) {
		for (const v of installVersions(text)) if (v !== input.packageVersion) problems.push(`${file}: installs ${PACKAGE} ${v}, package.json's version is ${input.packageVersion}`);
	}
	const tested = testedN8nVersions();
	const minimum = /\bn8n (\d+\.\d+\.\d+) or later\b/.exec(input.readme)?.[1];
	if (minimum !== tested[0]) problems.push(`README.md: minimum n8n ${minimum ?? '(none stated as "n8n x.y.z or later")'}, the oldest the suites run is ${tested[0]}`);
	const sorted = (list: string[]) => [...new Set(list)].sort();
	const compatibility = section(input.readme, 'Compatibility');
	if (JSON.stringify(sorted(testedVersionsInTable(compatibility))) !== JSON.stringify(sorted(tested))) {
		problems.push(`README.md, Compatibility: tested ${JSON.stringify(sorted(testedVersionsInTable(compatibility)))}, the suites run ${JSON.stringify(sorted(tested))}`);
	}
	const compatibilityDoc = input.docs['docs/compatibility.md'];
	if (compatibilityDoc !== undefined && JSON.stringify(sorted(testedVersionsInTable(compatibilityDoc))) !== JSON.stringify(sorted(tested))) {
		problems.push(`docs/compatibility.md: tested ${JSON.stringify(sorted(testedVersionsInTable(compatibilityDoc)))}, the suites run ${JSON.stringify(sorted(tested))}`);
	}
	const otherNodes = /\btested on Node\.js (\d+\.\d+\.\d+) and (\d+\.\d+\.\d+) too\b/.exec(compatibilityDoc ?? '')?.slice(1) ?? [];
	if (compatibilityDoc !== undefined && JSON.stringify(otherNodes) !== JSON.stringify(otherNodeVersions())) {
		problems.push(`docs/compatibility.md: tested on Node.js ${otherNodes.join(' and ') || '(none stated as "tested on Node.js x.y.z and x.y.z too")'}, npm run test:node-versions runs ${otherNodeVersions().join(' and ')}`);
	}
	const node = /\bNode\.js (\d+(?:\.\d+)*) or later\b/.exec(compatibility)?.[1];
	if (`>=${node}` !== input.enginesNode) problems.push(`README.md, Compatibility: Node.js ${node ?? '(none stated)'} or later, package.json's engines.node is ${input.enginesNode}`);
	return problems;
}

// semver ships no types; the two functions used here, as npm itself applies `engines`.
const semver = require('semver') as { satisfies: (version: string, range: string) => boolean; validRange: (range: string) => string | null };

type LockPackages = { packages: Record<string, { version?: string; engines?: unknown }> };

/** Every package in the lock that states `engines.node`, by name@version. */
function nodeRanges(lock: LockPackages): Array<{ name: string; range: string }> {
	return Object.entries(lock.packages)
		.map(([path, entry]) => ({ name: `${path.replace(/^.*node_modules\//, '') || '(root)'}@${entry.version ?? ''}`, range: (entry.engines as { node?: unknown } | undefined)?.node }))
		.filter((e): e is { name: string; range: string } => typeof e.range === 'string' && semver.validRange(e.range) !== null);
}

/** The packages of the lock that refuse Node.js `version`. */
export function refusingNode(lock: LockPackages, version: string): string[] {
	return nodeRanges(lock).filter((e) => !semver.satisfies(version, e.range)).map((e) => `${e.name} (${e.range})`);
}

/**
 * The lowest Node.js major whose every release every package in the lock accepts, and the packages that accept
 * no release of an earlier major (what forces it).
 */
export function nodeMajorForLock(lock: LockPackages): { major: number; needs: string[] } {
	for (let major = 18; major < 100; major++) {
		if (refusingNode(lock, `${major}.0.0`).length) continue;
		const below = Array.from({ length: major - 18 }, (_, i) => new Set(refusingNode(lock, `${18 + i}.999.999`)));
		return { major, needs: refusingNode(lock, `${major - 1}.999.999`).filter((name) => below.every((refused) => refused.has(name))) };
	}
	throw new Error('no Node.js major satisfies every engines.node in package-lock.json');
}

/** Where the docs state the Node.js for working on the package: "Node.js <major> with npm <major>". */
const WORKING_NODE = /\bNode\.js (\d+)( or later)? with npm \d+\b/;

export function workingNodeProblems(input: { readme: string; contributing: string; lock: LockPackages }): string[] {
	const { major, needs } = nodeMajorForLock(input.lock);
	const problems: string[] = [];
	for (const [where, text] of [
		['README.md, Working on the package', section(input.readme, 'Working on the package')],
		['CONTRIBUTING.md, Set-up', section(input.contributing, 'Set-up')],
	] as const) {
		const stated = WORKING_NODE.exec(text);
		if (!stated) {
			problems.push(`${where}: no "Node.js <major> with npm <major>"`);
		} else if (Number(stated[1]) !== major) {
			problems.push(`${where}: Node.js ${stated[1]}; the development tools accept Node.js ${major} and no earlier one (${needs.join(', ')})`);
		} else if (stated[2] && refusingNode(input.lock, `${major + 1}.0.0`).length) {
			problems.push(`${where}: "Node.js ${major} or later", but Node.js ${major + 1} is refused by ${refusingNode(input.lock, `${major + 1}.0.0`).join(', ')}`);
		}
	}
	return problems;
}
