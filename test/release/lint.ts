/**
 * What ships is linted by n8n's rules, unchanged (CONTRIBUTING.md, "Lint"). `npm run lint` runs
 * `n8n-node lint` with ESLint's config lookup from each file's folder, so that test/, bench/, tools/ and
 * scripts/ (plain Node, never inside n8n) keep their own configs; these checks make sure that lookup cannot
 * hide anything that ships: n8n's default config, imported as n8n exports it, over nodes/, credentials/ and
 * package.json with no config file involved; no other config where shipped code lives; no rule disabled in a
 * comment; and `n8n-node cloud-support` saying eligible.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { REPO_ROOT } from '../../tools/n8n/n8n';
import { run } from '../../tools/n8n/proc';

/** Folders whose code never runs inside n8n; each has an eslint.config.mjs that leaves it to `npm run typecheck`. */
export const UNSHIPPED_DIRS = ['test', 'bench', 'tools', 'scripts', 'docs'];
const SHIPPED = ['nodes', 'credentials', 'package.json'];
/** n8n's own default config file, as `n8n-node new` writes it and `n8n-node lint` compares in strict mode. */
const N8N_DEFAULT_CONFIG = join(REPO_ROOT, 'node_modules/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs');

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim();

/** n8n's default config over what ships; one line per error or warning. */
export async function defaultConfigLint(): Promise<{ linted: string[]; problems: string[] }> {
	const { config } = (await import('@n8n/node-cli/eslint' as string)) as { config: Linter.Config[] };
	const eslint = new ESLint({ cwd: REPO_ROOT, overrideConfigFile: true, overrideConfig: config });
	const results = await eslint.lintFiles(SHIPPED);
	const linted = results.map((r) => relative(REPO_ROOT, r.filePath));
	const problems = results.flatMap((r) =>
		r.messages.map((m) => `${relative(REPO_ROOT, r.filePath)}:${m.line}:${m.column} ${m.ruleId ?? 'parse'} ${m.message}`),
	);
	return { linted, problems };
}

/** Every ESLint config file in the repository (outside node_modules, dist and dot folders). */
export function eslintConfigFiles(dir = REPO_ROOT): string[] {
	const found: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
		const path = join(dir, entry.name);
		if (entry.isDirectory()) found.push(...eslintConfigFiles(path));
		else if (/^eslint\.config\.(js|mjs|cjs|ts|mts|cts)$/.test(entry.name)) found.push(relative(REPO_ROOT, path));
	}
	return found.sort();
}

/** Problems with the lint set-up itself: the root config, strict mode, the other configs' places, disable comments. */
export function lintSetupProblems(): string[] {
	const problems: string[] = [];
	const root = readFileSync(join(REPO_ROOT, 'eslint.config.mjs'), 'utf8');
	if (normalized(root) !== normalized(readFileSync(N8N_DEFAULT_CONFIG, 'utf8'))) problems.push('eslint.config.mjs is not n8n’s default config (n8n-node cloud-support enable writes it)');
	const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { n8n?: { strict?: boolean } };
	if (pkg.n8n?.strict !== true) problems.push('package.json: n8n.strict is not true');
	const allowed = ['eslint.config.mjs', ...UNSHIPPED_DIRS.map((d) => `${d}/eslint.config.mjs`)];
	for (const file of eslintConfigFiles()) if (!allowed.includes(file)) problems.push(`${file}: an ESLint config outside ${UNSHIPPED_DIRS.join(', ')} (under config lookup it would replace n8n’s rules there)`);
	const walk = (dir: string): string[] =>
		readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
	for (const file of ['nodes', 'credentials'].flatMap(walk).filter((f) => /\.(ts|js|json)$/.test(f))) {
		const text = readFileSync(join(REPO_ROOT, file), 'utf8');
		if (/eslint-disable|eslint\s+[\w/@-]+\s*:\s*(off|0)\b/.test(text)) problems.push(`${file}: disables a lint rule in a comment`);
	}
	return problems;
}

/** What `npx n8n-node cloud-support` prints (its status; it changes nothing), as plain text: CI runners
 * get its colours, which split "Status: eligible" with escape codes. */
export async function cloudSupportStatus(): Promise<string> {
	const { stdout, stderr } = await run(join(REPO_ROOT, 'node_modules/.bin/n8n-node'), ['cloud-support'], { cwd: REPO_ROOT, timeoutMs: 120_000 });
	const colourCode = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
	return `${stdout}\n${stderr}`.replace(colourCode, '');
}
