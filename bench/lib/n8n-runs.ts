/** Running benchmark workflows on the server and reading their executions back (public API). */
import { type N8n, underWay } from '../../tools/n8n/n8n';
import { sleep, waitFor } from '../../tools/n8n/proc';
import type { Workflow } from '../../tools/n8n/workflow';

export interface NodeRun {
	startTime: number;
	executionTime: number;
	data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> };
	error?: { message?: string; description?: string };
}

export interface Execution {
	id: string;
	status: string;
	startedAt: string;
	stoppedAt?: string;
	data?: { resultData: { runData: Record<string, NodeRun[]>; error?: { message?: string; description?: string } } };
}

/**
 * n8n's public API leaves out of a list the executions its own process is running, unless the list asks for
 * `status=running` (executions.public.controller.js, before 2.x's later releases executions.handler.js:
 * `excludeRunning`). Under load a run can stay so for seconds while it saves its end, so every list here is the
 * plain one and the running one together.
 */
const LISTS = ['', '&status=running'];

interface Page {
	data: Execution[];
	nextCursor?: string | null;
}

/** One page of GET /executions?`query`. */
async function page(n8n: N8n, query: string): Promise<Page> {
	const res = await n8n.api<Page>('GET', `/executions?${query}`);
	if (res.status !== 200) throw new Error(`GET /executions: ${res.status} ${JSON.stringify(res.body)}`);
	return res.body;
}

export async function latestExecutionId(n8n: N8n, workflowId: string): Promise<number> {
	const newest = await Promise.all(LISTS.map(async (list) => Number((await page(n8n, `workflowId=${workflowId}&limit=1${list}`)).data[0]?.id ?? 0)));
	return Math.max(...newest);
}

export interface WorkflowRun {
	/** From the POST to the webhook until n8n answered (the workflow has finished). */
	wallMs: number;
	execution: Execution;
	/** A node's own time (n8n's runData executionTime). */
	nodeMs: (name: string) => number;
}

/** POSTs `body` to the workflow's Webhook node and returns the finished execution with its data. */
export async function runWorkflow(n8n: N8n, workflow: Workflow, body: unknown, timeoutMs = 600_000): Promise<WorkflowRun> {
	const hook = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
	if (!hook) throw new Error(`${workflow.name} has no Webhook node`);
	const before = await latestExecutionId(n8n, workflow.id);
	const t0 = performance.now();
	const res = await fetch(`${n8n.baseUrl}/webhook/${String(hook.parameters.path)}`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(timeoutMs),
	});
	const text = await res.text();
	const wallMs = performance.now() - t0;
	// A webhook that started nothing (not registered, refused) says why in its answer: name it in the error.
	const id = await waitFor(
		`the execution of ${workflow.name} (its webhook answered ${res.status} ${text.slice(0, 200)})`,
		async () => {
			const latest = await latestExecutionId(n8n, workflow.id);
			return latest > before ? latest : undefined;
		},
		60_000,
		100,
	);
	let execution: Execution | undefined;
	for (let i = 0; i < 300; i++) {
		const got = await n8n.api<Execution>('GET', `/executions/${id}?includeData=true`);
		if (got.status === 200 && !underWay(got.body.status)) {
			execution = got.body;
			break;
		}
		await sleep(100);
	}
	if (!execution) throw new Error(`execution ${id} of ${workflow.name} did not finish`);
	if (execution.status !== 'success') {
		const e = execution.data?.resultData.error;
		throw new Error(`${workflow.name}: execution ${id} ${execution.status} (HTTP ${res.status} ${text.slice(0, 200)}): ${e?.message ?? ''} ${e?.description ?? ''}`);
	}
	const nodeMs = (name: string) => {
		const run = execution!.data?.resultData.runData[name]?.[0];
		if (!run) throw new Error(`execution ${id} has no run of node ${name}`);
		return run.executionTime;
	};
	return { wallMs, execution, nodeMs };
}

/** Every execution of a workflow created after execution `afterId` (ids count up), newest first, whatever its status, running ones included. */
export async function executionsSince(n8n: N8n, workflowId: string, afterId: number, includeData = false): Promise<Execution[]> {
	return await listed(n8n, `workflowId=${workflowId}&limit=250${includeData ? '&includeData=true' : ''}`, afterId);
}

/** Every execution on this n8n, of every workflow, with its data, running ones included. */
export async function everyExecution(n8n: N8n): Promise<Execution[]> {
	return await listed(n8n, 'limit=250&includeData=true', 0);
}

/** The plain list and the running one together, newest first. */
async function listed(n8n: N8n, query: string, afterId: number): Promise<Execution[]> {
	const lists = await Promise.all(LISTS.map(async (list) => await listSince(n8n, `${query}${list}`, afterId)));
	const byId = new Map<string, Execution>();
	for (const e of lists.flat()) if (!byId.has(e.id)) byId.set(e.id, e);
	return [...byId.values()].sort((a, b) => Number(b.id) - Number(a.id));
}

/** The pages of one list, down to execution `afterId`. */
async function listSince(n8n: N8n, query: string, afterId: number): Promise<Execution[]> {
	const out: Execution[] = [];
	let cursor: string | undefined;
	for (;;) {
		const { data, nextCursor } = await page(n8n, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
		const fresh = data.filter((e) => Number(e.id) > afterId);
		out.push(...fresh);
		if (fresh.length < data.length || !nextCursor) return out;
		cursor = nextCursor;
	}
}

/**
 * The executions of a workflow created after execution `afterId` (ids count up), once at least `atLeast`
 * exist and none of them is still running; with their data when asked.
 */
export async function finishedExecutionsAfter(
	n8n: N8n,
	workflowId: string,
	afterId: number,
	options: { includeData?: boolean; atLeast?: number; timeoutMs?: number } = {},
): Promise<Execution[]> {
	const { includeData = false, atLeast = 0, timeoutMs = 120_000 } = options;
	return await waitFor(
		`the executions of workflow ${workflowId} to finish`,
		async () => {
			const list = await executionsSince(n8n, workflowId, afterId, includeData);
			if (list.some((e) => underWay(e.status) || !e.stoppedAt)) return undefined;
			return list.length >= atLeast ? list : undefined;
		},
		timeoutMs,
		500,
	);
}

/** How many executions of a workflow came after `afterId`, once all finished, and when the last one stopped (ms since the epoch). */
export async function executionsAfter(n8n: N8n, workflowId: string, afterId: number, timeoutMs = 120_000): Promise<{ count: number; lastStoppedAt: number }> {
	const list = await finishedExecutionsAfter(n8n, workflowId, afterId, { timeoutMs });
	return { count: list.length, lastStoppedAt: Math.max(0, ...list.map((e) => Date.parse(e.stoppedAt ?? '') || 0)) };
}

/** Output items of a node in an execution. */
export function outputOf(execution: Execution, name: string): Array<Record<string, unknown>> {
	return (execution.data?.resultData.runData[name]?.[0]?.data?.main?.[0] ?? []).map((i) => i.json);
}

/** Creates a credential on the running server (public API); returns its reference. */
export async function createCredential(n8n: N8n, name: string, type: string, data: Record<string, unknown>): Promise<{ id: string; name: string }> {
	const res = await n8n.api<{ id: string; name: string }>('POST', '/credentials', { name, type, data });
	if (res.status !== 200) throw new Error(`POST /api/v1/credentials: ${res.status} ${JSON.stringify(res.body)}`);
	return { id: res.body.id, name: res.body.name };
}

/** Creates a workflow on the running server (public API) and activates it; the workflow's id becomes the server's. */
export async function createActiveWorkflow(n8n: N8n, workflow: Workflow): Promise<Workflow> {
	const { name, nodes, connections } = workflow;
	const res = await n8n.api<{ id: string }>('POST', '/workflows', { name, nodes, connections, settings: { executionOrder: 'v1' } });
	if (res.status !== 200) throw new Error(`POST /api/v1/workflows: ${res.status} ${JSON.stringify(res.body)}`);
	const created = { ...workflow, id: res.body.id };
	await n8n.activate(created.id);
	return created;
}
