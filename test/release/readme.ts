/**
 * The README is for the user first (CONTRIBUTING.md, "The README"): it opens with what the package does, the
 * minimum n8n version and that it installs on self-hosted n8n only until n8n verifies it; then a five-step
 * quick start; then, still near the top, the contributor's two commands. Its first code block is one a user
 * types, never a contributor's command.
 */
import { readmeTestCommand } from './workflows';

export const QUICK_START_STEPS = ['Install', 'Credential', 'First send', 'First trigger', 'Where next'];
const CONTRIBUTOR_COMMAND = /^\s*(npm (install|ci|run|test|i)\b|git |npx )/m;

/** The `## ` sections of a markdown text in order: the text before the first one is the intro (heading ''). */
export function sections(markdown: string): Array<{ heading: string; text: string }> {
	const parts = markdown.split(/^## /m);
	return [{ heading: '', text: parts[0] }, ...parts.slice(1).map((p) => ({ heading: p.slice(0, p.indexOf('\n')), text: p }))];
}

export function readmeProblems(readme: string): string[] {
	const problems: string[] = [];
	const [intro, quickStart, next] = sections(readme);
	if (!/self-hosted/i.test(intro.text) || !/until n8n verifies/i.test(intro.text)) problems.push('README intro: does not say it installs on self-hosted n8n only until n8n verifies it');
	if (!/\bn8n \d+\.\d+\.\d+ or later\b/.test(intro.text)) problems.push('README intro: no minimum n8n version ("n8n x.y.z or later")');
	if (quickStart?.heading !== 'Quick start') problems.push(`README: the first section is "${quickStart?.heading}", not "Quick start"`);
	else {
		const steps = [...quickStart.text.matchAll(/^(\d+)\. \*\*([^*]+?)\.\*\*/gm)].map((m) => m[2]);
		if (JSON.stringify(steps) !== JSON.stringify(QUICK_START_STEPS)) problems.push(`README, Quick start: steps ${JSON.stringify(steps)}, expected ${JSON.stringify(QUICK_START_STEPS)}`);
	}
	const testCommand = readmeTestCommand(readme);
	if (!next || !testCommand || !next.text.split('\n').some((l) => l.trim().startsWith(testCommand))) problems.push('README: the section after Quick start does not hold the contributor’s commands (the test command)');
	const firstBlock = /^\s*```[a-z]*\n([\s\S]*?)^\s*```/m.exec(readme)?.[1] ?? '';
	if (CONTRIBUTOR_COMMAND.test(firstBlock)) problems.push(`README: the first code block is a contributor's: ${firstBlock.trim().split('\n')[0]}`);
	return problems;
}
