/** Linux /proc readings: n8n's processes, their memory and CPU time. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { sleep } from '../../tools/n8n/proc';

const CLOCK_TICKS = 100; // USER_HZ on Linux

function read(path: string): string | undefined {
	try {
		return readFileSync(path, 'utf8');
	} catch {
		return undefined;
	}
}

function pids(): number[] {
	return readdirSync('/proc')
		.filter((name) => /^\d+$/.test(name))
		.map(Number);
}

/** Parent pid and CPU seconds (user + system) from /proc/<pid>/stat. */
function stat(pid: number): { ppid: number; cpuSeconds: number } | undefined {
	const text = read(`/proc/${pid}/stat`);
	if (!text) return undefined;
	// Fields after the command name, which is in parentheses and may contain spaces.
	const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
	return { ppid: Number(fields[1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
}

export function cmdline(pid: number): string {
	return (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim();
}

/** The `n8n start` process whose N8N_USER_FOLDER is `home`. */
export function findN8nMain(home: string): number | undefined {
	for (const pid of pids()) {
		const cmd = cmdline(pid);
		if (!/n8n\/bin\/n8n start/.test(cmd)) continue;
		const env = read(`/proc/${pid}/environ`) ?? '';
		if (env.split('\0').includes(`N8N_USER_FOLDER=${home}`)) return pid;
	}
	return undefined;
}

/** Every descendant of `pid`. */
export function descendants(pid: number): number[] {
	const children = new Map<number, number[]>();
	for (const p of pids()) {
		const s = stat(p);
		if (!s) continue;
		const list = children.get(s.ppid) ?? [];
		list.push(p);
		children.set(s.ppid, list);
	}
	const out: number[] = [];
	const walk = (p: number) => {
		for (const c of children.get(p) ?? []) {
			out.push(c);
			walk(c);
		}
	};
	walk(pid);
	return out;
}

/** n8n's JavaScript task runner under the main process, if one runs. */
export function findTaskRunner(mainPid: number): number | undefined {
	return descendants(mainPid).find((p) => /task-runner|runners/.test(cmdline(p)));
}

/** VmRSS and VmHWM in bytes. */
export function memory(pid: number): { rss: number; hwm: number } | undefined {
	const text = read(`/proc/${pid}/status`);
	if (!text) return undefined;
	const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
	return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Resets the peak (VmHWM) to the current RSS; false when the kernel refuses. */
export function resetPeak(pid: number): boolean {
	try {
		writeFileSync(`/proc/${pid}/clear_refs`, '5');
		return true;
	} catch {
		return false;
	}
}

export function cpuSeconds(pid: number): number {
	return stat(pid)?.cpuSeconds ?? 0;
}

/**
 * Waits until the processes are quiet: less than `threshold` of one core used over a `windowMs` window
 * (n8n finishes executions, saves them and collects garbage after answering), or `maxMs` passed.
 */
export async function settle(pidList: number[], options: { windowMs?: number; threshold?: number; maxMs?: number } = {}): Promise<number> {
	const { windowMs = 500, threshold = 0.08, maxMs = 30_000 } = options;
	const start = Date.now();
	const total = () => pidList.reduce((sum, p) => sum + cpuSeconds(p), 0);
	let before = total();
	while (Date.now() - start < maxMs) {
		await sleep(windowMs);
		const now = total();
		const used = (now - before) / (windowMs / 1000);
		before = now;
		if (used < threshold) break;
	}
	return Date.now() - start;
}

/** Samples RSS of some processes every `intervalMs` until stopped; each one's highest and lowest sample. */
export function sampleRss(pidList: number[], intervalMs = 20) {
	const peak = new Map<number, number>();
	const low = new Map<number, number>();
	let samples = 0;
	const take = () => {
		samples++;
		for (const p of pidList) {
			const m = memory(p);
			if (!m) continue;
			peak.set(p, Math.max(peak.get(p) ?? 0, m.rss));
			low.set(p, Math.min(low.get(p) ?? Infinity, m.rss));
		}
	};
	take();
	const timer = setInterval(take, intervalMs);
	return {
		/** The samples so far, sampling goes on. */
		now: () => ({ peak: new Map(peak), low: new Map(low), samples }),
		stop: () => {
			clearInterval(timer);
			take();
			return { peak, low, samples };
		},
	};
}
