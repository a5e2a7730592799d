/**
 * The npm the release pins: the one bundled with the Node of the release image (`node:X.Y.Z-…` in test.yml
 * and the publish job; first-publish.ts reads its npm version from that Node's changelog). The first-publish
 * checks run that npm's own `npm trust` and `npm publish`, offline when they can: the `npm` on PATH when it
 * is that version (in the image itself), else npm@<version> from npm's cache (`npm exec --offline`), else
 * fetched from the npm registry once (then cached). Nothing else is asked of the network.
 */
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface PinnedNpm {
	version: string;
	/** The npm executable (npm-cli.js, run with the current Node). */
	bin: string;
	/** The npm package's folder: its docs (`docs/content/commands/npm-trust.md`) are `npm help`'s text. */
	root: string;
}

/**
 * The environment of a maintainer's terminal: without the variables `npm run` sets for its script
 * (`npm_package_*`, `npm_lifecycle_*`, `npm_config_local_prefix`, …), which would make an npm started here
 * act on this repository's package.json instead of the folder it runs in. Kept: where npm's cache, user
 * config and registry are.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const keep = /^npm_config_(cache|userconfig|registry|cafile)$/i;
	const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || keep.test(key)));
	return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

/** Runs `command` and returns its exit code and output (stdout, then stderr). */
export function runCommand(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }) {
	const result = spawnSync(command, args, { cwd: options.cwd, env: cleanEnv(options.env), encoding: 'utf8', timeout: options.timeoutMs ?? 120_000 });
	const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? `\n${result.error.message}` : ''}`;
	return { code: result.status ?? 1, output };
}

/** Runs the pinned npm with `args` in `cwd`. */
export function runNpm(npm: PinnedNpm, args: string[], cwd: string, env: Record<string, string> = {}) {
	return runCommand(process.execPath, [npm.bin, ...args], { cwd, env, timeoutMs: 300_000 });
}

/** The line of npm's output that says what went wrong ("npm error notarget No matching version …"). */
const errorLine = (text: string) => {
	const lines = text.trim().split('\n').filter((l) => l.trim() && !/Unknown (user|env) config|complete log of this run|npm error code /.test(l));
	return lines.find((l) => /npm error/.test(l)) ?? lines.pop() ?? '';
};

/** The pinned npm, or an Error that says which npm is missing and how to get it. */
export function findPinnedNpm(version: string, image: string): PinnedNpm {
	const candidates: Array<{ how: string; args: string[] }> = [
		{ how: 'the npm on PATH', args: ['-c', 'command -v npm'] },
		{ how: 'npm’s cache', args: ['exec', '--yes', '--offline', `--package=npm@${version}`, '-c', 'command -v npm'] },
		{ how: 'the npm registry', args: ['exec', '--yes', '--prefer-offline', `--package=npm@${version}`, '-c', 'command -v npm'] },
	];
	const tried: string[] = [];
	for (const { how, args } of candidates) {
		const found = args[0] === '-c' ? runCommand('sh', args, { cwd: tmpdir() }) : runCommand('npm', args, { cwd: tmpdir(), timeoutMs: 180_000 });
		if (found.code !== 0) {
			tried.push(`${how}: ${errorLine(found.output)}`);
			continue;
		}
		const bin = realpathSync(found.output.trim().split('\n').pop()!);
		const actual = runCommand(process.execPath, [bin, '--version'], { cwd: tmpdir() }).output.trim().split('\n').pop();
		if (actual === version) return { version, bin, root: dirname(dirname(bin)) };
		tried.push(`${how}: npm ${actual}`);
	}
	throw new Error(
		`npm ${version}, the npm of the release image ${image}, is not at hand (${tried.join('; ')}). ` +
			`It is needed once from the npm registry, then from npm's cache: npm exec --yes --package=npm@${version} -- npm --version`,
	);
}

/** `npm help <command>`'s text, from the pinned npm's own docs (no man, no browser). */
export const commandDocPath = (npm: PinnedNpm, command: string) => join(npm.root, 'docs/content/commands', `npm-${command}.md`);
