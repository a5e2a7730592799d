import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installCleanupHandlers } from './proc';

/** How many of a log's last warnings and errors a failed suite prints. */
const FAILURE_LOG_LINES = 15;

/**
 * A suite's (or a pass's) folder for every process's log. Ctrl-C names it; at the end it stays when
 * something failed or `keepVariable` is set (E2E_KEEP, BENCH_KEEP), and goes otherwise. When something
 * failed, each log's last warnings and errors are printed too: on CI the output is all that stays.
 */
export function logsFolder(name: string, say: (line: string) => void, keepVariable = 'E2E_KEEP') {
	const dir = mkdtempSync(join(tmpdir(), `bm-${name}-`));
	installCleanupHandlers(() => say(`interrupted; logs in ${dir}`));
	return {
		dir,
		close(failed: boolean): void {
			if (failed) for (const line of lastWarnings(dir)) say(line);
			if (failed || process.env[keepVariable]) say(`logs kept in ${dir}`);
			else rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** The last warnings and errors of each `*.log` under `dir` (n8n's own event log left out), prefixed with its path. */
export function lastWarnings(dir: string): string[] {
	const logs = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.log') && !file.includes('.n8n'));
	return logs.flatMap((file) =>
		readFileSync(join(dir, file), 'utf8')
			.split('\n')
			// n8n logs every 409 of a resume address as an error: the trigger's own "does n8n hold the run yet?" asks;
			// and at every start, that it has no Python task runner.
			.filter((line) => /\b(warn(ing)?|error|failed)\b/i.test(line) && !/is running already|Python task runner/.test(line))
			.slice(-FAILURE_LOG_LINES)
			.map((line) => `${file}: ${line.slice(0, 300)}`),
	);
}
