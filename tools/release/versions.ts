/**
 * This package's versions as the release tooling reads and writes them: CHANGELOG.md's sections and the
 * install versions in the docs. Used by `npm run release` (release.ts) and checked by test:release.
 */
export const PACKAGE = 'n8n-nodes-business-messaging';
const SEMVER = /\d+\.\d+\.\d+/;

const parts = (v: string) => v.split('.').map(Number);
/** `a` is a later version than `b` (plain major.minor.patch). */
export function newer(a: string, b: string): boolean {
	const [x, y] = [parts(a), parts(b)];
	for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
	return false;
}

export const isVersion = (v: string) => new RegExp(`^${SEMVER.source}$`).test(v);

const INSTALL_FORMS = [
	// npm install n8n-nodes-business-messaging@0.2.0
	{ find: new RegExp(`${PACKAGE}@(${SEMVER.source})`, 'g'), set: new RegExp(`(${PACKAGE}@)${SEMVER.source}`, 'g') },
	// N8N_COMMUNITY_PACKAGES='[{"name":"n8n-nodes-business-messaging","version":"0.2.0"}]'
	{
		find: new RegExp(`"name"\\s*:\\s*"${PACKAGE}"\\s*,\\s*"version"\\s*:\\s*"([^"]*)"`, 'g'),
		set: new RegExp(`("name"\\s*:\\s*"${PACKAGE}"\\s*,\\s*"version"\\s*:\\s*")[^"]*(?=")`, 'g'),
	},
];

/** Every place in a markdown text that names a version of this package for a user to install. */
export function installVersions(markdown: string): string[] {
	return INSTALL_FORMS.flatMap(({ find }) => [...markdown.matchAll(find)].map((m) => m[1]));
}

/** The markdown text with every install version of this package set to `version`. */
export function withInstallVersion(markdown: string, version: string): string {
	return INSTALL_FORMS.reduce((text, { set }) => text.replace(set, `$1${version}`), markdown);
}

export interface ChangelogSection {
	heading: string;
	/** Absent for `## Unreleased`. */
	version?: string;
	date?: string;
}

/** CHANGELOG.md's `## ` headings, in order. */
export function changelogSections(changelog: string): ChangelogSection[] {
	return [...changelog.matchAll(/^## (.*)$/gm)].map(([, heading]) => {
		const dated = /^(\d+\.\d+\.\d+) - (\d{4}-\d{2}-\d{2})$/.exec(heading);
		return dated ? { heading, version: dated[1], date: dated[2] } : { heading };
	});
}
