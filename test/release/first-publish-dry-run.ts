/**
 * A dry run of CONTRIBUTING.md's first publish: every command its steps write (code spans starting with
 * `npm ` or `git `), in the order written, on a scratch clone of this work tree whose `origin` is a local
 * bare repository standing in for GitHub. What runs offline runs for real: set-repository, `npm run release`,
 * git's commit, tag and push. A pushed version tag plays the Release run on the pushed commit: the check
 * job's guard steps, the publish job's npm check and its `npm publish` as a dry run without provenance (which
 * needs GitHub's OIDC token), with the pinned npm. The `npm trust` line runs with `--dry-run`. What needs
 * GitHub, an npm account or the whole test suite is logged as not run, with why; a command the dry run does
 * not know fails it, so the steps cannot grow a command nobody tried.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { userDocs } from '../../tools/release/release';
import { repositoryOf } from '../../tools/release/repository';
import { firstPublishCommands, placeholderOf } from './first-publish';
import { type PinnedNpm, runCommand, runNpm } from './pinned-npm';
import { addressProblems } from './repository';
import { words } from './trust';
import { runStep, stepScript } from './workflows';

/** Where the scratch clone moves the repository, and the e-mail it gives set-repository. */
export const SCRATCH_REPOSITORY = 'Acme-Labs/bm-nodes';
export const SCRATCH_EMAIL = 'maintainers@acme-labs.example';

interface Context {
	dir: string;
	work: string;
	npm: PinnedNpm;
	log: string[];
	/** Version tags pushed so far: the Release runs started. */
	released: string[];
}

type Outcome = { problem?: string; notRun?: string };

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe', encoding: 'utf8' });
const tail = (output: string) => output.trim().split('\n').slice(-12).join('\n');
const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

/** A git repository holding this work tree's tracked files as they are now, `origin` a local bare repository. */
function scratchClone(root: string, dir: string, contributing?: string): string {
	const work = join(dir, 'work');
	for (const file of git(root, 'ls-files', '-z').split('\0').filter((f) => f && existsSync(join(root, f)))) {
		mkdirSync(dirname(join(work, file)), { recursive: true });
		copyFileSync(join(root, file), join(work, file));
	}
	if (contributing !== undefined) writeFileSync(join(work, 'CONTRIBUTING.md'), contributing);
	symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'));
	git(work, 'init', '-q', '-b', 'main');
	for (const [key, value] of [['user.name', 'First publish dry run'], ['user.email', 'dry-run@example.invalid'], ['commit.gpgsign', 'false'], ['tag.gpgsign', 'false']]) git(work, 'config', key, value);
	git(work, 'add', '-A');
	git(work, 'commit', '-q', '-m', 'The work tree');
	git(dir, 'init', '-q', '--bare', 'origin.git');
	git(work, 'remote', 'add', 'origin', join(dir, 'origin.git'));
	return work;
}

/** Runs a command line as a maintainer's shell would (its words; double quotes group). */
function shell(ctx: Context, command: string): Outcome {
	const [program, ...args] = words(command);
	const { code, output } = runCommand(program, args, { cwd: ctx.work, timeoutMs: 300_000 });
	return code === 0 ? {} : { problem: `exit ${code}:\n${tail(output)}` };
}

function setRepository(ctx: Context, command: string, repository: string, email: string | undefined): Outcome {
	const before = placeholderOf(read(ctx.work, 'CONTRIBUTING.md'));
	const ran = shell(ctx, command);
	if (ran.problem) return ran;
	const repo = repositoryOf(ctx.work);
	const problems: string[] = [];
	if (repo?.web !== `https://github.com/${repository}`) problems.push(`package.json's repository is ${repo?.web}, not https://github.com/${repository}`);
	const author = (JSON.parse(read(ctx.work, 'package.json')) as { author?: { email?: string } }).author?.email;
	if (email !== undefined && author !== email) problems.push(`package.json's author e-mail is ${author}, not ${email}`);
	const after = placeholderOf(read(ctx.work, 'CONTRIBUTING.md'));
	if (!before || after !== before) problems.push(`CONTRIBUTING.md's sentence about the placeholder named ${before ?? '(no placeholder)'} and now names ${after ?? '(none)'}`);
	if (repo) {
		for (const file of [...userDocs(ctx.work), 'CHANGELOG.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md']) problems.push(...addressProblems(file, read(ctx.work, file), repo));
	}
	return problems.length ? { problem: problems.join('\n') } : {};
}

/**
 * The Release run a pushed version tag starts (release.yml), on a clone of the pushed tag: the check job's
 * guard steps, then the publish job's npm check and `npm publish` (a dry run, offline, without provenance).
 */
function releaseRun(ctx: Context, tag: string, repository: string): Outcome {
	const rel = join(ctx.dir, `release-${tag}`);
	git(ctx.dir, 'clone', '-q', '--branch', tag, join(ctx.dir, 'origin.git'), rel);
	symlinkSync(join(ctx.work, 'node_modules'), join(rel, 'node_modules'));
	const release = read(rel, '.github/workflows/release.yml');
	const problems: string[] = [];
	const guard = (job: string, marker: string, what: string, options: Parameters<typeof runStep>[1]) => {
		const script = stepScript(release, job, marker);
		const code = script === undefined ? -1 : runStep(script, options);
		if (code !== 0) problems.push(`the Release run of ${tag}: ${what} ${script === undefined ? 'is missing' : `fails (exit ${code})`}`);
	};
	guard('check', '"$TAG"', 'the tag check', { files: { 'package.json': read(rel, 'package.json'), 'CHANGELOG.md': read(rel, 'CHANGELOG.md') }, env: { TAG: tag } });
	guard('check', 'repository.url', `the repository check in ${repository}`, { files: { 'package.json': read(rel, 'package.json') }, env: { REPOSITORY: repository } });
	guard('check', '$VISIBILITY', 'the visibility check (the scratch repository stands for a public one)', { env: { VISIBILITY: 'public' } });
	guard('publish', 'npm --version', `the npm check with npm ${ctx.npm.version}`, { npmVersion: ctx.npm.version });
	if (problems.length) return { problem: problems.join('\n') };
	ctx.log.push(`  → the Release run of ${tag}: the tag, repository, visibility and npm checks passed; npm ci not run (the registry; the test job installs the same lock)`);

	const line = /^\s*(npm publish\b.*)$/m.exec(stepScript(release, 'publish', 'npm publish') ?? '')?.[1];
	if (!line) return { problem: `the Release run of ${tag}: release.yml's publish job has no npm publish line` };
	const args = [...words(line).slice(1).map((a) => (a === '--provenance' ? '--provenance=false' : a)), '--dry-run', '--offline'];
	const name = (JSON.parse(read(rel, 'package.json')) as { name: string }).name;
	const published = runNpm(ctx.npm, args, rel);
	if (published.code !== 0 || !published.output.includes(`+ ${name}@${tag.slice(1)}`)) {
		return { problem: `the Release run of ${tag}: npm ${args.join(' ')} (npm ${ctx.npm.version}) exit ${published.code}:\n${tail(published.output)}` };
	}
	ctx.log.push(`  → the Release run of ${tag}: ran npm ${args.join(' ')} (npm ${ctx.npm.version}, prepack's build included); not run: provenance and n8n's scanner on the registry (the real run does both)`);
	ctx.released.push(tag);
	return {};
}

function push(ctx: Context, command: string, repository: string): Outcome {
	const ran = shell(ctx, command);
	if (ran.problem) return ran;
	for (const tag of words(command).filter((w) => /^v\d+\.\d+\.\d+$/.test(w))) {
		const outcome = releaseRun(ctx, tag, repository);
		if (outcome.problem) return outcome;
	}
	return {};
}

function trust(ctx: Context, command: string, repository: string): Outcome {
	if (!ctx.released.length) return { problem: 'runs before any version is published: npm attaches a trusted publisher only to a package that exists' };
	const args = [...words(command).slice(1), '--dry-run'];
	const { code, output } = runNpm(ctx.npm, args, ctx.work);
	const problems: string[] = [];
	if (code !== 0) problems.push(`npm ${args.join(' ')} (npm ${ctx.npm.version}) exit ${code}:\n${tail(output)}`);
	else {
		if (!new RegExp(`^repository: ${repository}$`, 'm').test(output)) problems.push(`the trust it would create is not for ${repository}:\n${tail(output)}`);
		if (!/^permissions: (.*, )?publish(,|$)/m.test(output)) problems.push(`the trust it would create does not let the workflow publish:\n${tail(output)}`);
		const warnings = output.split('\n').filter((l) => /npm warn trust/.test(l));
		if (warnings.length) problems.push(`npm warns:\n${warnings.join('\n')}`);
	}
	return problems.length ? { problem: problems.join('\n') } : {};
}

/** Each command form the first publish may use, and how the dry run runs it. */
const HANDLERS: Array<[RegExp, (ctx: Context, command: string, m: RegExpExecArray) => Outcome]> = [
	[/^npm run set-repository -- (\S+)(?: (\S+))?$/, (ctx, command, m) => setRepository(ctx, command, m[1], m[2])],
	[/^npm run release -- \d+\.\d+\.\d+$/, shell],
	[/^git commit -am "[^"]+"$/, shell],
	[/^git tag v\d+\.\d+\.\d+$/, shell],
	[/^git push origin( [\w.-]+)+$/, (ctx, command) => push(ctx, command, SCRATCH_REPOSITORY)],
	[/^npm trust github .+$/, (ctx, command) => trust(ctx, command, SCRATCH_REPOSITORY)],
	[/^npm run test:release$/, () => ({ notRun: 'the suite that runs this dry run; set-repository’s result went through its link check' })],
	[/^npm test$/, () => ({ notRun: 'the whole suite: CI runs it on the push, and the Release run before publishing' })],
];

export interface DryRun {
	/** What ran and what did not, in order. */
	log: string[];
	problems: string[];
}

/** Follows the first publish of `contributing` (default: root's CONTRIBUTING.md) on a scratch clone of `root`. */
export function dryRunFirstPublish(root: string, npm: PinnedNpm, contributing?: string): DryRun {
	const dir = mkdtempSync(join(tmpdir(), 'bm-first-publish-'));
	const ctx: Context = { dir, work: '', npm, log: [], released: [] };
	const problems: string[] = [];
	try {
		ctx.work = scratchClone(root, dir, contributing);
		const commands = firstPublishCommands(read(ctx.work, 'CONTRIBUTING.md'));
		if (!commands.length) problems.push('CONTRIBUTING.md, First publish: no commands');
		for (const written of commands) {
			const command = written.replace(/<owner>\/<name>/g, SCRATCH_REPOSITORY).replace(/<e-mail>/g, SCRATCH_EMAIL);
			const handler = HANDLERS.map(([pattern, run]) => [pattern.exec(command), run] as const).find(([m]) => m);
			const entry = ctx.log.push(`ran: ${command}`) - 1;
			const outcome: Outcome = /<[^>]+>/.test(command)
				? { problem: `a placeholder the dry run cannot fill (it fills <owner>/<name> and <e-mail>)` }
				: handler
					? handler[1](ctx, command, handler[0]!)
					: { problem: 'the dry run does not know this command: teach test/release/first-publish-dry-run.ts to run it, or why it cannot run offline' };
			if (outcome.problem) {
				ctx.log[entry] = `failed: ${command}`;
				problems.push(`CONTRIBUTING.md, First publish: \`${written}\`: ${outcome.problem}`);
				break;
			}
			if (outcome.notRun) ctx.log[entry] = `not run: ${written} (${outcome.notRun})`;
		}
		if (!problems.length && !ctx.released.length) problems.push('CONTRIBUTING.md, First publish: no command pushes a version tag, so no Release run publishes');
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	return { log: ctx.log, problems };
}
