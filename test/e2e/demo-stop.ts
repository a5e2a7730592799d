/**
 * npm run test:demo-stop: `npm run demo` as a user runs it, stopped as a user stops it.
 * - With its n8n port taken, the demo says so and names the address to open instead.
 * - Ctrl-C (SIGINT to the whole process group: npm → sh → tsx → node) stops every process the demo
 *   started — n8n, its task runner, the sandbox — and frees their ports.
 * - When the demo process itself is killed outright (SIGKILL, no cleanup possible), its watchdog still
 *   stops n8n and the sandbox.
 * - Ctrl-C in the middle of `npm run test:e2e` stops everything the suite started (the same helpers in
 *   tools/n8n/proc.ts serve the benchmark).
 * Processes are identified by PID and start time, recorded from /proc before the signal; only those are
 * ever killed here (when a check fails, so that nothing is left behind).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loginCookie, REPO_ROOT } from '../../tools/n8n/n8n';
import { freePort, sleep, waitFor } from '../../tools/n8n/proc';
import { assert, closingLine, createReporter } from './lib/report';

interface Proc {
	pid: number;
	/** Start time in clock ticks since boot: tells a PID apart from a later process that reuses it. */
	start: string;
	ppid: number;
	cmd: string;
}

function readProc(pid: number): Proc | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		// The command name (in parentheses) may contain spaces: the fields after it are fixed.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		if (fields[0] === 'Z') return undefined; // exited, waiting to be reaped: nothing left running
		const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
		return { pid, ppid: Number(fields[1]), start: fields[19], cmd };
	} catch {
		return undefined;
	}
}

/** `root` and every process below it, now. */
function processTree(root: number): Proc[] {
	const all = readdirSync('/proc')
		.filter((name) => /^\d+$/.test(name))
		.map((name) => readProc(Number(name)))
		.filter((p): p is Proc => p !== undefined);
	const tree: Proc[] = [];
	const add = (pid: number) => {
		const proc = all.find((p) => p.pid === pid);
		if (proc) tree.push(proc);
		for (const child of all.filter((p) => p.ppid === pid)) add(child.pid);
	};
	add(root);
	return tree;
}

function stillRunning(procs: Proc[]): Proc[] {
	return procs.filter((p) => readProc(p.pid)?.start === p.start);
}

function portIsFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

function listen(port: number): Promise<Server> {
	return new Promise((resolve, reject) => {
		const server = createServer((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nother'));
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve(server));
	});
}

interface InTerminal {
	/** `script`, the terminal's owner: its tree holds everything the command started. */
	npm: ChildProcess;
	output: () => string;
	dir: string;
}

/**
 * `command` in a terminal of its own (a pseudo-terminal made by util-linux `script`), as a user runs it,
 * until its output matches `ready`. Writing Ctrl-C to it makes the kernel send SIGINT to the terminal's
 * foreground process group, exactly as pressing Ctrl-C does.
 */
async function startInTerminal(command: string, ready: RegExp, env: Record<string, string>): Promise<InTerminal> {
	const dir = mkdtempSync(join(tmpdir(), 'demo-stop-'));
	const npm = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
		cwd: REPO_ROOT,
		detached: true,
		stdio: ['pipe', 'pipe', 'pipe'],
		env: { ...process.env, DEMO_DIR: join(dir, 'demo'), ...env },
	});
	let text = '';
	npm.stdout?.on('data', (c: Buffer) => (text += c.toString()));
	npm.stderr?.on('data', (c: Buffer) => (text += c.toString()));
	const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
	try {
		await Promise.race([
			waitFor(`${command} to print ${ready}`, async () => (ready.test(text) ? true : undefined), 30 * 60_000, 500),
			exited.then(() => {
				throw new Error(`${command} exited before it was ready:\n${text.slice(-3000)}`);
			}),
		]);
	} catch (error) {
		killLeftovers(processTree(npm.pid ?? 0));
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
	return { npm, output: () => text, dir };
}

interface Demo extends InTerminal {
	n8nUrl: string;
	sandboxPort: number;
}

/** `npm run demo` in a terminal, until it prints its banner. */
async function startDemo(env: Record<string, string>): Promise<Demo> {
	const started = await startInTerminal('npm run demo', /n8n is running:\s+\S+[\s\S]*Sandbox \(the service\):\s+\S+/, env);
	const text = started.output();
	const n8nUrl = /n8n is running:\s+(\S+)/.exec(text)?.[1] ?? '';
	const sandboxUrl = /Sandbox \(the service\):\s+(\S+)/.exec(text)?.[1] ?? '';
	return { ...started, n8nUrl, sandboxPort: Number(new URL(sandboxUrl).port) };
}

/** The workflows a newcomer finds in the demo's n8n, logged in as the banner says. */
async function demoWorkflowNames(demo: Demo): Promise<string[]> {
	const [, email, password] = /log in as\s+(\S+)\s+\/\s+(\S+)/.exec(demo.output()) ?? [];
	const cookie = await loginCookie(demo.n8nUrl, { email, password });
	const res = await fetch(`${demo.n8nUrl}/rest/workflows`, { headers: { Cookie: cookie, 'browser-id': 'demo-stop' } });
	const body = (await res.json()) as { data: Array<{ name: string }> };
	return body.data.map((w) => w.name);
}

/** Waits (generously: the machine is shared) until none of `procs` runs; returns those still running. */
async function waitUntilGone(procs: Proc[], timeoutMs = 90_000): Promise<Proc[]> {
	const deadline = Date.now() + timeoutMs;
	while (stillRunning(procs).length > 0 && Date.now() < deadline) await sleep(250);
	return stillRunning(procs);
}

/** Kills what a failed check left behind: only the processes recorded as started by the demo. */
function killLeftovers(procs: Proc[]): void {
	for (const p of stillRunning(procs)) {
		try {
			process.kill(p.pid, 'SIGKILL');
		} catch {
			// gone meanwhile
		}
	}
}

/** The ports recorded n8n processes were started on (their N8N_PORT). */
function n8nPortsOf(procs: Proc[]): number[] {
	const n8ns = procs.filter((p) => p.cmd.includes('n8n/bin/n8n start'));
	assert(n8ns.length > 0, `no n8n among:\n${procs.map((p) => p.cmd).join('\n')}`);
	return n8ns.map((n8n) => {
		const env = readFileSync(`/proc/${n8n.pid}/environ`, 'utf8').split('\0');
		return Number(env.find((v) => v.startsWith('N8N_PORT='))?.slice('N8N_PORT='.length));
	});
}

async function checkEverythingStopped(ports: number[], started: Proc[], signalledAt: number): Promise<void> {
	const left = await waitUntilGone(started);
	const seconds = ((Date.now() - signalledAt) / 1000).toFixed(1);
	if (left.length > 0) killLeftovers(started);
	assert(left.length === 0, `still running after the signal:\n${left.map((p) => `${p.pid} ${p.cmd}`).join('\n')}`);
	for (const port of ports) assert(await portIsFree(port), `port ${port} is still taken`);
	process.stdout.write(`# all ${started.length} processes gone ${seconds} s after the signal\n`);
}

async function main(): Promise<void> {
	const reporter = createReporter();
	const cleanups: Array<() => void> = [];

	await reporter.run({
		name: 'with its n8n port busy, the demo says so and names the address to open instead; it offers the example workflows, the support bot included; its two trigger workflows share the one sandbox URL (an order created reaches the orders workflow, which accepts it); Ctrl-C in the terminal of npm run demo (SIGINT to its process group) stops every process it started and frees the ports',
		timeoutMs: 35 * 60_000,
		fn: async () => {
			const busyPort = await freePort();
			const blocker = await listen(busyPort);
			cleanups.push(() => blocker.close());
			const demo = await startDemo({ DEMO_PORT: String(busyPort), DEMO_SANDBOX_PORT: String(await freePort()) });
			const started = processTree(demo.npm.pid ?? 0);
			cleanups.push(() => killLeftovers(started));
			cleanups.push(() => rmSync(demo.dir, { recursive: true, force: true }));
			blocker.close();

			const health = await fetch(`${demo.n8nUrl}/healthz/readiness`);
			assert(health.ok, `the address the demo named does not answer as n8n: ${health.status}`);
			const names = await demoWorkflowNames(demo);
			// Each example under the name its file gives it, as after Import from File: no internal keys.
			const supportBot = (JSON.parse(readFileSync(join(REPO_ROOT, 'examples/support-bot.json'), 'utf8')) as { name: string }).name;
			assert(names.includes(supportBot), `the demo's workflows: ${names.join(', ')}; expected one named "${supportBot}"`);
			assert(names.every((name) => !/\(demo[A-Z]\w*\)/.test(name)), `a demo workflow name carries an internal key: ${names.join(', ')}`);
			// Two trigger workflows on the one sandbox URL: the orders example receives through the auto-reply's trigger.
			const sandboxUrl = `http://127.0.0.1:${demo.sandboxPort}/_sandbox`;
			await fetch(`${sandboxUrl}/deliver`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'order.created' }) });
			const accepted = await waitFor('order 61 accepted by the demo’s orders workflow', async () => {
				const order = (await (await fetch(`${sandboxUrl}/orders/61`)).json()) as { data?: { status?: string } };
				return order.data?.status === 'accepted' ? true : undefined;
			}, 60_000, 500).catch(() => false);
			assert(accepted, 'the order created through the sandbox was not accepted by the orders workflow (examples/orders.json, through the sharing trigger)');
			const signalledAt = Date.now();
			demo.npm.stdin?.write('\x03'); // Ctrl-C
			await checkEverythingStopped([Number(new URL(demo.n8nUrl).port), demo.sandboxPort], started, signalledAt);

			const out = demo.output();
			const n8nPort = Number(new URL(demo.n8nUrl).port);
			assert(n8nPort !== busyPort, `n8n was said to run on the busy port ${busyPort}`);
			assert(
				new RegExp(`Port ${busyPort} is busy[^\\n]*http://127\\.0\\.0\\.1:${n8nPort}`).test(out),
				`no line saying that port ${busyPort} is busy and naming http://127.0.0.1:${n8nPort}:\n${out.slice(0, 2000)}`,
			);
			assert(
				started.some((p) => p.cmd.includes('n8n/bin/n8n start')) && started.some((p) => /task-runner/.test(p.cmd)),
				`expected n8n and its task runner among the demo's processes:\n${started.map((p) => p.cmd).join('\n')}`,
			);

		},
	});

	await reporter.run({
		name: 'when the demo process is killed outright (SIGKILL), its watchdog stops n8n, its task runner and the sandbox',
		timeoutMs: 35 * 60_000,
		fn: async () => {
			const demo = await startDemo({ DEMO_PORT: String(await freePort()), DEMO_SANDBOX_PORT: String(await freePort()) });
			const started = processTree(demo.npm.pid ?? 0);
			cleanups.push(() => killLeftovers(started));
			cleanups.push(() => rmSync(demo.dir, { recursive: true, force: true }));
			const n8n = started.find((p) => p.cmd.includes('n8n/bin/n8n start'));
			const demoProcess = started.find((p) => p.pid === n8n?.ppid);
			assert(demoProcess, `no process starting n8n among:\n${started.map((p) => p.cmd).join('\n')}`);
			const signalledAt = Date.now();
			process.kill(demoProcess.pid, 'SIGKILL');
			await checkEverythingStopped([Number(new URL(demo.n8nUrl).port), demo.sandboxPort], started, signalledAt);
		},
	});

	await reporter.run({
		name: 'Ctrl-C in the terminal of npm run test:e2e, while its checks run (both lanes), stops everything the suite started and frees the ports of both n8n instances',
		timeoutMs: 35 * 60_000,
		fn: async () => {
			// Once both lanes have their n8n running (each says its set-up passed).
			// Every check (a filter of this suite's own run, E2E_ONLY, is not passed on: a lane left with none ends at once).
			const e2e = await startInTerminal('npm run test:e2e', /^ok - \[\w+\] set-up[\s\S]*^ok - \[\w+\] set-up/m, { E2E_ONLY: '' });
			cleanups.push(() => rmSync(e2e.dir, { recursive: true, force: true }));
			// Whatever still runs of it at the end (the wait below may fail).
			cleanups.push(() => killLeftovers(processTree(e2e.npm.pid ?? 0)));
			// Both n8n running: one lane may be in a restart of its checks just then (its n8n gone for seconds).
			const started = await waitFor(
				'an n8n for each lane',
				async () => {
					const tree = processTree(e2e.npm.pid ?? 0);
					return tree.filter((p) => p.cmd.includes('n8n/bin/n8n start')).length === 2 ? tree : undefined;
				},
				120_000,
				200,
			);
			cleanups.push(() => killLeftovers(started));
			const n8nPorts = n8nPortsOf(started);
			const signalledAt = Date.now();
			e2e.npm.stdin?.write('\x03'); // Ctrl-C
			await checkEverythingStopped(n8nPorts, started, signalledAt);
			assert(/SIGINT: stopping everything started here/.test(e2e.output()), `the suite did not say it was stopping:\n${e2e.output().slice(-1500)}`);
		},
	});

	for (const cleanup of cleanups.reverse()) cleanup();
	process.exit(closingLine(reporter));
}

void main();
