/**
 * The `npm trust github …` line of CONTRIBUTING.md's first publish, held to what the pinned npm
 * (pinned-npm.ts) says of its own command: `npm trust github --help` (its options, which are required) and
 * `npm help trust` (the npm version it needs, and its permission flags, of which at least one is required).
 * The dry run (first-publish-dry-run.ts) then runs the line itself with `--dry-run`.
 */
import { firstPublishCommands, firstPublishSection } from './first-publish';
import { section } from './versions';

export interface TrustHelp {
	/** Each option with its aliases, as `--help` lists them: ['--repository', '--repo']. */
	options: string[][];
	/** The options `--help` marks "(required)". */
	required: string[];
	/** The options that take a value (`[--file <file>]` in the usage), with their aliases. */
	takesValue: string[];
}

/** The options block of `npm trust <provider> --help`: lines such as `  --file (required)`, `  -y|--yes`. */
export function parseTrustHelp(help: string): TrustHelp {
	const options: string[][] = [];
	const required: string[] = [];
	for (const [, names, isRequired] of help.matchAll(/^ {2}(-{1,2}[a-z][\w-]*(?:\|-{1,2}[a-z][\w-]*)*)( \(required\))?$/gm)) {
		options.push(names.split('|'));
		if (isRequired) required.push(names.split('|')[0]);
	}
	const valued = [...help.matchAll(/\[(-{1,2}[\w-]+) <[^>]+>\]/g)].map(([, flag]) => flag);
	const takesValue = options.filter((names) => names.some((n) => valued.includes(n))).flat();
	return { options, required, takesValue };
}

export interface TrustDoc {
	/** "`npm@11.15.0` or above is required" */
	minimumNpm?: string;
	/** The flags under "### Permissions", each with what it allows. */
	permissions: Array<{ flag: string; allows: string }>;
}

/** What `npm help trust` (the pinned npm's docs/content/commands/npm-trust.md) says the command needs. */
export function parseTrustDoc(doc: string): TrustDoc {
	const minimumNpm = /`npm@(\d+\.\d+\.\d+)` or above is required/.exec(doc)?.[1];
	const permissionsText = section(doc.replace(/^### /gm, '## '), 'Permissions');
	const permissions = [...permissionsText.matchAll(/^\* `(--[\w-]+)`: (.*)$/gm)].map(([, flag, allows]) => ({ flag, allows }));
	return { minimumNpm, permissions };
}

/** The `npm trust …` command of the first publish's steps. */
export function trustLine(contributing: string): string | undefined {
	return firstPublishCommands(contributing).find((command) => command.startsWith('npm trust '));
}

/** The words of a command line; double quotes group words. */
export function words(line: string): string[] {
	return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map(([, quoted, plain]) => quoted ?? plain);
}

export interface TrustInputs {
	contributing: string;
	/** `npm trust github --help` of the pinned npm */
	help: string;
	/** `npm help trust`'s text of the pinned npm */
	doc: string;
	npmVersion: string;
	packageName: string;
	/** The release workflow's file name. */
	workflowFile: string;
}

export function trustLineProblems(input: TrustInputs): string[] {
	const where = 'CONTRIBUTING.md, First publish';
	const line = trustLine(input.contributing);
	if (!line) return [`${where}: no \`npm trust github …\` line`];
	const npm = `npm trust github of npm ${input.npmVersion} (the release image's)`;
	const help = parseTrustHelp(input.help);
	const doc = parseTrustDoc(input.doc);
	if (!help.options.length) return [`${where}: ${npm} --help lists no options:\n${input.help}`];
	if (!doc.minimumNpm || !doc.permissions.length) return [`${where}: npm help trust of npm ${input.npmVersion} names no minimum npm or no permission flags`];

	const problems: string[] = [];
	const [, , provider, ...args] = words(line);
	if (provider !== 'github') problems.push(`${where}: \`${line}\` is not \`npm trust github\` (the release runs on GitHub Actions)`);
	const positional = args.filter((a, i) => !a.startsWith('-') && !help.takesValue.includes(args[i - 1]));
	if (positional[0] !== input.packageName) problems.push(`${where}: \`${line}\` names the package ${positional[0] ?? '(none)'}, package.json's is ${input.packageName}`);
	const flags = args.filter((a) => a.startsWith('-')).map((a) => a.split('=')[0]);
	const known = help.options.flat();
	for (const flag of flags) {
		if (!known.includes(flag)) problems.push(`${where}: ${flag} is not an option of ${npm}; its options: ${help.options.map((o) => o.join('|')).join(', ')}`);
	}
	for (const flag of help.required) {
		const names = help.options.find((o) => o[0] === flag)!;
		if (!flags.some((f) => names.includes(f))) problems.push(`${where}: \`${line}\` lacks ${flag}, which ${npm} requires`);
	}
	const given = doc.permissions.filter((p) => flags.includes(p.flag));
	if (!given.length) {
		problems.push(`${where}: \`${line}\` has no permission flag; npm ${input.npmVersion} requires at least one of ${doc.permissions.map((p) => p.flag).join(', ')} (npm help trust, Permissions)`);
	} else if (!given.some((p) => /`npm publish`/.test(p.allows))) {
		problems.push(`${where}: \`${line}\` does not let the workflow run npm publish (${doc.permissions.find((p) => /`npm publish`/.test(p.allows))?.flag})`);
	}
	const file = valueOf(args, help.options.find((o) => o.includes('--file')) ?? ['--file']);
	if (file !== input.workflowFile) problems.push(`${where}: \`${line}\` names the workflow file ${file ?? '(none)'}, the release workflow is ${input.workflowFile}`);
	const step = firstPublishSection(input.contributing).split(/^(?=\d+\. )/m).find((s) => s.includes(line)) ?? '';
	if (!step.includes(`npm ${doc.minimumNpm} or later`)) {
		const stated = [...step.matchAll(/\bnpm (\d+\.\d+(?:\.\d+)?) or later/g)].map((m) => m[1]);
		problems.push(`${where}: the step with \`npm trust\` says npm ${stated.join(', ') || '(no version)'} or later; npm help trust of npm ${input.npmVersion} requires npm@${doc.minimumNpm}: say "npm ${doc.minimumNpm} or later"`);
	}
	return problems;
}

/** The value after `--flag value` or in `--flag=value`. */
function valueOf(args: string[], names: string[]): string | undefined {
	for (const [i, a] of args.entries()) {
		const [name, value] = a.split('=');
		if (names.includes(name)) return value ?? args[i + 1];
	}
	return undefined;
}
