import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installCleanupHandlers } from './proc';

/**
 * A suite's (or a pass's) folder for every process's log. Ctrl-C names it; at the end it stays when
 * something failed or `keepVariable` is set (E2E_KEEP, BENCH_KEEP), and goes otherwise.
 */
export function logsFolder(name: string, say: (line: string) => void, keepVariable = 'E2E_KEEP') {
	const dir = mkdtempSync(join(tmpdir(), `bm-${name}-`));
	installCleanupHandlers(() => say(`interrupted; logs in ${dir}`));
	return {
		dir,
		close(failed: boolean): void {
			if (failed || process.env[keepVariable]) say(`logs kept in ${dir}`);
			else rmSync(dir, { recursive: true, force: true });
		},
	};
}
