/**
 * A small HTTP load generator: an undici Pool, `concurrency` senders each keeping one request in flight,
 * for a fixed duration. Every request is made by `makeRequest` (fresh signature, unique body), so the server
 * sees no two alike. `makeRequest` may return several requests (one event delivered to several URLs): they
 * go out at once, and count as one, answered when all are, ok when all are.
 */
import { Pool } from 'undici';
import { percentileSorted } from './stats';

export interface LoadRequest {
	path: string;
	headers: Record<string, string>;
	body: string | Buffer;
}

export interface LoadResult {
	sent: number;
	ok: number;
	failed: number;
	statuses: Record<string, number>;
	seconds: number;
	perSecond: number;
	p50Ms: number;
	p99Ms: number;
	maxMs: number;
}

export async function runLoad(options: {
	origin: string;
	concurrency: number;
	durationMs: number;
	/** Requests before the measured window starts (answers not counted). */
	warmupMs?: number;
	makeRequest: (n: number) => LoadRequest | LoadRequest[];
	isOk?: (status: number, body: string) => boolean;
	/** Connections of the pool (default `concurrency`): more when one event is several requests. */
	connections?: number;
}): Promise<LoadResult> {
	const { origin, concurrency, durationMs, warmupMs = 0, makeRequest } = options;
	const isOk = options.isOk ?? ((status) => status >= 200 && status < 300);
	const pool = new Pool(origin, { connections: options.connections ?? concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
	const send = async (req: LoadRequest): Promise<{ status: number; text: string }> => {
		try {
			const res = await pool.request({ method: 'POST', path: req.path, headers: req.headers, body: req.body });
			return { status: res.statusCode, text: await res.body.text() };
		} catch (error) {
			return { status: 0, text: String(error) };
		}
	};
	const latencies: number[] = [];
	const statuses: Record<string, number> = {};
	let sent = 0;
	let ok = 0;
	let failed = 0;
	let n = 0;
	const start = performance.now();
	const measureFrom = start + warmupMs;
	const stopAt = measureFrom + durationMs;
	let measuredStart = 0;
	let measuredEnd = 0;
	const worker = async () => {
		while (performance.now() < stopAt) {
			const reqs = [makeRequest(n++)].flat();
			const t0 = performance.now();
			const answers = await Promise.all(reqs.map(send));
			const t1 = performance.now();
			// The first answer that is not ok, if any, stands for the event.
			const { status, text } = answers.find((a) => !isOk(a.status, a.text)) ?? answers[0];
			if (t0 < measureFrom) continue; // warm-up
			if (!measuredStart) measuredStart = t0;
			measuredEnd = Math.max(measuredEnd, t1);
			sent++;
			const key = status ? String(status) : 'error';
			statuses[key] = (statuses[key] ?? 0) + 1;
			if (isOk(status, text)) {
				ok++;
				latencies.push(t1 - t0);
			} else failed++;
		}
	};
	try {
		await Promise.all(Array.from({ length: concurrency }, worker));
	} finally {
		await pool.close();
	}
	const seconds = (measuredEnd - measureFrom) / 1000;
	const sorted = Float64Array.from(latencies).sort();
	return {
		sent,
		ok,
		failed,
		statuses,
		seconds,
		perSecond: ok / seconds,
		p50Ms: percentileSorted(sorted, 50),
		p99Ms: percentileSorted(sorted, 99),
		maxMs: sorted.length ? sorted[sorted.length - 1] : NaN,
	};
}
