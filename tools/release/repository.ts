/**
 * The repository's address, written once in package.json's `repository` (CONTRIBUTING.md, "The repository's
 * address"). The docs link into it with absolute links (they must work on the npm page too), so
 * `npm run set-repository -- <owner>/<name>` rewrites package.json and every link in one go; test:release
 * fails on a link into another address.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Repository {
	owner: string;
	name: string;
	/** https://github.com/<owner>/<name> */
	web: string;
}

/** The GitHub repository in package.json's `repository.url` (`git+https://github.com/<owner>/<name>.git`). */
export function repositoryOf(root: string): Repository | undefined {
	const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { repository?: { url?: string } };
	const m = /^git\+https:\/\/github\.com\/([\w.-]+)\/([\w.-]+?)\.git$/.exec(pkg.repository?.url ?? '');
	return m ? { owner: m[1], name: m[2], web: `https://github.com/${m[1]}/${m[2]}` } : undefined;
}

/** Text files git tracks (falls back to none outside a checkout). */
function trackedFiles(root: string): string[] {
	try {
		return execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
	} catch {
		return [];
	}
}

/** Moves the address to `ownerAndName` in package.json and every file that names the old one; returns them. */
export function setRepository(root: string, ownerAndName: string, files = trackedFiles(root)): string[] {
	const m = /^([\w.-]+)\/([\w.-]+)$/.exec(ownerAndName.replace(/^https:\/\/github\.com\//, '').replace(/\.git$/, ''));
	if (!m) throw new Error(`"${ownerAndName}" is not <owner>/<name>`);
	const old = repositoryOf(root);
	if (!old) throw new Error('package.json has no repository.url of the form git+https://github.com/<owner>/<name>.git');
	const from = `github.com/${old.owner}/${old.name}`;
	const to = `github.com/${m[1]}/${m[2]}`;
	const changed: string[] = [];
	for (const file of new Set(['package.json', ...files])) {
		if (/\.(png|svg|ico|gz|tgz)$/.test(file) || file === 'package-lock.json') continue;
		const path = join(root, file);
		let text: string;
		try {
			text = readFileSync(path, 'utf8');
		} catch {
			continue; // listed but deleted
		}
		const next = text.split(from).join(to);
		if (next !== text) {
			writeFileSync(path, next);
			changed.push(file);
		}
	}
	return changed;
}

if (require.main === module) {
	try {
		const files = setRepository(join(__dirname, '../..'), process.argv[2] ?? '');
		process.stdout.write(`Repository set to ${process.argv[2]} in ${files.length} files: ${files.join(', ')}\nCommit them, then push to that repository.\n`);
	} catch (error) {
		process.stderr.write(`npm run set-repository -- <owner>/<name>: ${error instanceof Error ? error.message : String(error)}\n`);
		process.exit(1);
	}
}
