/**
 * The evidence rule (figures.ts): a figure in README.md or docs/ without a link to its raw output, or with a
 * link to a missing or headerless file, fails test:release; the benchmark's own output passes it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchCommand, headerLines, machineHeader, readHeader } from '../../bench/lib/results';
import { figureProblems, figuresIn, markdownBlocks } from './figures';

const BLOB = 'https://github.com/acme/n8n-nodes-x/blob/main/';
let root: string;
const results = (name: string, text: string) => {
	mkdirSync(join(root, 'docs/results'), { recursive: true });
	writeFileSync(join(root, 'docs/results', name), text);
};
const benchOutput = () => [...headerLines(machineHeader('npm run bench -- sending', { node: 'v24.21.0', n8n: '2.41.1' })), 'Rounds: 3', '', '1. Sending', '…'].join('\n');
const problems = (markdown: string, file = 'docs/performance.md') => figureProblems(file, markdown, root, BLOB);

beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), 'bm-figures-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('what counts as a figure', () => {
	it.each([
		['a ratio', 'this node 2.0× the HTTP Request node', ['2.0×']],
		['a ratio with a space', 'the trigger is 0.95 × of it', ['0.95 ×']],
		['a rate with a unit word', 'sends 637 items/s', ['637 items/s']],
		['a bare rate', 'runs 21 vs 35/s', ['35/s']],
		['a rate with thousands', 'a bare loop: 10,221/s', ['10,221/s']],
		['a time in ms', '62 / 345 ms', ['345 ms']],
		['a time in µs', '5.6 µs at p99', ['5.6 µs']],
	])('%s: %s', (_what, text, expected) => {
		expect(figuresIn(text)).toEqual(expected);
	});

	it.each([
		['a target', 'Target: ≥ 1.0× the Webhook node, ≤ 1 ms at p99, ≥ 3× sequential'],
		['a size', 'at phone size (390×844)'],
		['a setting in a code span', 'with `BENCH_LATENCY_MS=25` and `25 ms`'],
		['words', 'a few microseconds per request, within a second'],
		['a duration in hours', 'remembered for 8 h 21 min'],
	])('not %s: %s', (_what, text) => {
		expect(figuresIn(text)).toEqual([]);
	});

	it('blocks: table rows, list items with their continuation, paragraphs; code blocks left out', () => {
		const blocks = markdownBlocks(['# T', '', 'para one', 'para two', '', '- item', '  more', '- next', '', '| a | b |', '| c | d |', '', '```', '99 ms', '```'].join('\n'));
		expect(blocks.map((b) => b.text)).toEqual(['# T', 'para one\npara two', '- item\n  more', '- next', '| a | b |', '| c | d |']);
	});
});

describe('the rule', () => {
	it('the real README and docs pass (figures withdrawn until re-measured, or linked)', () => {
		const repo = join(__dirname, '../..');
		for (const file of ['README.md', 'docs/performance.md', 'docs/queue-mode.md', 'docs/trigger.md', 'docs/action-node.md']) {
			expect(figureProblems(file, readFileSync(join(repo, file), 'utf8'), repo, BLOB)).toEqual([]);
		}
	});

	it('a table row of figures is one line with one raw output: a paragraph-long row or a row of two runs fails', () => {
		results('a.txt', benchOutput());
		results('b.txt', benchOutput());
		const head = '| Figure | Measured | Raw output |\n|---|---|---|\n';
		expect(problems(`${head}| Sending | 259 items/s | [raw](results/a.txt) |\n`)).toEqual([]);
		const history = Array(3).fill('the run before, at another commit, measured less, because the machine was busier and n8n had just started').join('; ');
		expect(problems(`${head}| Sending | 259 items/s, ${history} | [raw](results/a.txt) |\n`)).toEqual([
			expect.stringMatching(/^docs\/performance\.md:3: a table row of \d+ words \(at most 40\): one row per figure and its raw output; the history and the reasoning go below the table/),
		]);
		expect(problems(`${head}| Sending | 259 items/s ([before](results/a.txt)), 301 items/s | [after](results/b.txt) |\n`)).toEqual([
			'docs/performance.md:3: a table row with the figures of 2 raw outputs: one row per figure and its raw output; the history and the reasoning go below the table or in the raw output’s README',
		]);
	});

	it('a figure without a link fails, naming the file, the line and the figure', () => {
		expect(problems('# Performance\n\nIt sends 120 items/s.\n')).toEqual(['docs/performance.md:3: 120 items/s without a link to its raw output in docs/results/']);
	});

	it('a figure in a table row fails though another row links its raw output', () => {
		results('2026-12-01-bench-sending.txt', benchOutput());
		const table = '| What | Figure |\n|---|---|\n| Sending | 120 items/s ([raw](results/2026-12-01-bench-sending.txt)) |\n| Receiving | 0.95× |\n';
		expect(problems(table)).toEqual(['docs/performance.md:4: 0.95× without a link to its raw output in docs/results/']);
	});

	it('a figure linking to a raw output the benchmark wrote passes (relative, and absolute from the README)', () => {
		results('2026-12-01-bench-sending.txt', benchOutput());
		expect(problems('It sends 120 items/s ([raw output](results/2026-12-01-bench-sending.txt)).')).toEqual([]);
		expect(problems(`It sends 120 items/s ([raw output](${BLOB}docs/results/2026-12-01-bench-sending.txt)).`, 'README.md')).toEqual([]);
	});

	it('a link to a raw output that does not exist fails', () => {
		expect(problems('It sends 120 items/s ([raw output](results/2026-12-01-bench-sending.txt)).')).toEqual([
			'docs/performance.md:1: links to docs/results/2026-12-01-bench-sending.txt, which does not exist',
		]);
	});

	it('a raw output without the machine’s cores, or without a date, fails', () => {
		results('edited.txt', benchOutput().replace(/ \d+ cores,/, '').replace(/^Date: .*$/m, 'Date:'));
		expect(problems('120 items/s ([raw](results/edited.txt))').join('\n')).toMatch(/docs\/results\/edited\.txt: its header lacks Date, Machine \(with its cores\)/);
	});

	it('a link to the results folder’s README is no evidence', () => {
		results('README.md', '# Raw benchmark output\n');
		expect(problems('120 items/s, see [results](results/README.md)')).toHaveLength(1);
	});
});

describe('the header npm run bench writes', () => {
	it('names the command as typed, with the BENCH_ variables that shaped the run', () => {
		expect(benchCommand(['queue'], { BENCH_QUEUE_ROWS: 'SIGTERM', BENCH_RESULTS_DIR: '/tmp/x', HOME: '/root' })).toBe('BENCH_QUEUE_ROWS=SIGTERM npm run bench -- queue');
		expect(benchCommand([], {})).toBe('npm run bench');
	});

	it('reads back complete: command, machine with its cores, load, Node, n8n, commit, date', () => {
		const { header, missing } = readHeader(benchOutput());
		expect(missing).toEqual([]);
		expect(header.Machine).toMatch(/\d+ cores/);
		expect(header.Commit).toMatch(/^[0-9a-f]{40}|unknown/);
	});
});
