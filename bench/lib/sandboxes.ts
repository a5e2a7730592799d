/**
 * Sandbox extras the benchmarks need beyond tools/n8n/sandbox.ts: a reset, and sandboxes started
 * with a given number of templates (`--templates N`).
 */
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/n8n/n8n';
import { freePort, startProcess, type Started, waitFor } from '../../tools/n8n/proc';
import { SandboxProcess } from '../../tools/n8n/sandbox';

export async function resetSandbox(url: string): Promise<void> {
	const res = await fetch(`${url}/_sandbox/reset`, { method: 'POST' });
	if (!res.ok) throw new Error(`sandbox reset: ${res.status} ${await res.text()}`);
}

/** A sandbox process with `templates` templates; its control API through SandboxProcess's methods. */
export async function startTemplateSandbox(logFile: string, templates: number): Promise<{ sandbox: SandboxProcess; stop: () => Promise<void> }> {
	const port = await freePort();
	const tsxCli = join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs');
	const proc: Started = startProcess(
		process.execPath,
		[tsxCli, join(REPO_ROOT, 'tools/sandbox/cli.ts'), '--port', String(port), '--templates', String(templates), '--statuses', 'off'],
		{ cwd: REPO_ROOT, env: process.env, logFile },
	);
	const url = await waitFor('sandbox listening line', async () => /sandbox listening on (http:\/\/\S+)/.exec(proc.output())?.[1], 60_000, 100);
	const sandbox = new SandboxProcess(logFile);
	sandbox.url = url;
	return { sandbox, stop: () => proc.stop() };
}
