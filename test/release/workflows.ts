/**
 * The rules .github/workflows and .ci/run are held to, so that nothing reaches npm untested and no step
 * is skipped (CONTRIBUTING.md, "Releasing"). test:release applies them to the real files; the mutation
 * tests beside this file break one thing each and expect a problem.
 *
 *   ci.yml       every push to a branch and every pull request: calls test.yml.
 *   test.yml     `npm ci`, then the README's test command, in a pinned image; called by ci.yml and release.yml.
 *   release.yml  on version tags: check (tag, CHANGELOG, repository, public) → test (test.yml) → publish.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

export interface WorkflowFiles {
	release: string;
	test: string;
	ci: string;
	/** .ci/run */
	ciRun: string;
	readme: string;
	/** The devDependency `node`'s version: the image runs the same Node. */
	nodeVersion: string;
}

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	if?: unknown;
	'continue-on-error'?: unknown;
	env?: Record<string, unknown>;
	with?: Record<string, unknown>;
}

interface Job {
	name?: string;
	uses?: string;
	needs?: string | string[];
	if?: unknown;
	'continue-on-error'?: unknown;
	permissions?: unknown;
	container?: { image?: string } | string;
	env?: Record<string, unknown>;
	with?: unknown;
	secrets?: unknown;
	steps?: Step[];
}

interface Workflow {
	on?: Record<string, unknown> | string | string[];
	permissions?: unknown;
	env?: Record<string, unknown>;
	jobs?: Record<string, Job>;
}

export const TEST_WORKFLOW_REF = './.github/workflows/test.yml';
export const VERSION_TAGS = 'v[0-9]+.[0-9]+.[0-9]+';
export const N8N_CACHE_PATH = '~/.cache/n8n-nodes-business-messaging';
export const INSTALL_COMMAND = 'npm ci --no-audit --no-fund';
/** Trusted publishing needs npm 11.5.1 or later. */
export const MIN_NPM_FOR_TRUSTED_PUBLISHING = '11.5.1';

const READ_ONLY = { contents: 'read' };
const PUBLISH_PERMISSIONS = { contents: 'read', 'id-token': 'write' };

const json = (value: unknown) => JSON.stringify(value);
const sameJson = (a: unknown, b: unknown) => json(sortKeys(a)) === json(sortKeys(b));
function sortKeys(value: unknown): unknown {
	if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
	return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)));
}
const list = (needs: Job['needs']) => (needs === undefined ? [] : Array.isArray(needs) ? needs : [needs]);
const stepLabel = (step: Step, i: number) => step.name ?? step.uses ?? `step ${i + 1}`;
const image = (job: Job | undefined) => (typeof job?.container === 'string' ? job.container : job?.container?.image);
const mentionsSecrets = (value: unknown) => /\bsecrets\./.test(json(value ?? ''));

/** The README's test command: the `npm test…` line of its first code block that has one (comment removed). */
export function readmeTestCommand(readme: string): string | undefined {
	for (const [, block] of readme.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)) {
		const line = block.split('\n').find((l) => /^npm test\b/.test(l.trim()));
		if (line) return line.replace(/#.*$/, '').trim();
	}
	return undefined;
}

/** The commands a shell script runs: lines that are not comments, blank, `set …` or `cd …`. */
export function scriptCommands(script: string): string[] {
	return script
		.split('\n')
		.map((l) => l.trim())
		.filter((l) => l && !l.startsWith('#') && !/^(set|cd)\b/.test(l));
}

/** The image named exactly: a full version tag (`node:24.21.0-bookworm`) or a digest. */
export function pinnedImageVersion(name: string | undefined): { pinned: boolean; nodeVersion?: string } {
	if (!name) return { pinned: false };
	if (/@sha256:[0-9a-f]{64}$/.test(name)) return { pinned: true };
	const tag = /^node:(\d+\.\d+\.\d+)(-[a-z0-9]+)?$/.exec(name);
	return tag ? { pinned: true, nodeVersion: tag[1] } : { pinned: false };
}

function jobRules(where: string, job: Job, problems: string[]): void {
	if (job.if !== undefined) problems.push(`${where}: has an if: (${json(job.if)}); it must always run`);
	if (job['continue-on-error'] !== undefined) problems.push(`${where}: continue-on-error on the job`);
	for (const [i, step] of (job.steps ?? []).entries()) {
		if (step.if !== undefined) problems.push(`${where}, "${stepLabel(step, i)}": has an if: (${json(step.if)}); every step must run`);
		if (step['continue-on-error'] !== undefined) problems.push(`${where}, "${stepLabel(step, i)}": continue-on-error (a failure must stop the job)`);
		for (const key of Object.keys(step.env ?? {})) if (/provenance/i.test(key)) problems.push(`${where}, "${stepLabel(step, i)}": sets ${key}`);
	}
	for (const key of Object.keys(job.env ?? {})) if (/provenance/i.test(key)) problems.push(`${where}: sets ${key}`);
	if (mentionsSecrets(job.env)) problems.push(`${where}: secrets in the job's environment`);
}

function permissionRule(where: string, actual: unknown, allowed: object, problems: string[]): void {
	if (!sameJson(actual, allowed)) problems.push(`${where}: permissions ${json(actual ?? 'not set (GitHub’s defaults)')}, allowed only ${json(allowed)}`);
}

function indexOfStep(steps: Step[], test: (s: Step) => boolean): number {
	return steps.findIndex(test);
}

function testWorkflowRules(test: Workflow, files: WorkflowFiles, testCommand: string | undefined, problems: string[]): void {
	const events = test.on && typeof test.on === 'object' && !Array.isArray(test.on) ? Object.keys(test.on) : [test.on].flat();
	if (json(events) !== json(['workflow_call'])) problems.push(`test.yml: runs on ${json(events)}, only workflow_call allowed`);
	permissionRule('test.yml', test.permissions, READ_ONLY, problems);
	const jobs = Object.keys(test.jobs ?? {});
	if (json(jobs) !== json(['test'])) problems.push(`test.yml: jobs ${json(jobs)}, expected exactly one job "test"`);
	const job = test.jobs?.test;
	if (!job) return;
	jobRules('test.yml job test', job, problems);
	permissionRule('test.yml job test', job.permissions, READ_ONLY, problems);
	if (mentionsSecrets(job)) problems.push('test.yml: uses secrets; the tests need none');
	const pin = pinnedImageVersion(image(job));
	if (!pin.pinned) problems.push(`test.yml: container image ${json(image(job))} is not pinned (an exact node:X.Y.Z-variant tag or a digest)`);
	else if (pin.nodeVersion && pin.nodeVersion !== files.nodeVersion) problems.push(`test.yml: image ${image(job)} runs Node ${pin.nodeVersion}, the devDependency node is ${files.nodeVersion}`);
	const steps = job.steps ?? [];
	const checkout = indexOfStep(steps, (s) => /^actions\/checkout@/.test(s.uses ?? ''));
	const cache = indexOfStep(steps, (s) => /^actions\/cache@/.test(s.uses ?? '') && s.with?.path === N8N_CACHE_PATH);
	const install = indexOfStep(steps, (s) => s.run?.trim() === INSTALL_COMMAND);
	const testStep = indexOfStep(steps, (s) => testCommand !== undefined && s.run?.trim() === testCommand);
	if (checkout < 0) problems.push('test.yml: no actions/checkout step');
	if (cache < 0) problems.push(`test.yml: no actions/cache step for ${N8N_CACHE_PATH}`);
	else if (!/hashFiles\([^)]*'tools\/n8n\/versions\.ts'/.test(String(steps[cache].with?.key))) problems.push(`test.yml: n8n's cache key ${json(steps[cache].with?.key)} does not follow tools/n8n/versions.ts`);
	if (install < 0) problems.push(`test.yml: no step runs exactly "${INSTALL_COMMAND}" (the committed lock, nothing else)`);
	if (testStep < 0) problems.push(`test.yml: no step runs exactly the README's test command (${json(testCommand)})`);
	if (steps.some((s) => /\bnpm (install|i)\b/.test(s.run ?? ''))) problems.push('test.yml: runs npm install; installs come from the lock with npm ci');
	const order = [checkout, cache, install, testStep];
	if (order.every((i) => i >= 0) && json([...order].sort((a, b) => a - b)) !== json(order)) problems.push('test.yml: steps out of order (checkout, cache, npm ci, npm test)');
	if (testStep >= 0 && testStep !== steps.length - 1) problems.push('test.yml: the test step is not the last step');
}

function ciWorkflowRules(ci: Workflow, problems: string[]): void {
	const on = ci.on && typeof ci.on === 'object' && !Array.isArray(ci.on) ? (ci.on as Record<string, unknown>) : {};
	if (!('pull_request' in on)) problems.push('ci.yml: does not run on pull_request');
	const push = on.push as { branches?: string[] } | null | undefined;
	if (!('push' in on) || (push && push.branches && !push.branches.includes('**'))) problems.push('ci.yml: does not run on every push to a branch');
	permissionRule('ci.yml', ci.permissions, READ_ONLY, problems);
	const callers = Object.entries(ci.jobs ?? {}).filter(([, job]) => job.uses === TEST_WORKFLOW_REF);
	if (callers.length === 0) problems.push(`ci.yml: no job calls ${TEST_WORKFLOW_REF}`);
	for (const [name, job] of Object.entries(ci.jobs ?? {})) {
		jobRules(`ci.yml job ${name}`, job, problems);
		if (job.permissions !== undefined) permissionRule(`ci.yml job ${name}`, job.permissions, READ_ONLY, problems);
		if (job.secrets !== undefined) problems.push(`ci.yml job ${name}: passes secrets`);
	}
}

function releaseWorkflowRules(release: Workflow, testImage: string | undefined, problems: string[]): void {
	const on = release.on;
	if (!sameJson(on, { push: { tags: [VERSION_TAGS] } })) problems.push(`release.yml: runs on ${json(on)}, only on pushed version tags ('${VERSION_TAGS}')`);
	permissionRule('release.yml', release.permissions, READ_ONLY, problems);
	if (mentionsSecrets(release.env)) problems.push('release.yml: secrets in the workflow’s environment');
	const jobs = release.jobs ?? {};
	if (json(Object.keys(jobs).sort()) !== json(['check', 'publish', 'test'])) problems.push(`release.yml: jobs ${json(Object.keys(jobs))}, expected exactly check, test, publish`);
	for (const [name, job] of Object.entries(jobs)) jobRules(`release.yml job ${name}`, job, problems);

	const check = jobs.check;
	if (check) {
		permissionRule('release.yml job check', check.permissions, READ_ONLY, problems);
		const steps = check.steps ?? [];
		if (!steps.some((s) => s.run?.includes('"$TAG" != "v$version"') && s.run.includes("grep -m1 '^## ' CHANGELOG.md"))) problems.push('release.yml job check: no step comparing the tag with package.json and CHANGELOG.md’s newest section');
		if (!steps.some((s) => s.env?.REPOSITORY === '${{ github.repository }}' && s.run?.includes('repository.url'))) problems.push('release.yml job check: no step comparing package.json’s repository with the repository it runs in');
		if (!steps.some((s) => s.env?.VISIBILITY === '${{ github.event.repository.visibility }}' && s.run?.includes('"$VISIBILITY" != "public"'))) problems.push('release.yml job check: no step refusing a repository that is not public (npm accepts provenance only from a public one)');
		if (mentionsSecrets(check)) problems.push('release.yml job check: uses secrets');
	}

	const test = jobs.test;
	if (test) {
		if (test.uses !== TEST_WORKFLOW_REF) problems.push(`release.yml job test: uses ${json(test.uses)}, not ${TEST_WORKFLOW_REF} (the job CI runs)`);
		if (!list(test.needs).includes('check')) problems.push('release.yml job test: does not need check (it must not start when the tag or repository is wrong)');
		if (test.with !== undefined) problems.push('release.yml job test: passes inputs; CI calls it without');
		if (test.secrets !== undefined) problems.push('release.yml job test: passes secrets to the tests');
		if (test.permissions !== undefined) permissionRule('release.yml job test', test.permissions, READ_ONLY, problems);
	}

	const publish = jobs.publish;
	if (!publish) return;
	for (const needed of ['check', 'test']) if (!list(publish.needs).includes(needed)) problems.push(`release.yml job publish: does not need ${needed}`);
	permissionRule('release.yml job publish', publish.permissions, PUBLISH_PERMISSIONS, problems);
	if (image(publish) !== testImage) problems.push(`release.yml job publish: image ${json(image(publish))}, the test job's is ${json(testImage)}`);
	const steps = publish.steps ?? [];
	const publishStep = indexOfStep(steps, (s) => /^\s*npm publish\b/m.test(s.run ?? ''));
	const order = [
		[indexOfStep(steps, (s) => /^actions\/checkout@/.test(s.uses ?? '')), 'checkout'],
		[indexOfStep(steps, (s) => (s.run ?? '').includes('npm --version')), `npm ${MIN_NPM_FOR_TRUSTED_PUBLISHING} or later`],
		[indexOfStep(steps, (s) => s.run?.trim() === INSTALL_COMMAND), `"${INSTALL_COMMAND}"`],
		[publishStep, 'npm publish'],
		[indexOfStep(steps, (s) => /npx --yes "@n8n\/scan-community-package@\$scanner" "\$name@\$version"/.test(s.run ?? '') && /grep -q "has passed all security checks" scan\.log/.test(s.run ?? '')), 'n8n’s scanner on the published version, its verdict deciding'],
	] as const;
	for (const [i, what] of order) if (i < 0) problems.push(`release.yml job publish: no step for ${what}`);
	const found = order.map(([i]) => i).filter((i) => i >= 0);
	if (json([...found].sort((a, b) => a - b)) !== json(found)) problems.push('release.yml job publish: steps out of order (checkout, npm version, npm ci, publish, scanner)');
	if (steps.some((s) => /\bnpm (install|i)\b/.test(s.run ?? ''))) problems.push('release.yml job publish: runs npm install; installs come from the lock with npm ci');
	if (publishStep >= 0) {
		const step = steps[publishStep];
		const command = /^\s*(npm publish\b.*)$/m.exec(step.run ?? '')?.[1].split(/\s+/) ?? [];
		if (!command.includes('--provenance')) problems.push(`release.yml job publish: "${command.join(' ')}" without --provenance`);
		if (!command.includes('--access')) problems.push(`release.yml job publish: "${command.join(' ')}" without --access public`);
		if (!sameJson(step.env, { NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' })) problems.push(`release.yml job publish, "${stepLabel(step, publishStep)}": env ${json(step.env)}, expected only NODE_AUTH_TOKEN from secrets.NPM_TOKEN`);
		if (!/if \[ -n "\$NODE_AUTH_TOKEN" \]/.test(step.run ?? '')) problems.push('release.yml job publish: the token is not optional (trusted publishing runs without it)');
	}
	const otherSecretSteps = steps.filter((s, i) => i !== publishStep && mentionsSecrets(s));
	if (otherSecretSteps.length) problems.push(`release.yml job publish: secrets outside the publish step (${otherSecretSteps.map(stepLabel).join(', ')})`);
}

/** Every rule over the three workflows, .ci/run and the README's test command; [] when all hold. */
export function workflowProblems(files: WorkflowFiles): string[] {
	const problems: string[] = [];
	const testCommand = readmeTestCommand(files.readme);
	if (testCommand !== 'npm test') problems.push(`README: its test command is ${json(testCommand)}, expected "npm test" (the developers' guide)`);
	const ciRun = scriptCommands(files.ciRun);
	if (json(ciRun) !== json([INSTALL_COMMAND, testCommand])) problems.push(`.ci/run: runs ${json(ciRun)}, expected exactly ${json([INSTALL_COMMAND, testCommand])}`);
	let release: Workflow, test: Workflow, ci: Workflow;
	try {
		[release, test, ci] = [files.release, files.test, files.ci].map((text) => (parse(text) ?? {}) as Workflow);
	} catch (error) {
		return [...problems, `a workflow does not parse: ${String(error)}`];
	}
	testWorkflowRules(test, files, testCommand, problems);
	ciWorkflowRules(ci, problems);
	releaseWorkflowRules(release, image(test.jobs?.test), problems);
	return problems;
}

/** The `run:` script of the step in `job` whose script contains `marker`. */
export function stepScript(workflowText: string, job: string, marker: string): string | undefined {
	const workflow = parse(workflowText) as Workflow;
	return workflow.jobs?.[job]?.steps?.find((s) => s.run?.includes(marker))?.run;
}

/**
 * Runs a step's script as GitHub runs `shell: bash` (`bash --noprofile --norc -eo pipefail`), in a folder
 * holding the given files, with `npm` answering `npmVersion` when given. Returns the exit code.
 */
export function runStep(script: string, options: { files?: Record<string, string>; env?: Record<string, string>; npmVersion?: string }): number {
	const dir = mkdtempSync(join(tmpdir(), 'bm-step-'));
	try {
		for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), text);
		const bin = join(dir, '.bin');
		execFileSync('mkdir', ['-p', bin]);
		if (options.npmVersion) writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho ${options.npmVersion}\n`, { mode: 0o755 });
		writeFileSync(join(dir, 'step.sh'), script);
		try {
			execFileSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', join(dir, 'step.sh')], {
				cwd: dir,
				env: { ...process.env, ...options.env, PATH: `${bin}:${process.env.PATH}` },
				stdio: 'pipe',
			});
			return 0;
		} catch (error) {
			return (error as { status?: number }).status ?? 1;
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * The release's guard steps run against cases with known answers: the npm check refuses 11.5.0 and takes
 * 11.5.1; the tag check refuses a wrong tag and an undated or unreleased newest CHANGELOG section; the
 * repository check refuses another repository; the visibility check refuses all but a public repository. [] when every case comes out right; `only` runs one guard.
 */
export function guardStepProblems(releaseText: string, only?: 'npm' | 'tag' | 'repository' | 'visibility'): string[] {
	const problems: string[] = [];
	const expect = (what: string, code: number, ok: boolean) => {
		if ((code === 0) !== ok) problems.push(`release.yml: ${what}: exit ${code}, expected ${ok ? 'success' : 'failure'}`);
	};
	const guard = (name: 'npm' | 'tag' | 'repository' | 'visibility', job: string, marker: string, cases: (script: string) => void) => {
		if (only && only !== name) return;
		const script = stepScript(releaseText, job, marker);
		if (script) cases(script);
		else problems.push(`release.yml: no ${name} step to run`);
	};
	guard('npm', 'publish', 'npm --version', (script) => {
		for (const [version, ok] of [['11.5.0', false], ['10.9.4', false], ['11.5.1', true], ['11.19.0', true], ['12.0.0', true]] as const) {
			expect(`the npm check with npm ${version}`, runStep(script, { npmVersion: version }), ok);
		}
	});
	guard('tag', 'check', '"$TAG" != "v$version"', (script) => {
		const files = (version: string, changelog: string) => ({ 'package.json': json({ version }), 'CHANGELOG.md': changelog });
		const dated = '# Changelog\n\nIntro.\n\n## 1.2.0 - 2026-12-01\n\n- x\n\n## 1.1.0 - 2026-11-01\n';
		const tagCase = (what: string, tag: string, changelog: string, ok: boolean) =>
			expect(`the tag check, ${what}`, runStep(script, { files: files('1.2.0', changelog), env: { TAG: tag } }), ok);
		tagCase('v1.2.0 with a dated 1.2.0 section', 'v1.2.0', dated, true);
		tagCase('v1.2.1 against package.json 1.2.0', 'v1.2.1', dated, false);
		tagCase('"## Unreleased" above 1.2.0', 'v1.2.0', dated.replace('## 1.2.0', '## Unreleased\n\n- y\n\n## 1.2.0'), false);
		tagCase('newest section 1.1.0', 'v1.2.0', dated.replace('## 1.2.0 - 2026-12-01\n\n- x\n\n', ''), false);
		tagCase('a 1.2.0 section without a date', 'v1.2.0', dated.replace('1.2.0 - 2026-12-01', '1.2.0 - unreleased'), false);
		tagCase('1.2.0 where 1.2.09 is dated', 'v1.2.0', dated.replace('1.2.0 - ', '1.2.09 - '), false);
	});
	guard('repository', 'check', 'repository.url', (script) => {
		const files = { 'package.json': json({ repository: { type: 'git', url: 'git+https://github.com/Acme/n8n-nodes-x.git' } }) };
		const repoCase = (repository: string, ok: boolean, why = '') =>
			expect(`the repository check in ${repository}${why}`, runStep(script, { files, env: { REPOSITORY: repository } }), ok);
		repoCase('Acme/n8n-nodes-x', true);
		repoCase('acme/n8n-nodes-x', true, ' (GitHub names are case-insensitive)');
		repoCase('someone/n8n-nodes-x', false);
		repoCase('Acme/n8n-nodes-x-fork', false);
	});
	guard('visibility', 'check', '$VISIBILITY', (script) => {
		for (const [visibility, ok] of [['public', true], ['private', false], ['internal', false], ['', false]] as const) {
			expect(`the visibility check for a ${visibility || 'visibility-less'} repository`, runStep(script, { env: { VISIBILITY: visibility } }), ok);
		}
	});
	return problems;
}
