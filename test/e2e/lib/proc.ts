import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';

/** Every long-running process started here, each the leader of its own process group. */
const running = new Set<ChildProcess>();

export interface Started {
	child: ChildProcess;
	/** Everything the process wrote so far (stdout and stderr). */
	output: () => string;
	exited: Promise<number | null>;
	stop: () => Promise<void>;
}

/** Starts a process in its own process group, logging to `logFile`; stopped by `stopAll` at the latest. */
export function startProcess(
	command: string,
	args: string[],
	options: SpawnOptions & { logFile: string },
): Started {
	const { logFile, ...spawnOptions } = options;
	const child = spawn(command, args, { ...spawnOptions, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	running.add(child);
	const log = createWriteStream(logFile, { flags: 'a' });
	let text = '';
	const collect = (chunk: Buffer) => {
		log.write(chunk);
		if (text.length < 2_000_000) text += chunk.toString();
	};
	child.stdout?.on('data', collect);
	child.stderr?.on('data', collect);
	const exited = new Promise<number | null>((resolve) => {
		child.on('exit', (code, signal) => {
			running.delete(child);
			log.end();
			resolve(code ?? (signal ? -1 : null));
		});
		child.on('error', () => {
			running.delete(child);
			resolve(-1);
		});
	});
	return { child, output: () => text, exited, stop: () => stopProcess(child, exited) };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// already gone
	}
}

async function stopProcess(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) {
		killGroup(child, 'SIGKILL'); // leftovers of the group, if any
		return;
	}
	killGroup(child, 'SIGTERM');
	const done = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
	killGroup(child, 'SIGKILL');
	if (!done) await Promise.race([exited, sleep(2_000)]);
}

/** Stops every process group started through `startProcess`. */
export async function stopAll(): Promise<void> {
	await Promise.all([...running].map((child) => stopProcess(child, new Promise((r) => child.once('exit', r)))));
}

let handlersInstalled = false;
/** Stops everything on Ctrl-C, SIGTERM and process exit. `onSignal` runs before exiting. */
export function installCleanupHandlers(onSignal?: () => Promise<void> | void): void {
	if (handlersInstalled) return;
	handlersInstalled = true;
	const onSig = (signal: NodeJS.Signals) => {
		process.stderr.write(`\n${signal}: stopping everything started here…\n`);
		void (async () => {
			try {
				await onSignal?.();
			} finally {
				await stopAll();
				process.exit(130);
			}
		})();
	};
	process.once('SIGINT', onSig);
	process.once('SIGTERM', onSig);
	process.once('SIGHUP', onSig);
	process.on('exit', () => {
		for (const child of running) killGroup(child, 'SIGKILL');
	});
}

/** Runs a command to completion; resolves with its output, rejects on a non-zero exit. */
export function run(
	command: string,
	args: string[],
	options: SpawnOptions & { timeoutMs?: number; allowFailure?: boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const { timeoutMs = 600_000, allowFailure = false, ...spawnOptions } = options;
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { ...spawnOptions, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
		running.add(child);
		let stdout = '';
		let stderr = '';
		child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
		child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
		const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
		child.on('error', (error) => {
			clearTimeout(timer);
			running.delete(child);
			reject(error);
		});
		child.on('close', (code) => {
			clearTimeout(timer);
			running.delete(child);
			killGroup(child, 'SIGKILL');
			if (code !== 0 && !allowFailure) {
				reject(
					new Error(
						`${command} ${args.join(' ')} exited with ${code}\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`,
					),
				);
			} else resolve({ code, stdout, stderr });
		});
	});
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

/** Polls `probe` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function waitFor<T>(
	what: string,
	probe: () => Promise<T | undefined>,
	timeoutMs: number,
	intervalMs = 250,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	while (Date.now() < deadline) {
		try {
			const value = await probe();
			if (value !== undefined) return value;
		} catch (error) {
			lastError = error;
		}
		await sleep(intervalMs);
	}
	throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}
