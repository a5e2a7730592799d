/**
 * The repository's address, written once in package.json's `repository` (CONTRIBUTING.md, "The repository's
 * address"). The docs link into it with absolute links (they must work on the npm page too), so
 * `npm run set-repository -- <owner>/<name> [<e-mail>]` rewrites package.json and every link in one go;
 * test:release fails on a link into another address. It rewrites links (`github.com/<owner>/<name>`) only:
 * text that names a repository as `<owner>/<name>`, such as CONTRIBUTING's sentence about the placeholder,
 * stays. The author's e-mail moves with the owner: one on the old owner's domain
 * (`maintainers@n8n-nodes-business-messaging.dev`) cannot be carried to a new owner, whose domain nobody
 * here knows, so a new owner needs the maintainers' e-mail given with it.
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

interface Author {
	name?: string;
	email?: string;
}

/** The e-mail's domain is the owner's: its first label is the owner's name (`…@acme.dev` for `acme`). */
const onOwnersDomain = (email: string, owner: string) => email.split('@')[1]?.split('.')[0].toLowerCase() === owner.toLowerCase();

/**
 * Moves the address to `ownerAndName` in package.json and every file that names the old one, and sets the
 * author's e-mail to `email` when given; returns the files changed. Throws, changing nothing, when the
 * owner changes and the author's e-mail is on the old owner's domain but no e-mail is given.
 */
export function setRepository(root: string, ownerAndName: string, options: { email?: string; files?: string[] } = {}): string[] {
	const m = /^([\w.-]+)\/([\w.-]+)$/.exec(ownerAndName.replace(/^https:\/\/github\.com\//, '').replace(/\.git$/, ''));
	if (!m) throw new Error(`"${ownerAndName}" is not <owner>/<name>`);
	const old = repositoryOf(root);
	if (!old) throw new Error('package.json has no repository.url of the form git+https://github.com/<owner>/<name>.git');
	const { email, files = trackedFiles(root) } = options;
	if (email !== undefined && !/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(email)) throw new Error(`"${email}" is not an e-mail address`);
	const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { author?: Author };
	const author = pkg.author?.email ?? '';
	if (email === undefined && old.owner.toLowerCase() !== m[1].toLowerCase() && onOwnersDomain(author, old.owner)) {
		throw new Error(
			`package.json's author e-mail ${author} is on the domain of the old owner ${old.owner}; give the maintainers' e-mail with the new owner: npm run set-repository -- ${m[1]}/${m[2]} <e-mail>`,
		);
	}
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
		let next = text.split(from).join(to);
		if (file === 'package.json' && email !== undefined) {
			const json = JSON.parse(next) as { author?: Author };
			json.author = { ...json.author, email };
			next = `${JSON.stringify(json, null, 2)}\n`;
		}
		if (next !== text) {
			writeFileSync(path, next);
			changed.push(file);
		}
	}
	return changed;
}

if (require.main === module) {
	try {
		const [ownerAndName = '', email] = process.argv.slice(2);
		const files = setRepository(join(__dirname, '../..'), ownerAndName, { email });
		process.stdout.write(`Repository set to ${ownerAndName}${email ? `, author e-mail ${email},` : ''} in ${files.length} files: ${files.join(', ')}\nCommit them, then push to that repository.\n`);
	} catch (error) {
		process.stderr.write(`npm run set-repository -- <owner>/<name> [<e-mail>]: ${error instanceof Error ? error.message : String(error)}\n`);
		process.exit(1);
	}
}
