/**
 * `npm test` (scripts/test-all.sh) runs its steps through `step` (scripts/step.sh): every step ends with
 * a line saying it passed, a failing step says so and stops the run with its exit code. Commands started
 * beside the steps go through `background`; the run ends with a table of every step's time, and stops
 * what still runs in the background.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/** Runs `script` with step.sh loaded; its step folders go in a temporary folder removed afterwards. */
function runSteps(script: string): { status: number | null; lines: string[] } {
	const tmp = mkdtempSync(join(tmpdir(), 'bm-steps-tmp-'));
	try {
		const result = spawnSync('bash', ['-c', `set -euo pipefail; source scripts/step.sh; ${script}`], {
			cwd: ROOT,
			encoding: 'utf8',
			env: { ...process.env, TMPDIR: tmp },
		});
		return { status: result.status, lines: result.stdout.trim().split('\n') };
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}

/** Where the table begins: its heading says whose CPU it counts (step.sh: STEPS_CPU_OF). */
const tableAt = (lines: string[]) => lines.findIndex((line) => /^Each step's wall time and CPU time in seconds \(CPU: user \+ system time of (all its processes|the processes its shell waited for)\):$/.test(line));

/** Whether this user may make the kernel's CPU accounting groups, as step.sh tries. */
function accountingGroups(): boolean {
	const probe = `/sys/fs/cgroup/cpuacct/npm-test-jest-probe-${process.pid}`;
	try {
		mkdirSync(probe);
		rmdirSync(probe);
		return true;
	} catch {
		return false;
	}
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

	it('the table at the end names every step and background command with its result, wall and CPU time', () => {
		// 1.2 s of CPU time, however busy the machine.
		const busy = `node -e "while (process.cpuUsage().user < 1.2e6);"`;
		const { status, lines } = runSteps(
			`trap steps_table EXIT; background "installs" bash -c 'exit 0'; background "broken install" bash -c 'exit 4'; step "lint" ${busy}; sleep 1; step "type check" bash -c "exit 2"; step "never" true`,
		);
		expect(status).toBe(2);
		const table = lines.slice(tableAt(lines) + 1);
		expect(table[0]).toMatch(/^\s+wall\s+CPU\s+result\s+step$/);
		expect(table[1]).toMatch(/^\s+\d+\s+[1-9]\d*\s+passed\s+lint$/);
		expect(table[2]).toMatch(/^\s+\d+\s+0\s+FAILED\s+type check$/);
		expect(table[3]).toMatch(/^\s+\d+\s+0\s+passed\s+installs \(background\)$/);
		expect(table[4]).toMatch(/^\s+\d+\s+0\s+FAILED\s+broken install \(background; exit 4, log: .*background-1\.log\)$/);
		expect(table[5]).toMatch(/^\s+\d+\s+the whole run$/);
		expect(table).toHaveLength(6);
	});

	it('a process the step’s shell never waits for (as Chromium’s renderers) counts in its CPU where the kernel’s accounting groups can be made, and the table says whose CPU it counts', () => {
		const done = join(tmpdir(), `bm-steps-orphan-${process.pid}`);
		// Started in a subshell that ends at once: its parent is then init, never the step's shell.
		const orphan = `( setsid node -e 'while (process.cpuUsage().user < 1.2e6); require(\\"fs\\").writeFileSync(\\"${done}\\", \\"\\")' & ); while [ ! -f ${done} ]; do sleep 0.1; done`;
		try {
			const { status, lines } = runSteps(`trap steps_table EXIT; step "orphan" bash -c "${orphan}"`);
			expect(status).toBe(0);
			const at = tableAt(lines);
			expect(at).toBeGreaterThan(0);
			const cpu = Number(lines[at + 2].trim().split(/\s+/)[1]);
			if (accountingGroups()) expect([lines[at], cpu >= 1]).toEqual([expect.stringContaining('of all its processes'), true]);
			else expect([lines[at], cpu]).toEqual([expect.stringContaining('of the processes its shell waited for'), 0]);
		} finally {
			rmSync(done, { force: true });
		}
	});

	it('steps side by side: the output of each under its own lines when it ends, each in the table; a failed one stops the run once all ended', () => {
		const busy = `node -e \\"while (process.cpuUsage().user < 1.2e6);\\"`;
		const { status, lines } = runSteps(
			`trap steps_table EXIT; together "slow" "sleep 2; echo slow done" "broken" "echo broken out; exit 3" "busy" "${busy}; echo busy done"; step "never" true`,
		);
		expect(status).toBe(3);
		expect(lines[0]).toBe("== side by side (each one's output follows when it ends): slow; broken; busy");
		// The broken one ends first; each one's lines together; the run stops after all three.
		const block = (name: string) => lines.slice(lines.indexOf(`== ${name}`), lines.indexOf(`== ${name}`) + 3);
		expect(block('broken')).toEqual(['== broken', 'broken out', '== broken: FAILED (exit 3)']);
		expect(lines.indexOf('== broken')).toBe(1);
		expect(block('slow')).toEqual(['== slow', 'slow done', expect.stringMatching(/^== slow: passed \(\d+ s\)$/)]);
		expect(Number(/\((\d+) s\)/.exec(block('slow')[2])![1])).toBeGreaterThanOrEqual(2); // it slept 2 s; a busy machine may add more
		expect(block('busy')).toEqual(['== busy', 'busy done', expect.stringMatching(/^== busy: passed \(\d+ s\)$/)]);
		expect(lines).not.toContain('== never');
		const table = lines.slice(tableAt(lines) + 1);
		expect(table.slice(1, 4).map((row) => row.trim().replace(/\s+/g, ' '))).toEqual(
			expect.arrayContaining([expect.stringMatching(/^\d+ 0 FAILED broken \(side by side\)$/), expect.stringMatching(/^[2-9] 0 passed slow \(side by side\)$/), expect.stringMatching(/^\d+ [1-9]\d* passed busy \(side by side\)$/)]),
		);
		expect(table).toHaveLength(5);
	});

	it('a background command still running when the run ends is stopped, with everything it started', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'bm-steps-'));
		try {
			const pids = join(dir, 'pids');
			const { lines } = runSteps(`trap steps_table EXIT; background "install" bash -c 'sleep 60 & echo $$ $! > ${pids}; wait'; sleep 1; step "lint" true`);
			expect(lines.at(-2)).toMatch(/^\s+-\s+-\s+stopped\s+install \(background; unfinished at the end of the run\)$/);
			const [shell, sleeper] = readFileSync(pids, 'utf8').trim().split(' ');
			// Gone, or a zombie its new parent has not reaped yet.
			const running = (pid: string) => existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
			// Signalled at the run's end; a loaded machine may take a moment to end them.
			const deadline = Date.now() + 10_000;
			while ([shell, sleeper].some(running) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
			for (const pid of [shell, sleeper]) expect(running(pid)).toBe(false);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('every step of scripts/test-all.sh goes through step, every command beside them through background', () => {
		const commands = readFileSync(join(ROOT, 'scripts/test-all.sh'), 'utf8')
			.split('\n')
			.map((line) => line.trim())
			.filter((line) => /^(npm|npx|node|bash|tsx|step|background|together)\b/.test(line));
		expect(commands.length).toBeGreaterThanOrEqual(5);
		for (const line of commands) expect(line).toMatch(/^(step|background) "[^"]+" |^together \\$/);
	});
});
