/**
 * 1. Sending: N sendText items through a real n8n to the sandbox: this node (sequential, parallel), n8n's
 * HTTP Request node with this package's credential, and a bare undici loop doing the same signed
 * requests (the limit). The sandbox's record is checked after every run.
 */
import { createHmac } from 'node:crypto';
import { Pool } from 'undici';
import type { CredentialRef } from '../tools/n8n/workflows';
import type { Workflow } from '../tools/n8n/workflow';
import type { BenchContext } from './lib/context';
import { runWorkflow } from './lib/n8n-runs';
import { cpuSeconds, settle } from './lib/procfs';
import { resetSandbox } from './lib/sandboxes';
import { fmt, median, ratio, table, verdict } from './lib/stats';
import { SEND_NODE, sendWorkflow } from './workflows';

export const PARALLEL = [5, 10];
/** Option Max Messages per Second of the paced variant. */
export const PACED_RATE = 50;

export function sendingWorkflows(credential: CredentialRef, baseUrl: string, sender: string): Workflow[] {
	return [
		sendWorkflow('default', credential, { kind: 'node' }, baseUrl, sender),
		sendWorkflow('seq', credential, { kind: 'node', options: { parallelRequests: 1 } }, baseUrl, sender),
		...PARALLEL.map((p) => sendWorkflow(`par${p}`, credential, { kind: 'node', options: { parallelRequests: p } }, baseUrl, sender)),
		sendWorkflow('paced', credential, { kind: 'node', options: { maxMessagesPerSecond: PACED_RATE } }, baseUrl, sender),
		sendWorkflow('http', credential, { kind: 'http' }, baseUrl, sender),
	];
}

interface RecordCheck {
	received: number;
	lost: number;
	duplicated: number;
	/** Recipients whose messages arrived out of item order. */
	reordered: number;
	/** Messages per second as the sandbox saw them: from the first to the last message's time. */
	arrivalRate: number;
}

/** Compares the sandbox's sent messages with what run `tag` should have sent. */
async function checkRecord(url: string, tag: string, count: number, recipients: number): Promise<RecordCheck> {
	const res = await fetch(`${url}/_sandbox/messages?bytes=0`);
	const messages = ((await res.json()) as { data: Array<{ phone: string; body?: string; created_at: string }> }).data;
	const times: number[] = [];
	const seen = new Set<string>();
	let duplicated = 0;
	const lastSeq = new Map<string, number>();
	const reorderedPhones = new Set<string>();
	let received = 0;
	for (const m of messages) {
		const match = /^(\S+) (\d+)#(\d+)$/.exec(m.body ?? '');
		if (!match || match[1] !== tag) continue;
		received++;
		times.push(Date.parse(m.created_at));
		const key = `${m.phone} ${match[2]}#${match[3]}`;
		if (seen.has(key)) duplicated++;
		seen.add(key);
		const seq = Number(match[3]);
		if (seq <= (lastSeq.get(m.phone) ?? -1)) reorderedPhones.add(m.phone);
		lastSeq.set(m.phone, seq);
	}
	let lost = 0;
	for (let i = 0; i < count; i++) {
		const r = i % recipients;
		if (!seen.has(`+1555${1000000 + r} ${r}#${Math.floor(i / recipients)}`)) lost++;
	}
	const span = Math.max(...times) - Math.min(...times);
	return { received, lost, duplicated, reordered: reorderedPhones.size, arrivalRate: ((received - 1) / span) * 1000 };
}

/** The same signed requests from a bare undici Pool: `concurrency` recipients at a time, each recipient's in order. */
async function undiciLoop(ctx: BenchContext, tag: string, count: number, recipients: number, concurrency: number): Promise<number> {
	const c = ctx.stack.sandbox.credentials;
	const pool = new Pool(c.baseUrl, { connections: concurrency, pipelining: 1 });
	const groups: number[][] = Array.from({ length: recipients }, () => []);
	for (let i = 0; i < count; i++) groups[i % recipients].push(i);
	const path = `/w/message/text?phone_number_id=${c.phoneNumberId}`;
	const sendOne = async (i: number) => {
		const r = i % recipients;
		const body = JSON.stringify({ phone: `+1555${1000000 + r}`, body: `${tag} ${r}#${Math.floor(i / recipients)}` });
		const timestamp = String(Math.floor(Date.now() / 1000));
		const signature = createHmac('sha256', c.clientSecret).update(timestamp).update(body).digest('hex');
		const res = await pool.request({
			method: 'POST',
			path,
			headers: {
				'content-type': 'application/json',
				accept: 'application/json',
				'x-service-signature-256': `sha256=${signature}`,
				'x-timestamp': timestamp,
				'x-domain': c.domain,
				'x-client-id': c.clientId,
			},
			body,
		});
		const text = await res.body.text();
		if (res.statusCode !== 200) throw new Error(`undici loop: ${res.statusCode} ${text.slice(0, 200)}`);
	};
	let next = 0;
	const t0 = performance.now();
	const worker = async () => {
		while (next < groups.length) for (const i of groups[next++]) await sendOne(i);
	};
	try {
		await Promise.all(Array.from({ length: concurrency }, worker));
	} finally {
		await pool.close();
	}
	return performance.now() - t0;
}

interface Variant {
	label: string;
	key: string;
	run: (tag: string) => Promise<{ ms: number; wallMs?: number }>;
	viaN8n: boolean;
}

interface Scenario {
	items: number;
	recipients: number;
	/** Injected before each answer of the sandbox (its fault queue), 0 for none. */
	latencyMs: number;
	keys: string[];
}

async function scenario(ctx: BenchContext, workflows: Workflow[], sc: Scenario) {
	const { n8n, sandbox } = ctx.stack;
	const { items, recipients } = sc;
	const byKey = (key: string) => workflows.find((w) => w.name === `Bench: send (${key})`)!;
	const viaN8n = (key: string) => async (tag: string) => {
		const run = await runWorkflow(n8n, byKey(key), { count: items, recipients, tag });
		return { ms: run.nodeMs(SEND_NODE), wallMs: run.wallMs };
	};
	const all: Variant[] = [
		{ label: 'This node, default options', key: 'default', run: viaN8n('default'), viaN8n: true },
		{ label: 'This node, parallelRequests 1', key: 'seq', run: viaN8n('seq'), viaN8n: true },
		...PARALLEL.map((p) => ({ label: `This node, parallelRequests ${p}`, key: `par${p}`, run: viaN8n(`par${p}`), viaN8n: true })),
		{ label: `This node, maxMessagesPerSecond ${PACED_RATE}`, key: 'paced', run: viaN8n('paced'), viaN8n: true },
		{ label: 'HTTP Request node 4.2 + this credential', key: 'http', run: viaN8n('http'), viaN8n: true },
		{ label: 'undici loop, sequential (limit)', key: 'u1', run: async (tag: string) => ({ ms: await undiciLoop(ctx, tag, items, recipients, 1) }), viaN8n: false },
		...PARALLEL.map((p) => ({
			label: `undici loop, ${p} at a time (limit)`,
			key: `u${p}`,
			run: async (tag: string) => ({ ms: await undiciLoop(ctx, tag, items, recipients, p) }),
			viaN8n: false,
		})),
	];
	const variants = all.filter((v) => sc.keys.includes(v.key));
	const prepare = async () => {
		await resetSandbox(sandbox.url);
		if (sc.latencyMs > 0) await sandbox.fault({ delayMs: sc.latencyMs, count: items, path: '/w/message/text' });
	};
	const times = variants.map(() => [] as number[]);
	const walls = variants.map(() => [] as number[]);
	const cpu = variants.map(() => [] as number[]);
	const checks = variants.map(() => [] as RecordCheck[]);
	for (let round = 1; round <= ctx.rounds; round++) {
		for (const [i, v] of variants.entries()) {
			const pids = ctx.n8nPids();
			await settle(pids);
			await prepare();
			const tag = `r${round}v${i}`;
			const cpu0 = pids.reduce((sum, p) => sum + cpuSeconds(p), 0);
			const { ms, wallMs } = await v.run(tag);
			const cpuMs = (pids.reduce((sum, p) => sum + cpuSeconds(p), 0) - cpu0) * 1000;
			times[i].push(ms);
			if (wallMs !== undefined) walls[i].push(wallMs);
			if (v.viaN8n) cpu[i].push(cpuMs);
			const check = await checkRecord(sandbox.url, tag, items, recipients);
			checks[i].push(check);
			ctx.log(`sending${sc.latencyMs ? ` (+${sc.latencyMs} ms)` : ''} round ${round}: ${v.label}: ${fmt(ms, 0)} ms (${fmt((items / ms) * 1000, 0)}/s), n8n CPU ${fmt(cpuMs, 0)} ms, record ${JSON.stringify(check)}`);
		}
	}
	await resetSandbox(sandbox.url);
	const rate = (key: string) => {
		const i = variants.findIndex((v) => v.key === key);
		return i < 0 ? NaN : (items / median(times[i])) * 1000;
	};
	return variants.map((v, i) => {
		const worst = checks[i].reduce(
			(a, c) => ({ lost: Math.max(a.lost, c.lost), duplicated: Math.max(a.duplicated, c.duplicated), reordered: Math.max(a.reordered, c.reordered) }),
			{ lost: 0, duplicated: 0, reordered: 0 },
		);
		const arrivalRate = median(checks[i].map((c) => c.arrivalRate));
		return { ...v, ms: median(times[i]), wallMs: median(walls[i]), cpuPerItem: median(cpu[i]) / items, rate: rate(v.key), arrivalRate, worst, rateOf: rate };
	});
}

const intact = (w: { lost: number; duplicated: number; reordered: number }) => w.lost + w.duplicated + w.reordered === 0;
const record = (w: { lost: number; duplicated: number; reordered: number }) => `${w.lost}/${w.duplicated}/${w.reordered}`;

/** The leading table: a service some distance away, this node's default and paced sends beside the HTTP Request node. */
async function realisticLatency(ctx: BenchContext, workflows: Workflow[], items: number, latencies: number[]): Promise<string> {
	const rows: string[][] = [];
	for (const latencyMs of latencies) {
		const results = await scenario(ctx, workflows, {
			items,
			recipients: Math.max(1, Math.floor(items / 4)),
			latencyMs,
			keys: ['default', 'http', 'paced', 'seq'],
		});
		const http = results[0].rateOf('http');
		for (const v of results) {
			let target = '';
			if (v.key === 'default') target = `${verdict(v.rate >= 2 * http && intact(v.worst))} (≥ 2.0× HTTP Request node, record intact)`;
			if (v.key === 'paced') {
				const ok = Math.abs(v.arrivalRate / PACED_RATE - 1) <= 0.05 && intact(v.worst);
				target = `${verdict(ok)} (arrivals within 5% of ${PACED_RATE}/s, record intact)`;
			}
			rows.push([
				`${latencyMs} ms`,
				v.label,
				fmt(v.ms, 0),
				fmt(v.cpuPerItem, 2),
				fmt(v.rate, 0),
				fmt(v.arrivalRate, 1),
				ratio(v.rate / http),
				record(v.worst),
				target,
			]);
		}
	}
	return table(
		`1a. Sending to a service ${latencies.join(' / ')} ms away (latency injected by the sandbox before each answer): ${items} sendText items, ${Math.max(1, Math.floor(items / 4))} recipients (median of ${ctx.rounds} rounds, all ways in the same run)`,
		['Latency', 'Way', 'Send ms', 'n8n CPU ms/item', 'Items/s', 'Arrivals/s', 'vs HTTP node', 'Lost/dup/reord', 'Target'],
		rows,
		[
			'Items/s: items divided by the sending node’s own time (n8n’s executionTime). n8n CPU ms/item: CPU time of n8n’s main',
			'process and task runner over the whole run, per item (what each way costs n8n, whatever the service’s latency).',
			'Arrivals/s: as the sandbox saw them, first to last message. Lost/dup/reord: worst round, from the sandbox’s record.',
			'Other processes share the machine: compare within a run.',
		],
	);
}

export async function benchSending(ctx: BenchContext, workflows: Workflow[], items: number, recipients: number, latency: { items: number; ms: number[] }): Promise<string> {
	// Warm-up: a small run of each way, so the first measured round does not pay for JIT and first loads.
	ctx.log('sending: warm-up');
	const allKeys = ['default', 'seq', ...PARALLEL.map((p) => `par${p}`), 'http', 'u1', ...PARALLEL.map((p) => `u${p}`)];
	await scenario({ ...ctx, rounds: 1 }, workflows, { items: Math.min(items, 100), recipients: Math.min(recipients, 25), latencyMs: 0, keys: allKeys });
	const leading = latency.ms.length ? await realisticLatency(ctx, workflows, latency.items, latency.ms) : '';
	const main = await scenario(ctx, workflows, { items, recipients, latencyMs: 0, keys: allKeys });
	const seq = main[0].rateOf('seq');
	const http = main[0].rateOf('http');
	const limitSeq = main[0].rateOf('u1');
	const out = leading ? [leading] : [];
	const rows = main.map((v) => {
		let target = '';
		if (v.key === 'seq') target = `${verdict(seq >= http)} (≥ HTTP Request node)`;
		if (v.key.startsWith('par')) {
			const ok = v.rate >= 3 * seq && v.worst.lost === 0 && v.worst.duplicated === 0 && v.worst.reordered === 0;
			target = `${verdict(ok)} (≥ 3× sequential, record intact)`;
		}
		return [
			v.label,
			fmt(v.ms, 0),
			Number.isFinite(v.wallMs) ? fmt(v.wallMs, 0) : '–',
			Number.isFinite(v.cpuPerItem) ? fmt(v.cpuPerItem, 2) : '–',
			fmt(v.rate, 0),
			ratio(v.rate / seq),
			ratio(v.rate / http),
			ratio(v.rate / limitSeq),
			`${v.worst.lost}/${v.worst.duplicated}/${v.worst.reordered}`,
			target,
		];
	});
	const header = ['Way', 'Send ms', 'Run ms', 'n8n CPU ms/item', 'Items/s', 'vs seq', 'vs HTTP node', 'vs undici seq', 'Lost/dup/reord', 'Target'];
	out.push(
		table(
			`1. Sending: ${items.toLocaleString('en-US')} sendText items to ${recipients} recipients, sandbox on 127.0.0.1 (median of ${ctx.rounds} rounds)`,
			header,
			rows,
			[
				'Send ms: the sending node’s own time (n8n’s executionTime), or the whole loop for undici. Run ms: webhook call until',
				'n8n answered (whole workflow: making the items, sending, saving the execution). n8n CPU ms/item: CPU time of n8n’s',
				'main process and task runner over the whole run, per item. Lost/dup/reord: worst round, from the sandbox’s record',
				'(messages missing, sent twice, recipients whose messages arrived out of item order).',
			],
		),
	);
	return out.join('\n');
}
