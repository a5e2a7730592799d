import { stopAll } from '../../../tools/n8n/proc';

/** One line per check: `ok - …` / `not ok - …`, details indented as `#` comments. */

/**
 * An error as a failed check prints it: its stack, then each cause (fetch's "fetch failed" says why only in its
 * cause: the socket's error).
 */
export function errorText(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	const text = error.stack ?? error.message;
	return error.cause === undefined ? text : `${text}\ncause: ${errorText(error.cause)}`;
}

export interface Check {
	name: string;
	fn: () => Promise<void>;
	/** Fails the check when it takes longer (ms). */
	timeoutMs?: number;
}

/**
 * `timedFromMs`: a check that took at least this long is followed by a line with its time (`#   took 12.3 s: <name>`), so a
 * run's output says where its time went (issue 50).
 */
export function createReporter(out: (line: string) => void = (line) => process.stdout.write(`${line}\n`), timedFromMs = 5000) {
	let passed = 0;
	const failures: string[] = [];
	const result = (name: string, ok: boolean, detail?: string) => {
		if (ok) passed++;
		else failures.push(detail ? `${name.slice(0, 100)}: ${detail.split('\n')[0]}` : name.slice(0, 100));
		out(`${ok ? 'ok' : 'not ok'} - ${name}`);
		if (!ok && detail) for (const line of detail.split('\n').slice(0, 40)) out(`#   ${line}`);
	};
	const only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY, 'i') : undefined;
	const run = async (check: Check) => {
		if (only && !only.test(check.name)) return;
		const timeout = check.timeoutMs ?? 120_000;
		const started = Date.now();
		let timer: NodeJS.Timeout | undefined;
		try {
			await Promise.race([
				check.fn(),
				new Promise((_, reject) => {
					timer = setTimeout(() => reject(new Error(`timed out after ${timeout} ms`)), timeout);
				}),
			]);
			result(check.name, true);
		} catch (error) {
			result(check.name, false, errorText(error));
		} finally {
			clearTimeout(timer);
			const took = Date.now() - started;
			// Named: checks of suites side by side (lanes) print in between.
			if (took >= timedFromMs) out(`#   took ${(took / 1000).toFixed(1)} s: ${check.name.slice(0, 70)}`);
		}
	};
	return { result, run, totals: () => ({ passed, failed: failures.length }), failures: () => failures };
}

export type Reporter = ReturnType<typeof createReporter>;

/**
 * A suite's closing line, `N passed, N failed` over its reporters, and its exit code: 1 when a check failed, or
 * when none ran (a filter that matched nothing, a suite that skipped its checks): that proves nothing. The failed
 * checks are named again just before it, each with its error's first line: a long output is often seen by its end.
 */
export function closingLine(...reports: Reporter[]): number {
	for (const failure of reports.flatMap((r) => r.failures())) process.stdout.write(`# failed: ${failure}\n`);
	const passed = reports.reduce((sum, r) => sum + r.totals().passed, 0);
	let failed = reports.reduce((sum, r) => sum + r.totals().failed, 0);
	if (passed + failed === 0) {
		process.stdout.write('not ok - no check ran\n');
		failed = 1;
	}
	process.stdout.write(`${passed} passed, ${failed} failed\n`);
	return failed > 0 ? 1 : 0;
}

/** Throws with both values when they differ (compared as JSON). */
export function assertEqual(actual: unknown, expected: unknown, what: string): void {
	if (JSON.stringify(actual) !== JSON.stringify(expected)) {
		throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
	}
}

export function assert(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(message);
}

/**
 * Runs a suite to its exit code. A crash still ends in the suite's one closing line, after every process
 * the suite started is stopped.
 */
export function runSuite(suite: () => Promise<number>): void {
	suite().then(
		(code) => process.exit(code),
		async (error: unknown) => {
			process.stdout.write(`not ok - suite crashed: ${String(error)}\n`);
			await stopAll();
			process.stdout.write('0 passed, 1 failed\n');
			process.exit(1);
		},
	);
}
