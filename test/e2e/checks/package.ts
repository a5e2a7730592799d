/**
 * Checks of the published tarball: only what n8n loads (plus README, LICENSE, package.json), nothing stale,
 * every declared node, credential and icon present, README links that resolve on the registry page, the
 * compiled code asking n8n for nothing n8n Cloud forbids, and n8n's community-package scanner rules over
 * the source and the tarball. Run by the release suite (test/release/run.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../../../tools/n8n/n8n';
import { run } from '../../../tools/n8n/proc';
import { headingAnchors } from '../../helpers/markdown';
import { assert, assertEqual, type Check } from '../lib/report';
import { TOOLS_DIR } from '../../../tools/n8n/registry';

/** Files of a tarball (without the leading `package/`). */
async function tarballFiles(tarball: string): Promise<string[]> {
	const { stdout } = await run('tar', ['-tzf', tarball]);
	return stdout
		.split('\n')
		.filter((line) => line && !line.endsWith('/'))
		.map((line) => line.replace(/^package\//, ''))
		.sort();
}

/** The source a compiled or copied file comes from: `.js` from `.ts`; `.json` and icons copied by gulp. */
function sourceOf(file: string): string {
	const rel = file.replace(/^dist\//, '');
	return rel.endsWith('.js') ? rel.replace(/\.js$/, '.ts') : rel;
}

/** Relative link and image targets in markdown (`[..](x)`, `![..](x)`): not URLs, not in-page anchors. */
export function relativeLinkTargets(markdown: string): string[] {
	const targets = [...markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
	return targets.filter((t) => !/^(https?:|mailto:|#)/i.test(t)).map((t) => t.replace(/#.*$/, ''));
}

/** The repository's web address, from package.json's `repository` (the one place it is written). */
export function repositoryWebUrl(): string {
	const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { repository?: { url?: string } };
	return (pkg.repository?.url ?? '').replace(/^git\+/, '').replace(/\.git$/, '');
}

/**
 * Links in a markdown file of this repository that do not resolve: absolute links into the repository
 * (`<repository>/blob/main/<path>#anchor`, the form that works on the npm page too), links to a heading of
 * the same file, and, outside the README, relative links; each must name a file that exists here and, for
 * markdown, a heading it has. (The README's relative links are checked against the tarball instead.)
 */
export function repositoryLinkProblems(file: string, markdown: string): string[] {
	const base = `${repositoryWebUrl()}/blob/main/`;
	const problems: string[] = [];
	// Code spans show links as text (an example in CONTRIBUTING.md); they link nowhere.
	for (const [, target] of markdown.replace(/`[^`\n]*`/g, '``').matchAll(/\]\(([^)\s]+)\)/g)) {
		let path: string;
		if (target.startsWith(base)) path = target.slice(base.length);
		else if (target.startsWith('#')) path = `${file}${target}`;
		else if (/^(https?:|mailto:)/i.test(target) || file === 'README.md') continue;
		else path = join(dirname(file), target);
		const [filePath, anchor] = path.split('#');
		if (!existsSync(join(REPO_ROOT, filePath))) problems.push(`${file}: ${target} (no file ${filePath})`);
		else if (anchor && filePath.endsWith('.md') && !headingAnchors(readFileSync(join(REPO_ROOT, filePath), 'utf8')).has(anchor)) {
			problems.push(`${file}: ${target} (no heading #${anchor} in ${filePath})`);
		}
	}
	return problems;
}

/** What compiled nodes and credentials may load on n8n Cloud (n8n's no-restricted-imports rule, less what this package needs not). */
const CLOUD_MODULES = ['n8n-workflow', 'lodash', 'luxon', 'zod', 'crypto', 'node:crypto'];

export function packageChecks(tarball: string, unpackedDir: string): Check[] {
	return [
		{
			name: 'the published tarball holds only what n8n loads: compiled nodes and credential (no tests, sources, maps or stale files), their icons and codex files, README, LICENSE, the example workflows',
			fn: async () => {
				const files = await tarballFiles(tarball);
				// examples/: workflows a user imports (the README links them), shipped as JSON.
				const outside = files.filter(
					(f) => !['README.md', 'LICENSE', 'package.json'].includes(f) && !f.startsWith('dist/') && !/^examples\/[\w-]+\.json$/.test(f),
				);
				assertEqual(outside, [], 'files outside dist/ besides README, LICENSE, package.json and the example workflows');
				const unwanted = files.filter((f) => /\.(map|ts|tsbuildinfo)$/.test(f) || /(^|\/)(test|tests|__tests__)\//.test(f));
				assertEqual(unwanted, [], 'source maps, type declarations, sources or tests in the tarball');
				const stale = files.filter((f) => f.startsWith('dist/') && !existsSync(join(REPO_ROOT, sourceOf(f))));
				assertEqual(stale, [], 'compiled files without a source (stale build output)');
				const pkg = JSON.parse(readFileSync(join(unpackedDir, 'package.json'), 'utf8')) as {
					n8n: { nodes: string[]; credentials: string[] };
					dependencies?: object;
				};
				const declared = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
				assertEqual(declared.filter((f) => !files.includes(f)), [], 'nodes and credentials package.json declares but the tarball lacks');
				assertEqual(pkg.dependencies ?? {}, {}, 'runtime dependencies');
				// Every `file:` icon a compiled node or credential names, resolved as n8n does (next to the file).
				const missingIcons: string[] = [];
				for (const file of declared) {
					const code = readFileSync(join(unpackedDir, file), 'utf8');
					for (const [, icon] of code.matchAll(/'file:([^']+)'/g)) {
						const target = join(file, '..', icon);
						if (!files.includes(target)) missingIcons.push(`${file} → ${target}`);
					}
				}
				assertEqual(missingIcons, [], 'icons named by nodes and credentials but missing');
			},
		},
		{
			name: 'the README in the tarball renders on the registry page: every relative link and image points at a file the tarball holds',
			fn: async () => {
				const files = await tarballFiles(tarball);
				const readme = readFileSync(join(unpackedDir, 'README.md'), 'utf8');
				const broken = relativeLinkTargets(readme).filter((t) => !files.includes(t.replace(/^\.\//, '')));
				assertEqual(broken, [], 'README links to files that are not in the tarball');
			},
		},
		{
			name: 'the compiled nodes and credential load only what n8n provides (n8n-workflow, lodash, luxon, zod, node:crypto) and use no process, environment, timers or file system, as n8n Cloud requires',
			fn: async () => {
				const files = (await tarballFiles(tarball)).filter((f) => f.startsWith('dist/') && f.endsWith('.js'));
				assert(files.length > 0, 'no compiled files');
				const problems: string[] = [];
				for (const file of files) {
					const code = readFileSync(join(unpackedDir, file), 'utf8');
					for (const [, mod] of code.matchAll(/require\("([^"]+)"\)/g)) {
						if (!mod.startsWith('.') && !CLOUD_MODULES.includes(mod)) problems.push(`${file}: require("${mod}")`);
					}
					const stripped = code.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '').replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '""');
					for (const [word] of stripped.matchAll(/\b(process|setTimeout|setInterval|setImmediate|globalThis|__dirname|__filename|eval)\b/g)) {
						problems.push(`${file}: ${word}`);
					}
				}
				assertEqual(problems, [], 'forbidden on n8n Cloud');
			},
		},
		{
			name: 'n8n’s community-package scanner rules (@n8n/scan-community-package) pass on the source and on the tarball, as its two scan legs do',
			timeoutMs: 300_000,
			fn: async () => {
				// The scanner's provenance and source-download steps need the public registry and GitHub; its lint
				// legs are the same function, called here with the scanner's own file patterns.
				const scanner = join(TOOLS_DIR, 'node_modules/@n8n/scan-community-package/scanner/scanner.mjs');
				const script = [
					`const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(${JSON.stringify(scanner)});`,
					`const source = await analyzePackage(${JSON.stringify(REPO_ROOT)}, SOURCE_FILE_PATTERNS);`,
					`const tarball = await analyzePackage(${JSON.stringify(unpackedDir)}, ['**/*.js', 'package.json']);`,
					'console.log(JSON.stringify({ source, tarball }));',
				].join('\n');
				const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: TOOLS_DIR, timeoutMs: 280_000 });
				const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<'source' | 'tarball', { passed: boolean; details?: string }>;
				assert(result.source?.passed, `scanner, source leg: ${result.source?.details ?? JSON.stringify(result.source)}`);
				assert(result.tarball?.passed, `scanner, tarball leg: ${result.tarball?.details ?? JSON.stringify(result.tarball)}`);
			},
		},
	];
}
