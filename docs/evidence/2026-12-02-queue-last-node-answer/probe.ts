/**
 * n8n 2.41.1, queue mode: a webhook process answers a Webhook node set to "When Last Node Finishes" once Bull's
 * job.finished() returns. That call subscribes to the queue's completions only on the process's first job, and
 * only then looks for the job in the completed set, where n8n keeps none (removeOnComplete 0). Here two extra
 * `n8n webhook` processes reach Redis through a proxy of this probe: A's proxy holds back the SUBSCRIBE until
 * Redis has published the job's completion (a process slowed between queuing its first job and subscribing), B's
 * passes everything on. A Redis MONITOR connection shows the channel and when the completion was published.
 * Run: PACKED_TARBALL=<tarball> node --import tsx docs/evidence/2026-12-02-queue-last-node-answer/probe.ts [rounds] [keep]
 * `keep`: N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED on every process (n8n's default 0).
 */
import { readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { N8n, underWay } from '../../../tools/n8n/n8n';
import { logsFolder } from '../../../tools/n8n/logs';
import { sleep, stopAll, waitFor } from '../../../tools/n8n/proc';
import { startQueueStack, type QueueStack } from '../../../tools/n8n/queue-stack';
import { chain, setFields, webhookTrigger } from '../../../tools/n8n/workflow';

const ROUNDS = Number(process.argv[2] ?? 3);
const KEEP_LAST_COMPLETED = process.argv[3];
const PATH = 'probe-last-node';
const POST_TIMEOUT_MS = 30_000;
/** Longest hold of A's SUBSCRIBE when no completion is published meanwhile. */
const HOLD_CAP_MS = 15_000;
const OWNER = { email: 'owner@probe.example.com', password: 'Probe-owner-Passw0rd!', firstName: 'Probe', lastName: 'Owner' };
const workflow = chain('probeLastNode', 'Probe: answer when the last node finishes', [webhookTrigger(PATH, 'Run', 'lastNode'), setFields('Answer', { answered: true })]);

const started = Date.now();
const at = (ms = Date.now()) => `+${((ms - started) / 1000).toFixed(1)} s`;
const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Redis MONITOR: SUBSCRIBE and PUBLISH on the completions' channel, a job's removal (DEL of its hash) and Bull's
 * isFinished (ZSCORE in the completed set), with who sent each (a client's address, or lua for Bull's scripts).
 */
interface Seen { ms: number; command: string; key: string; from: string; jobId?: string }
function monitor(port: number, onSeen: (seen: Seen) => void): Socket {
	const socket = connect(port, '127.0.0.1', () => socket.write('MONITOR\r\n'));
	let rest = '';
	socket.on('data', (chunk) => {
		const lines = (rest + chunk.toString()).split('\r\n');
		rest = lines.pop() ?? '';
		for (const line of lines) {
			const m = /^\+[\d.]+ \[\d+ ([^\]]+)\] "(\w+)" "([^"]*)"(.*)$/.exec(line);
			if (!m) continue;
			const [, from, name, key, more] = m;
			const command = name.toUpperCase();
			const completions = key.endsWith(':completed');
			if (/^P?SUBSCRIBE$/.test(command) && completions) onSeen({ ms: Date.now(), from, command, key });
			else if (command === 'PUBLISH' && completions) onSeen({ ms: Date.now(), from, command, key, jobId: /jobId\\":\\"?(\d+)/.exec(more)?.[1] });
			else if (command === 'ZSCORE' && completions) onSeen({ ms: Date.now(), from, command, key, jobId: /"(\d+)"/.exec(more)?.[1] });
			else if (command === 'DEL' && /^bull:[^:]+:\d+$/.test(key)) onSeen({ ms: Date.now(), from, command, key });
		}
	});
	return socket;
}

/**
 * A TCP proxy to Redis. With `hold`, the first client→Redis chunk holding a SUBSCRIBE to completions, and all
 * after it on that connection (to keep their order), wait until `release()`.
 */
function proxy(redisPort: number, hold: boolean) {
	const upstreamPorts = new Set<number>();
	const sockets = new Set<Socket>();
	let held: { ms: number; release: () => void } | undefined;
	let releasedMs: number | undefined;
	const server = createServer((client) => {
		const upstream = connect(redisPort, '127.0.0.1', () => upstreamPorts.add(upstream.localPort!));
		for (const s of [client, upstream]) {
			sockets.add(s);
			s.on('error', () => undefined);
			s.on('close', () => {
				client.destroy();
				upstream.destroy();
			});
		}
		upstream.on('data', (chunk) => client.write(chunk));
		let queue: Buffer[] | undefined;
		client.on('data', (chunk) => {
			const text = chunk.toString();
			if (hold && !held && /subscribe/i.test(text) && /:completed/.test(text)) {
				queue = [];
				held = {
					ms: Date.now(),
					release: () => {
						releasedMs = Date.now();
						for (const c of queue ?? []) upstream.write(c);
						queue = undefined;
					},
				};
				setTimeout(() => releasedMs ?? held?.release(), HOLD_CAP_MS).unref();
			}
			if (queue) queue.push(chunk);
			else upstream.write(chunk);
		});
	});
	return {
		server,
		upstreamPorts,
		held: () => held,
		releasedMs: () => releasedMs,
		listen: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port))),
		close: () => {
			for (const s of sockets) s.destroy();
			server.close();
		},
	};
}

/** POSTs to the workflow's webhook; a 404 (not registered yet, no run started) is asked again. */
async function post(p: N8n): Promise<{ startMs: number; line: string; notFound: number }> {
	let notFound = 0;
	for (;;) {
		const startMs = Date.now();
		try {
			const r = await fetch(`${p.baseUrl}/webhook/${PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(POST_TIMEOUT_MS) });
			const body = await r.text();
			if (r.status === 404 && notFound++ < 120) {
				await sleep(500);
				continue;
			}
			return { startMs, notFound, line: `answered ${r.status} ${body.slice(0, 60)} after ${((Date.now() - startMs) / 1000).toFixed(1)} s` };
		} catch (error) {
			return { startMs, notFound, line: `no answer in ${((Date.now() - startMs) / 1000).toFixed(1)} s (${(error as Error).name})` };
		}
	}
}

/** The runs this process queued (its log's "Enqueued execution N (job J)"), as n8n lists them now. */
async function runsOf(stack: QueueStack, p: N8n): Promise<Array<{ text: string; status?: string }>> {
	const enqueued = [...p.serverOutput().matchAll(/Enqueued execution (\d+) \(job (\d+)\)/g)];
	const listed = await stack.n8n.executions(workflow.id, 100);
	return enqueued.map(([, id, job]) => {
		const status = listed.find((e) => e.id === id)?.status;
		return { status, text: `execution ${id} (job ${job}) ${status ?? 'not listed'}` };
	});
}
const runsText = (runs: Array<{ text: string }>) => runs.map((r) => r.text).join(', ') || 'none enqueued';

async function round(stack: QueueStack, n: number): Promise<void> {
	const proxies = { A: proxy(stack.redis.port, true), B: proxy(stack.redis.port, false) };
	const seen: Seen[] = [];
	const from = (s: Seen) => Object.entries(proxies).find(([, p]) => p.upstreamPorts.has(Number(s.from.split(':')[1])))?.[0] ?? s.from;
	const mon = monitor(stack.redis.port, (s) => {
		seen.push(s);
		// A's held SUBSCRIBE goes on once Redis has published a completion (only A's job runs meanwhile).
		if (s.command === 'PUBLISH' && proxies.A.held() && proxies.A.releasedMs() === undefined) proxies.A.held()!.release();
	});
	const processes: N8n[] = [];
	try {
		const t0 = Date.now();
		for (const [name, p] of Object.entries(proxies)) {
			const port = await p.listen();
			const { installDir, home, owner, encryptionKey } = stack.n8n;
			processes.push(new N8n({ installDir, home, owner, encryptionKey, name: `probe-${n}-${name}`, env: { ...stack.queueEnv, QUEUE_BULL_REDIS_PORT: String(port) } }));
		}
		const [a, b] = processes;
		await Promise.all(processes.map((p) => p.start({ command: 'webhook' })));
		say(`round ${n}: webhook processes A (SUBSCRIBE to completions held) and B (control) ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
		// What MONITOR saw since `sinceMs`; Bull's isFinished polls (ZSCORE) counted, not listed one by one.
		const events = (sinceMs: number) => {
			const lines: string[] = [];
			const polls: Seen[] = [];
			for (const s of seen.filter((s) => s.ms >= sinceMs)) {
				if (s.command === 'ZSCORE') polls.push(s);
				else lines.push(`${at(s.ms)} ${s.command} ${s.key} from ${from(s)}${s.jobId ? ` (job ${s.jobId})` : ''}`);
			}
			if (polls.length) lines.push(`ZSCORE ${polls[0].key} (is it finished?) ${polls.length} × for job(s) ${[...new Set(polls.map((p) => p.jobId))].join(', ')}, ${at(polls[0].ms)} to ${at(polls.at(-1)!.ms)}`);
			seen.length = 0;
			return lines.join('; ') || 'none';
		};
		const logged = (p: N8n, job: string) => p.serverOutput().split('\n').filter((l) => l.includes(`(job ${job})`)).join(' / ');

		const first = await post(a);
		say(`  A, first POST at ${at(first.startMs)} (after ${first.notFound} × 404): ${first.line}`);
		const h = proxies.A.held();
		say(`    proxy A: SUBSCRIBE held at ${h ? at(h.ms) : 'never'}, released at ${proxies.A.releasedMs() ? at(proxies.A.releasedMs()) : 'never'}`);
		say(`    Redis MONITOR: ${events(first.startMs)}`);
		const ended = await waitFor(`A's run to end`, async () => {
			const runs = await runsOf(stack, a);
			return runs.length && runs.every((r) => r.status && !underWay(r.status)) ? runs : undefined;
		}, 30_000, 500).catch(async () => await runsOf(stack, a));
		say(`    A's runs as n8n lists them: ${runsText(ended)}; A's log on it: ${logged(a, /\(job (\d+)\)/.exec(ended[0]?.text ?? '')?.[1] ?? '?')}`);
		const second = await post(a);
		say(`  A, second POST at ${at(second.startMs)}: ${second.line}`);
		say(`    Redis MONITOR: ${events(second.startMs)}; A's runs: ${runsText(await runsOf(stack, a))}`);
		const control = await post(b);
		say(`  B, first POST at ${at(control.startMs)} (after ${control.notFound} × 404): ${control.line}`);
		say(`    Redis MONITOR: ${events(control.startMs)}; B's runs: ${runsText(await runsOf(stack, b))}`);
		await a.stop();
		const waiting = /Waiting for \d+ active executions? to finish/.exec(readFileSync(a.logFile, 'utf8'));
		say(`  A stopped (SIGTERM): ${waiting ? `its log says "${waiting[0]}"` : 'no active execution left in its log'}`);
	} finally {
		await Promise.all(processes.map((p) => p.stop()));
		for (const p of Object.values(proxies)) p.close();
		mon.destroy();
	}
}

async function main(): Promise<void> {
	const logs = logsFolder('probe-last-node', (line) => process.stderr.write(`${line}\n`));
	let stack: QueueStack | undefined;
	try {
		const env = KEEP_LAST_COMPLETED === undefined ? undefined : { N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: KEEP_LAST_COMPLETED };
		stack = await startQueueStack({ dir: logs.dir, owner: OWNER, log: (line) => process.stderr.write(`# ${line}\n`), env, workflows: () => [workflow], activate: (w) => w.map((x) => x.id) });
		say(`stack ready at ${at()}: n8n main, 2 webhook processes, 1 worker, PostgreSQL, Redis on ${stack.redis.port}${env ? `; every process with ${JSON.stringify(env)}` : ''}`);
		for (let n = 1; n <= ROUNDS; n++) await round(stack, n);
	} finally {
		await stack?.stop();
		await stopAll();
		logs.close(false);
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`${String(error)}\n`);
	process.exitCode = 1;
});
