/**
 * Counting what n8n does, through preloads that append one byte per thing counted to a file per process:
 * the expression isolates it creates (isolate-counter.cjs), the HTTP requests it serves (request-counter.cjs).
 */
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Environment for n8n that preloads the isolate counter, writing into `dir`. */
export function isolateCounterEnv(dir: string): Record<string, string> {
	mkdirSync(dir, { recursive: true });
	return { NODE_OPTIONS: `--require ${join(__dirname, 'isolate-counter.cjs')}`, BENCH_ISOLATE_DIR: dir };
}

/** `env` with the request counter preloaded too, writing into `dir`. */
export function requestCounterEnv(dir: string, env: Record<string, string>): Record<string, string> {
	mkdirSync(dir, { recursive: true });
	const preload = `--require ${join(__dirname, 'request-counter.cjs')}`;
	return { ...env, NODE_OPTIONS: env.NODE_OPTIONS ? `${env.NODE_OPTIONS} ${preload}` : preload, BENCH_REQUEST_DIR: dir };
}

/** Things counted so far by every process that wrote into `dir`. */
function counted(dir: string): number {
	return readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
}

/** Isolates created so far (isolateCounterEnv's `dir`). */
export const isolatesCreated = counted;

/** HTTP requests served so far (requestCounterEnv's `dir`). */
export const requestsServed = counted;
