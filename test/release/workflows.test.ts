/**
 * Each mutation of the workflows that would ship something untested or skip a step makes test:release's
 * workflow rules (workflows.ts) fail: one test per mutation, applied to the real files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { guardStepProblems, workflowProblems, type WorkflowFiles } from './workflows';

const ROOT = join(__dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const REAL: WorkflowFiles = {
	release: read('.github/workflows/release.yml'),
	test: read('.github/workflows/test.yml'),
	ci: read('.github/workflows/ci.yml'),
	ciRun: read('.ci/run'),
	readme: read('README.md'),
	nodeVersion: (JSON.parse(read('package.json')) as { devDependencies: Record<string, string> }).devDependencies.node,
};

// What `yaml` parses a workflow into; the mutations reach into it freely.
type Doc = Record<string, any>;
type File = 'release' | 'test' | 'ci';

/** The real files with one workflow changed by `change` (parsed, changed, written back as YAML). */
function mutate(file: File, change: (doc: Doc) => void): WorkflowFiles {
	const doc = parse(REAL[file]) as Doc;
	change(doc);
	return { ...REAL, [file]: stringify(doc) };
}

const steps = (doc: Doc, job: string) => doc.jobs[job].steps as Doc[];
const stepWith = (doc: Doc, job: string, marker: string) => steps(doc, job).find((s) => String(s.run ?? s.uses ?? '').includes(marker))!;
const publishStep = (doc: Doc) => stepWith(doc, 'publish', 'npm publish');
const testStep = (doc: Doc) => stepWith(doc, 'test', 'npm test');

function expectProblem(files: WorkflowFiles, pattern: RegExp): void {
	const problems = workflowProblems(files);
	expect(problems.length).toBeGreaterThan(0);
	expect(problems.join('\n')).toMatch(pattern);
}

describe('the real workflows', () => {
	it('pass every rule', () => {
		expect(workflowProblems(REAL)).toEqual([]);
	});

	it('still pass once parsed and written back unchanged (so each mutation below is what fails)', () => {
		for (const file of ['release', 'test', 'ci'] as const) expect(workflowProblems(mutate(file, () => undefined))).toEqual([]);
	});

	it('the release’s guard steps refuse what they must and pass what they must', () => {
		expect(guardStepProblems(REAL.release)).toEqual([]);
	});
});

describe('continue-on-error on any step before publishing, or on a job', () => {
	const stepsBeforePublish: Array<[File, string, number]> = [];
	for (const [file, job] of [['test', 'test'], ['release', 'check'], ['release', 'publish']] as const) {
		const all = steps(parse(REAL[file]) as Doc, job);
		const last = file === 'release' && job === 'publish' ? all.findIndex((s) => String(s.run ?? '').includes('npm publish')) : all.length - 1;
		for (let i = 0; i <= last; i++) stepsBeforePublish.push([file, job, i]);
	}

	it.each(stepsBeforePublish)('%s.yml job %s, step %i', (file, job, i) => {
		expectProblem(mutate(file, (doc) => (steps(doc, job)[i]['continue-on-error'] = true)), /continue-on-error/);
	});

	it.each([
		['test', 'test'],
		['release', 'check'],
		['release', 'publish'],
	] as const)('%s.yml job %s', (file, job) => {
		expectProblem(mutate(file, (doc) => (doc.jobs[job]['continue-on-error'] = true)), /continue-on-error on the job/);
	});

	it('on the scanner step after publishing too (its verdict must fail the release)', () => {
		expectProblem(mutate('release', (doc) => (stepWith(doc, 'publish', 'scan-community-package')['continue-on-error'] = true)), /continue-on-error/);
	});
});

describe('if: on the test or the publish', () => {
	it('on the release’s test job', () => expectProblem(mutate('release', (doc) => (doc.jobs.test.if = 'false')), /job test: has an if/));
	it('on the release’s publish job (always() would publish after a failed test)', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.publish.if = '${{ always() }}')), /job publish: has an if/));
	it('on the release’s check job', () => expectProblem(mutate('release', (doc) => (doc.jobs.check.if = 'false')), /job check: has an if/));
	it('on the publish step', () => expectProblem(mutate('release', (doc) => (publishStep(doc).if = 'false')), /has an if/));
	it('on test.yml’s job', () => expectProblem(mutate('test', (doc) => (doc.jobs.test.if = "github.event_name != 'push'")), /test\.yml job test: has an if/));
	it('on the test step', () => expectProblem(mutate('test', (doc) => (testStep(doc).if = 'false')), /has an if/));
	it('on the install step', () => expectProblem(mutate('test', (doc) => (stepWith(doc, 'test', 'npm ci').if = 'false')), /has an if/));
	it('on CI’s job', () => expectProblem(mutate('ci', (doc) => (doc.jobs.test.if = "github.event_name == 'push'")), /ci\.yml job test: has an if/));
});

describe('the provenance flag', () => {
	it('removed', () => expectProblem(mutate('release', (doc) => (publishStep(doc).run = publishStep(doc).run.replace(' --provenance', ''))), /without --provenance/));
	it('turned off with --provenance=false', () =>
		expectProblem(mutate('release', (doc) => (publishStep(doc).run = publishStep(doc).run.replace('--provenance', '--provenance=false'))), /without --provenance/));
	it('turned off through the environment', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.publish.env = { NPM_CONFIG_PROVENANCE: 'false' })), /sets NPM_CONFIG_PROVENANCE/));
	it('the publish job without id-token: write (npm signs the statement with it)', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.publish.permissions = { contents: 'read' })), /job publish: permissions/));
});

describe('permissions widened', () => {
	it('release.yml: contents: write', () => expectProblem(mutate('release', (doc) => (doc.permissions = { contents: 'write' })), /release\.yml: permissions/));
	it('release.yml: write-all', () => expectProblem(mutate('release', (doc) => (doc.permissions = 'write-all')), /release\.yml: permissions/));
	it('release.yml: no permissions block (GitHub’s defaults)', () => expectProblem(mutate('release', (doc) => delete doc.permissions), /release\.yml: permissions "not set/));
	it('the publish job: packages: write added', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.publish.permissions.packages = 'write')), /job publish: permissions/));
	it('the publish job: contents: write', () => expectProblem(mutate('release', (doc) => (doc.jobs.publish.permissions.contents = 'write')), /job publish: permissions/));
	it('the check job: id-token: write', () => expectProblem(mutate('release', (doc) => (doc.jobs.check.permissions['id-token'] = 'write')), /job check: permissions/));
	it('the release’s test job: contents: write', () => expectProblem(mutate('release', (doc) => (doc.jobs.test.permissions = { contents: 'write' })), /job test: permissions/));
	it('the release’s test job: secrets: inherit (the tests would see the npm token)', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.test.secrets = 'inherit')), /passes secrets/));
	it('test.yml: actions: write', () => expectProblem(mutate('test', (doc) => (doc.permissions.actions = 'write')), /test\.yml: permissions/));
	it('test.yml’s job: id-token: write', () => expectProblem(mutate('test', (doc) => (doc.jobs.test.permissions['id-token'] = 'write')), /test\.yml job test: permissions/));
	it('ci.yml: contents: write', () => expectProblem(mutate('ci', (doc) => (doc.permissions = { contents: 'write' })), /ci\.yml: permissions/));
	it('the npm token reaching a step other than publish', () =>
		expectProblem(mutate('release', (doc) => (stepWith(doc, 'publish', 'npm ci').env = { NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' })), /secrets outside the publish step/));
});

describe('the test step no longer running npm test', () => {
	it.each([
		['another script', 'npm run test:unit'],
		['its failure ignored', 'npm test || true'],
		['only echoed', 'echo npm test'],
		['with arguments', 'npm test -- --bail'],
	])('%s: %s', (_what, command) => {
		expectProblem(mutate('test', (doc) => (testStep(doc).run = command)), /README's test command/);
	});

	it('removed', () => expectProblem(mutate('test', (doc) => (doc.jobs.test.steps = steps(doc, 'test').filter((s) => s.run !== 'npm test'))), /README's test command/));
	it('a step after it (the test is the last word)', () =>
		expectProblem(mutate('test', (doc) => steps(doc, 'test').push({ name: 'after', run: 'echo done' })), /not the last step/));
	it('.ci/run running another command', () => expectProblem({ ...REAL, ciRun: REAL.ciRun.replace(/^npm test$/m, 'npm run test:unit') }, /\.ci\/run: runs/));
	it('the README showing another test command than the workflows run', () =>
		expectProblem({ ...REAL, readme: REAL.readme.replace(/^npm test( .*)?$/m, 'npm run test:all$1') }, /README: its test command/));
});

describe('a step skipped or replaced', () => {
	it('publish no longer needs test', () => expectProblem(mutate('release', (doc) => (doc.jobs.publish.needs = ['check'])), /does not need test/));
	it('test no longer needs check (it would run for a wrong tag or repository)', () =>
		expectProblem(mutate('release', (doc) => delete doc.jobs.test.needs), /does not need check/));
	it('the release’s test job calls another workflow than CI', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.test.uses = './.github/workflows/quick.yml')), /not \.\/\.github\/workflows\/test\.yml/));
	it('a further job in the release (it could publish without the test)', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.hotfix = { 'runs-on': 'ubuntu-latest', steps: [{ run: 'npm publish --provenance' }] })), /expected exactly check, test, publish/));
	it('CI no longer calls test.yml', () => expectProblem(mutate('ci', (doc) => (doc.jobs.test = { 'runs-on': 'ubuntu-latest', steps: [{ run: 'npm run lint' }] })), /no job calls/));
	it('CI no longer runs on pull requests', () => expectProblem(mutate('ci', (doc) => delete doc.on.pull_request), /pull_request/));
	it('CI only on main', () => expectProblem(mutate('ci', (doc) => (doc.on.push.branches = ['main'])), /every push/));
	it('the release also on workflow_dispatch', () => expectProblem(mutate('release', (doc) => (doc.on.workflow_dispatch = null)), /only on pushed version tags/));
	it('the repository check removed', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.check.steps = steps(doc, 'check').filter((s) => !String(s.run).includes('repository.url')))), /repository it runs in/));
	it('the visibility check removed (a private repository would fail only at the publish, after the tests)', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.check.steps = steps(doc, 'check').filter((s) => !String(s.run).includes('$VISIBILITY')))), /not public/));
	it('the tag check removed', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.check.steps = steps(doc, 'check').filter((s) => !String(s.run).includes('$TAG')))), /comparing the tag/));
	it('the npm version check removed', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.publish.steps = steps(doc, 'publish').filter((s) => !String(s.run).includes('npm --version')))), /npm 11\.5\.1 or later/));
	it('the scanner removed', () =>
		expectProblem(mutate('release', (doc) => (doc.jobs.publish.steps = steps(doc, 'publish').filter((s) => !String(s.run).includes('scan-community-package')))), /scanner/));
	it('the scanner’s verdict no longer deciding', () =>
		expectProblem(mutate('release', (doc) => (stepWith(doc, 'publish', 'scan-community-package').run = stepWith(doc, 'publish', 'scan-community-package').run.replace(/grep -q .*\n/, ''))), /scanner/));
	it('npm install instead of npm ci in the test job', () => expectProblem(mutate('test', (doc) => (stepWith(doc, 'test', 'npm ci').run = 'npm install --no-audit --no-fund')), /npm ci/));
	it('npm install instead of npm ci before publishing', () => expectProblem(mutate('release', (doc) => (stepWith(doc, 'publish', 'npm ci').run = 'npm install')), /npm ci/));
	it('.ci/run with npm install', () => expectProblem({ ...REAL, ciRun: REAL.ciRun.replace('npm ci --no-audit --no-fund', 'npm install --no-audit --no-fund') }, /\.ci\/run: runs/));
	it('the image unpinned', () => expectProblem(mutate('test', (doc) => (doc.jobs.test.container.image = 'node:24-bookworm')), /not pinned/));
	it('the publish job in another image than the test job', () => expectProblem(mutate('release', (doc) => (doc.jobs.publish.container.image = 'node:24.20.0-bookworm')), /the test job's is/));
	it('the image’s Node not the devDependency’s', () =>
		expectProblem(mutate('test', (doc) => (doc.jobs.test.container.image = 'node:22.22.0-bookworm')), /devDependency node/));
	it('n8n’s cache not keyed on tools/n8n/versions.ts', () =>
		expectProblem(mutate('test', (doc) => (stepWith(doc, 'test', 'actions/cache').with.key = 'n8n-${{ runner.os }}')), /cache key/));
	it('the token made required (trusted publishing would stop working)', () =>
		expectProblem(mutate('release', (doc) => (publishStep(doc).run = 'npm config set //registry.npmjs.org/:_authToken "$NODE_AUTH_TOKEN"\nnpm publish --provenance --access public\n')), /not optional/));
});

describe('the guard steps, changed', () => {
	const releaseWith = (change: (doc: Doc) => void) => mutate('release', change).release;
	it('an npm check that lets 11.5.0 through', () => {
		const text = releaseWith((doc) => (stepWith(doc, 'publish', 'npm --version').run = stepWith(doc, 'publish', 'npm --version').run.replace('11005001', '11005000')));
		expect(guardStepProblems(text, 'npm').join('\n')).toMatch(/npm 11\.5\.0: exit 0, expected failure/);
	});
	it('a tag check that takes "## Unreleased" above the version', () => {
		const text = releaseWith((doc) => (stepWith(doc, 'check', '$TAG').run = stepWith(doc, 'check', '$TAG').run.replace("grep -m1 '^## ' CHANGELOG.md", "grep -m1 '^## [0-9]' CHANGELOG.md")));
		expect(guardStepProblems(text, 'tag').join('\n')).toMatch(/Unreleased.*expected failure/);
	});
	it('a visibility check that lets a private repository through', () => {
		const text = releaseWith((doc) => (stepWith(doc, 'check', '$VISIBILITY').run = stepWith(doc, 'check', '$VISIBILITY').run.replace('"$VISIBILITY" != "public"', '"$VISIBILITY" = "internal"')));
		expect(guardStepProblems(text, 'visibility').join('\n')).toMatch(/private repository: exit 0, expected failure/);
	});
	it('a repository check that compares only the name', () => {
		const text = releaseWith((doc) => (stepWith(doc, 'check', 'repository.url').run = stepWith(doc, 'check', 'repository.url').run.replace('expected="git+https://github.com/$REPOSITORY.git"', 'expected="git+https://github.com/Acme/${REPOSITORY#*/}.git"')));
		expect(guardStepProblems(text, 'repository').join('\n')).toMatch(/someone\/n8n-nodes-x: exit 0, expected failure/);
	});
});
