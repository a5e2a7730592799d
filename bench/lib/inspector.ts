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

export interface Inspector {
	collectGarbage: () => Promise<void>;
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
	const pending = new Map<number, (message: { error?: { message: string } }) => void>();
	ws.addEventListener('message', (event) => {
		const message = JSON.parse(String(event.data)) as { id?: number; error?: { message: string } };
		if (message.id !== undefined) pending.get(message.id)?.(message);
	});
	const call = (method: string, params: Record<string, unknown> = {}) =>
		new Promise<void>((resolve, reject) => {
			const id = ++nextId;
			const timer = setTimeout(() => reject(new Error(`${method}: no answer`)), 30_000);
			pending.set(id, (message) => {
				clearTimeout(timer);
				pending.delete(id);
				if (message.error) reject(new Error(`${method}: ${message.error.message}`));
				else resolve();
			});
			ws.send(JSON.stringify({ id, method, params }));
		});
	return {
		collectGarbage: () => call('HeapProfiler.collectGarbage'),
		close: async () => {
			// The answer may never come: the inspector closes while answering.
			ws.send(JSON.stringify({ id: ++nextId, method: 'Runtime.evaluate', params: { expression: "process.mainModule?.require('node:inspector').close()" } }));
			await sleep(300);
			ws.close();
		},
	};
}
