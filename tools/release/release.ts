/**
 * npm run release -- <version>: prepares a release on a clean `main` (CONTRIBUTING.md, "Each release").
 * Renames CHANGELOG.md's `## Unreleased` to `## <version> - <today>`, sets the version in package.json and
 * package-lock.json, and sets every install version in README.md and docs/ to it. Commits, tags and pushes
 * nothing: it prints those commands. The release workflow then finds the tag, the version and the dated
 * section agreeing.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { changelogSections, isVersion, newer, withInstallVersion } from './versions';

/** README.md and every markdown file under docs/ (repository paths). */
export function userDocs(root: string): string[] {
	const walk = (dir: string): string[] =>
		readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
			e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
		);
	return ['README.md', ...walk('docs')];
}

/** Does the changes for `version` in `root`; returns the files it changed. Throws, changing nothing, when it cannot. */
export function prepareRelease(root: string, version: string, today = new Date().toISOString().slice(0, 10)): string[] {
	const read = (file: string) => readFileSync(join(root, file), 'utf8');
	if (!isVersion(version)) throw new Error(`"${version}" is not a version (major.minor.patch, such as 0.3.0)`);
	const changelog = read('CHANGELOG.md');
	const sections = changelogSections(changelog);
	if (sections[0]?.heading !== 'Unreleased') throw new Error('CHANGELOG.md has no "## Unreleased" section on top: write what changed for users there first');
	const body = changelog.slice(changelog.indexOf('## Unreleased') + '## Unreleased'.length).split(/^## /m)[0];
	if (!body.trim()) throw new Error('CHANGELOG.md\'s "## Unreleased" section is empty');
	const released = sections.find((s) => s.version)?.version;
	if (released && !newer(version, released)) throw new Error(`${version} is not later than ${released}, the newest release in CHANGELOG.md`);

	const changed = new Map<string, string>();
	changed.set('CHANGELOG.md', changelog.replace(/^## Unreleased$/m, `## ${version} - ${today}`));
	for (const file of ['package.json', 'package-lock.json']) {
		const json = JSON.parse(read(file)) as { version: string; packages?: Record<string, { version?: string }> };
		json.version = version;
		if (json.packages?.['']) json.packages[''].version = version;
		changed.set(file, `${JSON.stringify(json, null, 2)}\n`);
	}
	for (const file of userDocs(root)) changed.set(file, withInstallVersion(read(file), version));
	const written = [...changed].filter(([file, text]) => text !== read(file));
	for (const [file, text] of written) writeFileSync(join(root, file), text);
	return written.map(([file]) => file);
}

if (require.main === module) {
	const [version] = process.argv.slice(2);
	try {
		const files = prepareRelease(join(__dirname, '../..'), version ?? '');
		process.stdout.write(
			[
				`Prepared ${version}: ${files.join(', ')}.`,
				'Next (CONTRIBUTING.md, "Each release"):',
				'  npm test',
				`  git commit -am "Release ${version}" && git tag v${version} && git push origin main v${version}`,
				'',
			].join('\n'),
		);
	} catch (error) {
		process.stderr.write(`npm run release -- <version>: ${error instanceof Error ? error.message : String(error)}\n`);
		process.exit(1);
	}
}
