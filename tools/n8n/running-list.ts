/**
 * Does bench/lib/n8n-runs.ts's executionsSince see an execution n8n is running, which n8n's plain public list
 * leaves out? A Webhook node and a 15 s Wait (n8n runs a short wait in the process), on N8N_VERSION (default
 * 2.41.1) in a fresh n8n folder (docs/evidence/2026-11-29-running-executions).
 *   node --import tsx tools/n8n/running-list.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installN8n, N8n } from './n8n';
import { executionsSince, latestExecutionId } from '../../bench/lib/n8n-runs';
import { sleep } from './proc';

async function main() {
	const version = process.env.N8N_VERSION ?? '2.41.1';
	const installDir = await installN8n(version, () => undefined);
	const home = mkdtempSync(join(tmpdir(), 'running-check-'));
	const n8n = new N8n({ installDir, home, owner: { email: 'owner@running.example.com', password: 'Running-check-Passw0rd!', firstName: 'R', lastName: 'C' } });
	const id = 'runningCheckWait';
	try {
		await n8n.importWorkflows([{ id, name: 'Webhook then Wait 15 s', nodes: [
			{ id: 'a', name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: 'running-check-hook', parameters: { path: 'running-check', httpMethod: 'POST', responseMode: 'onReceived' } },
			{ id: 'b', name: 'Wait', type: 'n8n-nodes-base.wait', typeVersion: 1.1, position: [200, 0], webhookId: 'running-check-wait', parameters: { resume: 'timeInterval', amount: 15, unit: 'seconds' } },
		], connections: { Webhook: { main: [[{ node: 'Wait', type: 'main', index: 0 }]] } }, settings: {} } as never]);
		await n8n.start();
		await n8n.login();
		await n8n.createApiKey();
		await n8n.activate(id);
		const res = await fetch(`${n8n.baseUrl}/webhook/running-check`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
		console.log(`n8n ${version}: webhook answered ${res.status}`);
		await sleep(3000);
		const plain = await n8n.api<{ data: Array<{ id: string; status: string }> }>('GET', `/executions?workflowId=${id}`);
		console.log(`plain list, 3 s after: ${JSON.stringify(plain.body.data.map((e) => [e.id, e.status]))}`);
		console.log(`executionsSince(0), 3 s after: ${JSON.stringify((await executionsSince(n8n, id, 0)).map((e) => [e.id, e.status]))}; latestExecutionId ${await latestExecutionId(n8n, id)}`);
		await sleep(17000);
		console.log(`executionsSince(0), 20 s after: ${JSON.stringify((await executionsSince(n8n, id, 0)).map((e) => [e.id, e.status]))}`);
	} finally {
		await n8n.stop();
		rmSync(home, { recursive: true, force: true });
	}
}
main().catch((e) => { console.error(e); process.exit(1); });
