import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createServer } from 'node:net';

import { DEFAULT_DELIVERY_TIMEOUT_MS } from '../sandbox/webhooks';

/** Every long-running process started here, each the leader of its own process group. */
const running = new Set<ChildProcess>();

/** How long a process group gets between SIGTERM and SIGKILL. */
const STOP_GRACE_MS = 10_000;

/*
 * The watchdog: one small detached process per parent that holds the process groups started here and,
 * when the parent dies however it dies (its pipe closes), stops them: SIGTERM, then SIGKILL after the
 * grace time. Needed because the parent's own cleanup can be cut short: any parent may be killed outright,
 * and tsx's CLI SIGKILLs its child when the child's event loop does not confirm a signal within 30 ms
 * (the npm scripts run `node --import tsx` for that reason: no tsx parent process). It runs in its own
 * process group, so the terminal's Ctrl-C does not reach it.
 */
const WATCHDOG_SCRIPT = `
const groups = new Set();
let buffered = '';
const signal = (sig) => { for (const g of groups) { try { process.kill(-g, sig); } catch { groups.delete(g); } } };
process.stdin.on('data', (chunk) => {
	buffered += chunk;
	const lines = buffered.split('\\n');
	buffered = lines.pop();
	for (const line of lines) (line[0] === '+' ? groups.add(Number(line.slice(1))) : groups.delete(Number(line.slice(1))));
});
process.stdin.on('end', () => {
	signal('SIGTERM');
	const deadline = Date.now() + ${STOP_GRACE_MS};
	const poll = setInterval(() => {
		signal(0);
		if (groups.size > 0 && Date.now() < deadline) return;
		signal('SIGKILL');
		clearInterval(poll);
	}, 200);
});
`;
let watchdog: ChildProcess | undefined;

function tellWatchdog(line: string): void {
	if (!watchdog) {
		watchdog = spawn(process.execPath, ['-e', WATCHDOG_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
		watchdog.unref();
		(watchdog.stdin as unknown as { unref: () => void }).unref();
		// Without a watchdog the parent's own handlers still stop everything; never crash over it.
		watchdog.on('error', () => undefined);
		watchdog.stdin?.on('error', () => undefined);
	}
	watchdog.stdin?.write(`${line}\n`);
}

/** Starts `command` as the leader of a new process group that the watchdog knows about. */
function spawnGroup(command: string, args: string[], options: SpawnOptions): ChildProcess {
	const child = spawn(command, args, { ...options, detached: true });
	if (child.pid !== undefined) {
		tellWatchdog(`+${child.pid}`);
		running.add(child);
	}
	return child;
}

/** After the group leader exited: kills what is left of its group and forgets the group. */
function forgetGroup(child: ChildProcess): void {
	killGroup(child, 'SIGKILL');
	running.delete(child);
	if (child.pid !== undefined) tellWatchdog(`-${child.pid}`);
}

export interface Started {
	child: ChildProcess;
	/** What the process wrote so far (stdout and stderr; the first 2 MB). */
	output: () => string;
	exited: Promise<number | null>;
	stop: () => Promise<void>;
}

/**
 * Starts a process in its own process group, writing straight into `logFile`; stopped by `stopAll` at
 * the latest. Not through a pipe: a process whose output pipe closes (its parent killed) can spin on
 * write errors instead of shutting down, as n8n did; a file outlives the parent.
 */
export function startProcess(
	command: string,
	args: string[],
	options: SpawnOptions & { logFile: string },
): Started {
	const { logFile, ...spawnOptions } = options;
	const fd = openSync(logFile, 'a');
	const from = fstatSync(fd).size;
	let child: ChildProcess;
	try {
		child = spawnGroup(command, args, { ...spawnOptions, stdio: ['ignore', fd, fd] });
	} finally {
		closeSync(fd);
	}
	const output = () => {
		const file = openSync(logFile, 'r');
		try {
			const buffer = Buffer.alloc(Math.min(Math.max(fstatSync(file).size - from, 0), 2_000_000));
			const read = readSync(file, buffer, 0, buffer.length, from);
			return buffer.subarray(0, read).toString();
		} finally {
			closeSync(file);
		}
	};
	const exited = new Promise<number | null>((resolve) => {
		child.on('exit', (code, signal) => {
			forgetGroup(child);
			resolve(code ?? (signal ? -1 : null));
		});
		child.on('error', () => {
			forgetGroup(child);
			resolve(-1);
		});
	});
	return { child, output, exited, stop: () => stopProcess(child, exited) };
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
	const done = await Promise.race([exited.then(() => true), graceOver(STOP_GRACE_MS).then(() => false)]);
	killGroup(child, 'SIGKILL');
	if (!done) await Promise.race([exited, graceOver(2_000)]);
}

/** A wait that does not keep the test process alive once everything else is done. */
function graceOver(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Stops every process group started through `startProcess`. */
export async function stopAll(): Promise<void> {
	await Promise.all([...running].map((child) => stopProcess(child, new Promise((r) => child.once('exit', r)))));
}

let handlersInstalled = false;
/** The latest caller's: a suite that runs several deployments one after another names the current one's logs. */
let currentOnSignal: (() => Promise<void> | void) | undefined;
/**
 * Stops everything on Ctrl-C, SIGTERM and process exit. `onSignal` of the latest call runs before exiting.
 * The handlers stay installed while stopping: a second signal (npm and tsx each pass Ctrl-C on once more)
 * must not find no handler, which would make tsx's signal hook end the process before its cleanup is done.
 */
export function installCleanupHandlers(onSignal?: () => Promise<void> | void): void {
	currentOnSignal = onSignal;
	if (handlersInstalled) return;
	handlersInstalled = true;
	let stopping = false;
	const onSig = (signal: NodeJS.Signals) => {
		if (stopping) return;
		stopping = true;
		process.stderr.write(`\n${signal}: stopping everything started here…\n`);
		void (async () => {
			try {
				await currentOnSignal?.();
			} finally {
				await stopAll();
				process.exit(130);
			}
		})();
	};
	process.on('SIGINT', onSig);
	process.on('SIGTERM', onSig);
	process.on('SIGHUP', onSig);
	process.on('exit', () => {
		for (const child of running) killGroup(child, 'SIGKILL');
	});
}

/**
 * Runs a command to completion; resolves with its output, rejects on a non-zero exit. `onStderrLine`
 * receives each line the command writes to stderr as it comes (progress for the user).
 */
export function run(
	command: string,
	args: string[],
	options: SpawnOptions & { timeoutMs?: number; allowFailure?: boolean; onStderrLine?: (line: string) => void } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
	const { timeoutMs = 600_000, allowFailure = false, onStderrLine, ...spawnOptions } = options;
	return new Promise((resolve, reject) => {
		const child = spawnGroup(command, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		let partial = '';
		child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
		child.stderr?.on('data', (c: Buffer) => {
			stderr += c.toString();
			if (!onStderrLine) return;
			const lines = (partial + c.toString()).split('\n');
			partial = lines.pop() ?? '';
			for (const line of lines) if (line.trim() !== '') onStderrLine(line);
		});
		const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
		child.on('error', (error) => {
			clearTimeout(timer);
			forgetGroup(child);
			reject(error);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			forgetGroup(child);
			if (onStderrLine && partial.trim() !== '') onStderrLine(partial);
			if (code !== 0 && !allowFailure) {
				reject(
					new Error(
						`${command} ${args.join(' ')} exited with ${code ?? signal}\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`,
					),
				);
			} else resolve({ code, signal, stdout, stderr });
		});
	});
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * How long the stall cases stop an n8n process: longer than the service waits for an answer (the sandbox's
 * delivery timeout), so that senders give up and retry while it stands still.
 */
export const STALL_MS = DEFAULT_DELIVERY_TIMEOUT_MS + 5_000;

/**
 * Stops process `pid` (SIGSTOP, as a blocked event loop or a paused container) for STALL_MS, then lets it go
 * on (SIGCONT), also when `meanwhile`, run during the stall, fails. What `meanwhile` returned.
 */
export async function stall<T>(pid: number, meanwhile: () => Promise<T> = async () => undefined as T): Promise<T> {
	const until = Date.now() + STALL_MS;
	process.kill(pid, 'SIGSTOP');
	try {
		const result = await meanwhile();
		await sleep(until - Date.now());
		return result;
	} finally {
		process.kill(pid, 'SIGCONT');
	}
}

/** A port that was free on 127.0.0.1 a moment ago. */
/** Ports this process handed out: the system may offer a closed port again at once (two n8n roles, or two lanes, got one port). */
const handedOut = new Set<number>();

export async function freePort(): Promise<number> {
	for (;;) {
		const port = await unusedPort();
		if (!handedOut.has(port)) {
			handedOut.add(port);
			return port;
		}
	}
}

function unusedPort(): Promise<number> {
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

/** `75_000` → `1 min 15 s`. */
export function formatElapsed(ms: number): string {
	const seconds = Math.round(ms / 1000);
	return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * Runs a step that may take long, saying every `everyMs` what it is doing and for how long, so a user
 * watching a silent download knows it is alive. `doing` may change while the step runs (its latest state).
 */
export async function withProgress<T>(
	doing: string | (() => string),
	step: () => Promise<T>,
	log: (line: string) => void,
	everyMs = 15_000,
): Promise<T> {
	const started = Date.now();
	const timer = setInterval(() => {
		const what = typeof doing === 'string' ? doing : doing();
		log(`… still ${what} (${formatElapsed(Date.now() - started)} so far)`);
	}, everyMs);
	try {
		return await step();
	} finally {
		clearInterval(timer);
	}
}
