/**
 * The first publish's checks that need the npm the release image bundles (pinned-npm.ts): the `npm trust`
 * line against that npm's own help (trust.ts) and the dry run of every step (first-publish-dry-run.ts), each
 * fed a wrong CONTRIBUTING.md once. The npm comes from PATH or npm's cache, or from the npm registry once.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstPublishCommands, imageNpm, nodeChangelog } from './first-publish';
import { dryRunFirstPublish } from './first-publish-dry-run';
import { commandDocPath, findPinnedNpm, type PinnedNpm, runNpm } from './pinned-npm';
import { trustLine, trustLineProblems } from './trust';

const ROOT = join(__dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const CONTRIBUTING = read('CONTRIBUTING.md');
const pkg = JSON.parse(read('package.json')) as { name: string; devDependencies: Record<string, string> };
const LINE = trustLine(CONTRIBUTING)!;

let npm: PinnedNpm;
let help: string;
let doc: string;
beforeAll(() => {
	const image = imageNpm(read('.github/workflows/test.yml'), nodeChangelog(ROOT, pkg.devDependencies.node));
	npm = findPinnedNpm(image.npm!, image.image!);
	help = runNpm(npm, ['trust', 'github', '--help'], tmpdir()).output;
	doc = readFileSync(commandDocPath(npm, 'trust'), 'utf8');
}, 240_000);

describe('the `npm trust` line against the release image’s npm', () => {
	const problems = (contributing: string) => trustLineProblems({ contributing, help, doc, npmVersion: npm.version, packageName: pkg.name, workflowFile: 'release.yml' });
	const withLine = (line: string) => CONTRIBUTING.replace(LINE, line);

	it('the real line passes', () => expect(problems(CONTRIBUTING)).toEqual([]));
	it('the line as it was, without a permission flag, fails', () =>
		expect(problems(withLine(LINE.replace(' --allow-publish', ''))).join('\n')).toMatch(/has no permission flag; npm 11\.\d+\.\d+ requires at least one of --allow-publish, --allow-stage-publish/));
	it('only --allow-stage-publish fails: the workflow runs npm publish', () =>
		expect(problems(withLine(LINE.replace('--allow-publish', '--allow-stage-publish'))).join('\n')).toMatch(/does not let the workflow run npm publish \(--allow-publish\)/));
	it('a flag npm does not have fails', () => expect(problems(withLine(`${LINE} --allow-publishing`)).join('\n')).toMatch(/--allow-publishing is not an option of npm trust github of npm/));
	it('without the required --file fails', () => expect(problems(withLine(LINE.replace(' --file release.yml', ''))).join('\n')).toMatch(/lacks --file, which npm trust github of npm .* requires/));
	it('another workflow file fails', () => expect(problems(withLine(LINE.replace('release.yml', 'publish.yml'))).join('\n')).toMatch(/names the workflow file publish\.yml, the release workflow is release\.yml/));
	it('another package fails', () => expect(problems(withLine(LINE.replace(pkg.name, 'n8n-nodes-other'))).join('\n')).toMatch(/names the package n8n-nodes-other/));
	it('the old "npm 11.10 or later" fails: npm help trust names the version it needs', () =>
		expect(problems(CONTRIBUTING.replace('with npm 11.15.0 or later', 'with npm 11.10 or later')).join('\n')).toMatch(/says npm 11\.10, 11\.5\.1 or later; npm help trust of npm .* requires npm@11\.15\.0/));
});

describe('the first publish, dry run on a scratch clone', () => {
	const dryRun = (contributing?: string) => dryRunFirstPublish(ROOT, npm, contributing);

	it('reads the commands of the numbered steps, in order', () =>
		expect(firstPublishCommands(CONTRIBUTING)).toEqual([
			'npm run set-repository -- <owner>/<name> <e-mail>',
			'npm run test:release',
			'git commit -am "Set the repository\'s address"',
			'git push origin main',
			'npm run release -- 0.2.0',
			'npm test',
			'git commit -am "Release 0.2.0"',
			'git tag v0.2.0',
			'git push origin main v0.2.0',
			LINE,
		]));

	it('every command runs or says why it cannot run offline, and the real steps pass', () => {
		const { log, problems } = dryRun();
		expect(problems).toEqual([]);
		expect(log.filter((l) => l.startsWith('ran: ')).length).toBe(8);
		expect(log.join('\n')).toMatch(/→ the Release run of v0\.2\.0: ran npm publish --provenance=false --access public --dry-run --offline/);
	}, 180_000);

	it('the trust line without a permission flag fails with npm’s own words', () => {
		const { problems } = dryRun(CONTRIBUTING.replace(LINE, LINE.replace(' --allow-publish', '')));
		expect(problems.join('\n')).toMatch(/npm trust github .*: .*exit 1:[\s\S]*At least one permission flag is required \(--allow-publish, --allow-stage-publish\)/);
	}, 180_000);

	it('set-repository without the e-mail fails with the tool’s words', () => {
		const { problems } = dryRun(CONTRIBUTING.split('npm run set-repository -- <owner>/<name> <e-mail>').join('npm run set-repository -- <owner>/<name>'));
		expect(problems.join('\n')).toMatch(/set-repository -- <owner>\/<name>`: exit 1:[\s\S]*give the maintainers' e-mail with the new owner/);
	}, 60_000);

	it('a placeholder sentence that set-repository rewrites (a link) fails', () => {
		const placeholder = /placeholder: the repository `([^`]+)`/.exec(CONTRIBUTING)![1];
		const { problems } = dryRun(CONTRIBUTING.replace(`placeholder: the repository \`${placeholder}\``, `placeholder: the repository \`https://github.com/${placeholder}\``));
		expect(problems.join('\n')).toMatch(new RegExp(`sentence about the placeholder named ${placeholder} and now names Acme-Labs/bm-nodes`));
	}, 60_000);

	it('a tag pushed without npm run release fails the Release run’s tag check', () => {
		const { problems } = dryRun(CONTRIBUTING.replace('`npm run release -- 0.2.0`', 'the release tool').replace('`git commit -am "Release 0.2.0"`', 'commit'));
		expect(problems.join('\n')).toMatch(/git push origin main v0\.2\.0`: the Release run of v0\.2\.0: the tag check fails/);
	}, 60_000);

	it('npm trust before the first version is published fails', () => {
		const moved = CONTRIBUTING.replace(`\`${LINE}\``, 'the trust line').replace('`git push origin main`.', `\`git push origin main\`, \`${LINE}\`.`);
		expect(dryRun(moved).problems.join('\n')).toMatch(/runs before any version is published/);
	}, 60_000);

	it('a command the dry run does not know fails', () => {
		const { problems } = dryRun(CONTRIBUTING.replace('`git tag v0.2.0`', '`npm run publish-now`, `git tag v0.2.0`'));
		expect(problems.join('\n')).toMatch(/`npm run publish-now`: the dry run does not know this command/);
	}, 60_000);
});
