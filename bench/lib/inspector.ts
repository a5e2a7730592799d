/**
 * A full garbage collection in another Node process on request, so memory baselines do not carry
 * garbage of earlier runs: SIGUSR1 opens Node's inspector on 127.0.0.1:9229, then the DevTools
 * protocol's HeapProfiler.collectGarbage. Refuses when something already listens on that port.
 */
import { WebSocket } from 'undici';
import { sleep } from '../../tools/n8n/proc';

const PORT = 9229;

async function listTargets(): Promise<Array<{ webSocketDebuggerUrl?: string }> | undefined> {
	try {
		const res = await fetch(`http://127.0.0.1:${PORT}/json/list`, { signal: AbortSignal.timeout(1000) });
		return (await res.json()) as Array<{ webSocketDebuggerUrl?: string }>;
	} catch {
		return undefined;
	}
}

/** A V8 CPU profile as the DevTools protocol returns it (the fields read here). */
export interface CpuProfile {
	nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
	samples: number[];
	/** Microseconds before each sample. */
	timeDeltas: number[];
}

export interface Inspector {
	collectGarbage: () => Promise<void>;
	/** Starts V8's sampling CPU profiler (main thread), one sample per `intervalUs`. */
	startProfiling: (intervalUs: number) => Promise<void>;
	stopProfiling: () => Promise<CpuProfile>;
	/** Closes the session and the inspector port in the other process. */
	close: () => Promise<void>;
}

export async function openInspector(pid: number): Promise<Inspector> {
	if (await listTargets()) throw new Error(`something already listens on 127.0.0.1:${PORT}; not signalling n8n`);
	process.kill(pid, 'SIGUSR1');
	let targets: Array<{ webSocketDebuggerUrl?: string }> | undefined;
	for (let i = 0; i < 50 && !targets; i++) {
		await sleep(100);
		targets = await listTargets();
	}
	const url = targets?.[0]?.webSocketDebuggerUrl;
	if (!url) throw new Error('the inspector did not open');
	const ws = new WebSocket(url);
	await new Promise<void>((resolve, reject) => {
		ws.addEventListener('open', () => resolve());
		ws.addEventListener('error', () => reject(new Error('could not connect to the inspector')));
	});
	let nextId = 0;
	type Message = { id?: number; error?: { message: string }; result?: unknown };
	const pending = new Map<number, (message: Message) => void>();
	ws.addEventListener('message', (event) => {
		const message = JSON.parse(String(event.data)) as Message;
		if (message.id !== undefined) pending.get(message.id)?.(message);
	});
	const call = <T = unknown>(method: string, params: Record<string, unknown> = {}) =>
		new Promise<T>((resolve, reject) => {
			const id = ++nextId;
			const timer = setTimeout(() => reject(new Error(`${method}: no answer`)), 30_000);
			pending.set(id, (message) => {
				clearTimeout(timer);
				pending.delete(id);
				if (message.error) reject(new Error(`${method}: ${message.error.message}`));
				else resolve(message.result as T);
			});
			ws.send(JSON.stringify({ id, method, params }));
		});
	return {
		collectGarbage: () => call<void>('HeapProfiler.collectGarbage'),
		startProfiling: async (intervalUs) => {
			await call('Profiler.enable');
			await call('Profiler.setSamplingInterval', { interval: intervalUs });
			await call('Profiler.start');
		},
		stopProfiling: async () => (await call<{ profile: CpuProfile }>('Profiler.stop')).profile,
		close: async () => {
			// The answer may never come: the inspector closes while answering.
			ws.send(JSON.stringify({ id: ++nextId, method: 'Runtime.evaluate', params: { expression: "process.mainModule?.require('node:inspector').close()" } }));
			await sleep(300);
			ws.close();
		},
	};
}
