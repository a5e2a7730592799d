/** Counting the expression isolates n8n creates, through the preload in isolate-counter.cjs. */
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Environment for n8n that preloads the counter, writing into `dir`. */
export function isolateCounterEnv(dir: string): Record<string, string> {
	mkdirSync(dir, { recursive: true });
	return { NODE_OPTIONS: `--require ${join(__dirname, 'isolate-counter.cjs')}`, BENCH_ISOLATE_DIR: dir };
}

/** Isolates created so far by every process that wrote into `dir`. */
export function isolatesCreated(dir: string): number {
	return readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
}
