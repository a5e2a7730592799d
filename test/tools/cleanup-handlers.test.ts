/**
 * What Ctrl-C prints in a suite that runs several deployments one after another (the queue suite's two
 * passes, the versions smoke's runs): the logs folder of the pass under way, not the first one's.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const PROC = join(__dirname, '../../tools/n8n/proc.ts');

/** A process that installs the handlers for each of `passes` in turn, then waits for a signal. */
function suiteInPass(passes: string[]) {
	const script = [
		`const { installCleanupHandlers } = require(${JSON.stringify(PROC)});`,
		...passes.map((pass) => `installCleanupHandlers(() => { process.stdout.write('logs in ${pass}\\n'); });`),
		`process.stdout.write('ready\\n');`,
		'setInterval(() => undefined, 1000);',
	].join('\n');
	return spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: join(__dirname, '../..'), stdio: ['ignore', 'pipe', 'pipe'] });
}

async function interrupt(passes: string[]): Promise<{ stdout: string; code: number | null }> {
	const child = suiteInPass(passes);
	let stdout = '';
	child.stdout.on('data', (chunk: Buffer) => {
		stdout += chunk.toString();
		if (stdout === 'ready\n') child.kill('SIGINT');
	});
	const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
	return { stdout, code };
}

describe('Ctrl-C in a suite of several passes', () => {
	it('names the logs of the pass under way, once, and exits 130', async () => {
		const { stdout, code } = await interrupt(['/tmp/first-pass', '/tmp/second-pass']);
		expect(stdout).toBe('ready\nlogs in /tmp/second-pass\n');
		expect(code).toBe(130);
	}, 30_000);

	it('names the only pass of a suite of one', async () => {
		const { stdout, code } = await interrupt(['/tmp/only-pass']);
		expect(stdout).toBe('ready\nlogs in /tmp/only-pass\n');
		expect(code).toBe(130);
	}, 30_000);
});
