/** The machine and versions, printed at the top of every run. */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export function machineLines(extra: Record<string, string>): string[] {
	let model = cpus()[0]?.model ?? 'unknown';
	try {
		model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? model;
	} catch {
		// not Linux
	}
	return [
		`Machine: ${model}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory`,
		...Object.entries(extra).map(([k, v]) => `${k}: ${v}`),
		`Date: ${new Date().toISOString()}`,
	];
}
