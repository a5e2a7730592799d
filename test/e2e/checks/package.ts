/**
 * Checks of the published tarball: only what n8n loads (plus README, LICENSE, package.json), nothing stale,
 * every declared node, credential and icon present, README links that resolve on the registry page, and
 * n8n's community-package scanner rules over the source and the tarball.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../lib/n8n';
import { run } from '../lib/proc';
import { assert, assertEqual, type Check } from '../lib/report';
import { TOOLS_DIR } from '../lib/registry';

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
