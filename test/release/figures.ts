/**
 * Evidence for every figure (CONTRIBUTING.md, "Figures"): in README.md and docs/, each block of text that
 * states a figure links to its raw output under docs/results/, a file `npm run bench` wrote, whose header
 * names the command, the machine, the versions and the date.
 *
 * A figure is a number in one of these forms (outside code spans and code blocks):
 *   a ratio     `0.95×`, `2×`           (not a size such as 390×844)
 *   a rate      `637 items/s`, `20/s`   (a number, an optional unit word, `/s`)
 *   a duration  `62 ms`, `5.6 µs`
 * A number right after ≥, ≤, < or > is a target or a limit, not a figure. A block is a table row, a list
 * item (with its continuation lines) or a paragraph; a heading is its own block. Raw outputs are the `.txt`
 * files in docs/results/; a link to anything else there (its README) is no evidence.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { readHeader } from '../../bench/lib/results';

const FIGURE = /(?<![≥≤<>]\s?)(?<![\d.,])\d[\d,]*(?:\.\d+)?\s?(?:×(?!\d)|(?:[A-Za-z]+)?\/s\b|ms\b|µs\b)/gu;
export const RESULTS_PREFIX = 'docs/results/';

/** The blocks of a markdown text, without fenced code, each with its first line number. */
export function markdownBlocks(markdown: string): Array<{ line: number; text: string }> {
	const blocks: Array<{ line: number; text: string }> = [];
	let current: { line: number; text: string } | undefined;
	let fenced = false;
	const close = () => {
		if (current) blocks.push(current);
		current = undefined;
	};
	for (const [i, line] of markdown.split('\n').entries()) {
		if (/^\s*```/.test(line)) {
			fenced = !fenced;
			close();
			continue;
		}
		if (fenced) continue;
		const own = /^\s*\|/.test(line) || /^#{1,6} /.test(line);
		const starts = /^\s*([-*+]|\d+\.) /.test(line);
		if (line.trim() === '' || own || starts) close();
		if (line.trim() === '') continue;
		if (own) {
			blocks.push({ line: i + 1, text: line });
			continue;
		}
		if (current) current.text += `\n${line}`;
		else current = { line: i + 1, text: line };
	}
	close();
	return blocks;
}

/** The figures in a block of text (code spans left out). */
export function figuresIn(text: string): string[] {
	return [...text.replace(/`[^`]*`/g, '``').matchAll(FIGURE)].map((m) => m[0]);
}

/** Raw outputs (`docs/results/*.txt`) that a block links to, from the file `file` (repository path). */
export function resultsLinks(file: string, text: string, repositoryBlobUrl: string): string[] {
	return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
		.map(([, target]) => target.replace(/#.*$/, ''))
		.map((target) => (target.startsWith(repositoryBlobUrl) ? target.slice(repositoryBlobUrl.length) : /^[a-z]+:/i.test(target) ? '' : normalize(join(dirname(file), target))))
		.filter((path) => path.startsWith(RESULTS_PREFIX) && path.endsWith('.txt'));
}

/** How long a table row that states figures may be: one line a reader takes in at a glance. */
export const ROW_WORDS = 40;

const wordsIn = (row: string) => row.replace(/\]\([^)]*\)/g, ']').replace(/\|/g, ' ').split(/\s+/).filter(Boolean).length;

/**
 * Problems in one markdown file: a block with a figure and no link into docs/results/, a link to a results
 * file that does not exist, a results file without its header; a table row of figures that is not one line with
 * one raw output (more than ROW_WORDS words, or several raw outputs): history and reasoning go below the table.
 */
export function figureProblems(file: string, markdown: string, root: string, repositoryBlobUrl: string): string[] {
	const problems: string[] = [];
	for (const block of markdownBlocks(markdown)) {
		const figures = figuresIn(block.text);
		const links = resultsLinks(file, block.text, repositoryBlobUrl);
		if (figures.length && !links.length) problems.push(`${file}:${block.line}: ${figures.join(', ')} without a link to its raw output in ${RESULTS_PREFIX}`);
		if (figures.length && block.text.startsWith('|')) {
			const below = 'one row per figure and its raw output; the history and the reasoning go below the table or in the raw output’s README';
			if (new Set(links).size > 1) problems.push(`${file}:${block.line}: a table row with the figures of ${new Set(links).size} raw outputs: ${below}`);
			if (wordsIn(block.text) > ROW_WORDS) problems.push(`${file}:${block.line}: a table row of ${wordsIn(block.text)} words (at most ${ROW_WORDS}): ${below}`);
		}
		for (const link of links) {
			const path = join(root, link);
			if (!existsSync(path)) problems.push(`${file}:${block.line}: links to ${link}, which does not exist`);
			else {
				const { missing } = readHeader(readFileSync(path, 'utf8'));
				if (missing.length) problems.push(`${link}: its header lacks ${missing.join(', ')} (npm run bench writes it)`);
			}
		}
	}
	return problems;
}

/** Places that say a figure awaits a run on a quiet machine ("to be re-measured"). */
export function awaitingMeasurement(markdown: string): number {
	return (markdown.match(/to be re-measured/gi) ?? []).length;
}
