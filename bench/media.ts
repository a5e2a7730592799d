/**
 * 3. Media: peak memory (RSS) of n8n's main process and its task runner while this node sends a large
 * file, against their idle baseline. RSS is sampled every 20 ms from /proc/<pid>/status, and the
 * kernel's own peak (VmHWM, reset just before) catches what falls between samples.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chain, node } from '../tools/n8n/workflow';
import { sleep } from '../tools/n8n/proc';
import type { Workflow } from '../tools/n8n/workflow';
import { type CredentialRef, mediaWorkflow } from '../tools/n8n/workflows';
import type { BenchContext } from './lib/context';
import { type Inspector, openInspector } from './lib/inspector';
import { runWorkflow } from './lib/n8n-runs';
import { memory, resetPeak, sampleRss, settle } from './lib/procfs';
import { resetSandbox } from './lib/sandboxes';
import { fmt, median, table, verdict } from './lib/stats';
import { runHook } from './workflows';

export const MEDIA_FILE = 'bench-media.bin';
const MiB = 1024 * 1024;

export function mediaWorkflows(credential: CredentialRef, filesDir: string): Workflow[] {
	const send = mediaWorkflow(credential, join(filesDir, MEDIA_FILE), 'bench-media');
	send.name = 'Bench: media (send)';
	// The same file read by n8n and nothing sent: what n8n itself costs for the file.
	const readOnly = chain('benchMediaRead', 'Bench: media (read only)', [
		runHook('bench-media-read'),
		node('Read File', 'n8n-nodes-base.readWriteFile', 1.1, { operation: 'read', fileSelector: join(filesDir, MEDIA_FILE), options: { dataPropertyName: 'data' } }),
	]);
	return [send, readOnly];
}

/** A file of `size` bytes that does not compress to nothing, made with a plain loop. */
function makeFile(size: number): Buffer {
	const buf = Buffer.allocUnsafe(size);
	let x = 0x2545f491;
	for (let i = 0; i < size; i++) {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		buf[i] = x & 0xff;
	}
	return buf;
}

interface Sample {
	/** Median RSS over the idle second before the run (after a full garbage collection when the inspector is open). */
	idle: Record<string, number>;
	/** Lowest RSS from the idle second to the end of the run. */
	floor: Record<string, number>;
	peak: Record<string, number>;
	ms: number;
}

async function measure(ctx: BenchContext, workflow: Workflow, inspector: Inspector | undefined): Promise<Sample> {
	const pids = ctx.n8nPids();
	await settle(pids, { maxMs: 20_000 });
	if (inspector) {
		await inspector.collectGarbage();
		await sleep(300);
	}
	const sampler = sampleRss(pids, 20);
	const idle: Record<number, number[]> = {};
	for (let i = 0; i < 20; i++) {
		for (const p of pids) (idle[p] ??= []).push(memory(p)?.rss ?? NaN);
		await sleep(50);
	}
	for (const p of pids) resetPeak(p);
	const run = await runWorkflow(ctx.stack.n8n, workflow, {});
	await sleep(300);
	const { peak, low } = sampler.stop();
	const name = (i: number) => (i === 0 ? 'main' : 'runner');
	const sample: Sample = { idle: {}, floor: {}, peak: {}, ms: run.wallMs };
	pids.forEach((p, i) => {
		sample.idle[name(i)] = median(idle[p]);
		sample.floor[name(i)] = low.get(p) ?? NaN;
		sample.peak[name(i)] = Math.max(peak.get(p) ?? 0, memory(p)?.hwm ?? 0);
	});
	return sample;
}

export async function benchMedia(ctx: BenchContext, workflows: Workflow[], sizeMb: number): Promise<string> {
	const { n8n, sandbox } = ctx.stack;
	const size = sizeMb * MiB;
	const file = makeFile(size);
	const sha256 = createHash('sha256').update(file).digest('hex');
	writeFileSync(join(n8n.filesDir, MEDIA_FILE), file);
	const send = workflows.find((w) => w.name === 'Bench: media (send)')!;
	const readOnly = workflows.find((w) => w.name === 'Bench: media (read only)')!;
	ctx.log(`media: ${sizeMb} MiB file written; warm-up`);
	await resetSandbox(sandbox.url);
	await runWorkflow(n8n, send, {});
	await runWorkflow(n8n, readOnly, {});
	let inspector: Inspector | undefined;
	try {
		inspector = await openInspector(ctx.n8nPids()[0]);
	} catch (error) {
		ctx.log(`media: no garbage collection before the baselines (${String(error)}); the baseline is the lowest RSS seen instead`);
	}

	const samples: Record<string, Sample[]> = { send: [], read: [] };
	try {
		for (let round = 1; round <= ctx.rounds; round++) {
			for (const [key, wf] of [['read', readOnly], ['send', send]] as const) {
				await resetSandbox(sandbox.url);
				const s = await measure(ctx, wf, inspector);
				samples[key].push(s);
				if (key === 'send') {
					const sent = await sandbox.messages();
					const f = sent[sent.length - 1]?.file;
					if (!f || f.size !== size || f.sha256 !== sha256) throw new Error(`the sandbox did not receive the file intact: ${JSON.stringify(f)}`);
				}
				ctx.log(`media round ${round} (${key}): ${JSON.stringify(Object.fromEntries(Object.entries(s.peak).map(([k, v]) => [k, `peak ${fmt(v / MiB)} MiB, floor ${fmt(s.floor[k] / MiB)}, idle ${fmt(s.idle[k] / MiB)}`])))} in ${fmt(s.ms, 0)} ms`);
			}
		}
	} finally {
		await inspector?.close();
		await resetSandbox(sandbox.url);
	}

	const baseline = (s: Sample, proc: string) => (inspector ? s.idle[proc] : s.floor[proc]);
	const above = (s: Sample, proc: string) => Math.max(0, s.peak[proc] - baseline(s, proc));
	const rows: string[][] = [];
	for (const [key, label] of [['send', 'Send Media (this node)'], ['read', 'Read File only (nothing sent)']] as const) {
		const list = samples[key];
		const procs = Object.keys(list[0].idle);
		for (const proc of procs) {
			rows.push([
				`${label}: ${proc === 'main' ? 'n8n main' : 'task runner'}`,
				fmt(median(list.map((s) => baseline(s, proc))) / MiB),
				fmt(median(list.map((s) => s.peak[proc])) / MiB),
				fmt(median(list.map((s) => above(s, proc))) / MiB),
				`${(median(list.map((s) => above(s, proc))) / size).toFixed(2)}×`,
				fmt(median(list.map((s) => s.ms)), 0),
				'',
			]);
		}
		const both = median(list.map((s) => procs.reduce((sum, p) => sum + above(s, p), 0)));
		rows.push([
			`${label}: both`,
			'',
			'',
			fmt(both / MiB),
			`${(both / size).toFixed(2)}×`,
			'',
			key === 'send' ? `${verdict(both <= 2 * size)} (≤ 2× file = ${fmt((2 * size) / MiB, 0)} MiB)` : '',
		]);
	}
	return table(
		`3. Media: one ${sizeMb} MiB file read from disk and sent through this node (median of ${ctx.rounds} rounds)`,
		['Process', 'Idle MiB', 'Peak MiB', 'Above idle MiB', '× file', 'Run ms', 'Target'],
		rows,
		[
			inspector
				? 'Idle: RSS over one idle second after a full garbage collection in n8n main (inspector, HeapProfiler.collectGarbage).'
				: 'Idle: the lowest RSS from an idle second before the run to its end (no forced garbage collection was possible).',
			'Peak: the higher of RSS sampled every 20 ms and the kernel’s VmHWM (reset before each run). The sandbox received the',
			'file intact (size and SHA-256) every round. Read File only: n8n’s own cost for the file (its binary data stays on disk).',
		],
	);
}
