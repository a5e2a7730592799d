/**
 * Raw output of a benchmark run, kept as evidence: every figure in docs/ links to one of these files
 * (CONTRIBUTING.md, "Figures"). The file is the run's stdout, unedited, opened by a header that names the
 * command, the machine, the versions, the commit and the date; test/release/figures.ts reads the header back.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, relative } from 'node:path';

export const REPO_ROOT = join(__dirname, '../..');
/** Where raw outputs go (`BENCH_RESULTS_DIR` moves them, e.g. for a quick try). */
export const RESULTS_DIR = join(REPO_ROOT, 'docs/results');

/** The header fields every results file starts with, in this order. */
export const HEADER_FIELDS = ['Command', 'Machine', 'Load average at start', 'Node', 'n8n', 'Commit', 'Date'] as const;
export type Header = Record<(typeof HEADER_FIELDS)[number], string>;

/** The command as typed: the BENCH_* and N8N_* variables set for this run, then `npm run bench -- <args>`. */
export function benchCommand(args: string[], env: NodeJS.ProcessEnv = process.env): string {
	const vars = Object.keys(env)
		.filter((k) => /^(BENCH_|N8N_VERSION$)/.test(k) && k !== 'BENCH_RESULTS_DIR')
		.sort()
		.map((k) => `${k}=${env[k]}`);
	return [...vars, 'npm run bench', ...(args.length ? ['--', ...args] : [])].join(' ');
}

function cpuModel(): string {
	try {
		return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown';
	} catch {
		return cpus()[0]?.model ?? 'unknown'; // not Linux
	}
}

function commit(): string {
	try {
		const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
		const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
		return dirty ? `${sha} with uncommitted changes` : sha;
	} catch {
		return 'unknown (not a git checkout)';
	}
}

export function machineHeader(command: string, versions: { node: string; n8n: string }): Header {
	return {
		Command: command,
		Machine: `${cpuModel()}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory`,
		'Load average at start': loadavg()
			.map((l) => l.toFixed(2))
			.join(' '),
		Node: versions.node,
		n8n: versions.n8n,
		Commit: commit(),
		Date: new Date().toISOString(),
	};
}

export const headerLines = (header: Header): string[] => HEADER_FIELDS.map((field) => `${field}: ${header[field]}`);

/** The header of a results file, or the fields it lacks. */
export function readHeader(text: string): { header: Partial<Header>; missing: string[] } {
	const lines = text.split('\n');
	const header: Partial<Header> = {};
	for (const [i, field] of HEADER_FIELDS.entries()) {
		const line = lines[i] ?? '';
		if (line.startsWith(`${field}: `) && line.length > field.length + 2) header[field] = line.slice(field.length + 2);
	}
	const missing: string[] = HEADER_FIELDS.filter((f) => !header[f]);
	if (header.Machine && !/\d+ cores/.test(header.Machine)) missing.push('Machine (with its cores)');
	return { header, missing };
}

/**
 * A new results file for this run, named by date, kind (`bench`, or the suite `npm run record` ran) and
 * sections; every line written goes to it as well.
 */
export function openResults(sections: string[], dir = process.env.BENCH_RESULTS_DIR || RESULTS_DIR, kind = 'bench'): { path: string; write: (text: string) => void } {
	mkdirSync(dir, { recursive: true });
	const base = [new Date().toISOString().slice(0, 10), kind, ...sections].join('-');
	let path = join(dir, `${base}.txt`);
	for (let n = 2; existsSync(path); n++) path = join(dir, `${base}-${n}.txt`);
	return { path, write: (text) => appendFileSync(path, text) };
}

export const shownPath = (path: string) => (path.startsWith(REPO_ROOT) ? relative(REPO_ROOT, path) : path);
