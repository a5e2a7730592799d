/**
 * `npm test` (scripts/test-all.sh) runs its steps through `step` (scripts/step.sh): every step ends with
 * a line saying it passed, a failing step says so and stops the run with its exit code.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

function runSteps(script: string): { status: number | null; lines: string[] } {
	const result = spawnSync('bash', ['-c', `set -euo pipefail; source scripts/step.sh; ${script}`], {
		cwd: ROOT,
		encoding: 'utf8',
	});
	return { status: result.status, lines: result.stdout.trim().split('\n') };
}

describe('npm test step lines', () => {
	it('a quiet command that succeeds (like the lint) still ends with a line saying it passed', () => {
		const { status, lines } = runSteps('step "lint" true; step "type check" bash -c "echo checked"');
		expect(status).toBe(0);
		expect(lines[0]).toBe('== lint');
		expect(lines[1]).toMatch(/^== lint: passed \(\d+ s\)$/);
		expect(lines[2]).toBe('== type check');
		expect(lines[3]).toBe('checked');
		expect(lines[4]).toMatch(/^== type check: passed \(\d+ s\)$/);
	});

	it('a failing step says FAILED with its exit code, and no later step runs', () => {
		const { status, lines } = runSteps('step "lint" bash -c "exit 3"; step "type check" true');
		expect(status).toBe(3);
		expect(lines).toEqual(['== lint', '== lint: FAILED (exit 3)']);
	});

	it('every step of scripts/test-all.sh goes through step', () => {
		const commands = readFileSync(join(ROOT, 'scripts/test-all.sh'), 'utf8')
			.split('\n')
			.filter((line) => /^(npm|npx|node|bash|tsx)\b/.test(line.trim()) || line.startsWith('step '));
		expect(commands.length).toBeGreaterThanOrEqual(5);
		for (const line of commands) expect(line).toMatch(/^step "[^"]+" /);
	});
});
