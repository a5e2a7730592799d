import type { Stack } from '../../tools/n8n/stack';

export interface BenchContext {
	stack: Stack;
	/** Folder for logs and files of this run. */
	dir: string;
	rounds: number;
	/** Progress lines (stderr); tables go to stdout. */
	log: (line: string) => void;
	/** Where n8n's isolate counter writes (bench/lib/isolates.ts), when n8n runs with it. */
	isolateDir: string;
	/** n8n's main process and, once one runs, its task runner. */
	n8nPids: () => number[];
}
