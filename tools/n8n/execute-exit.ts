/**
 * Does `n8n execute` end cleanly without this package installed? Runs a Manual Trigger and a Set node with an
 * expression TIMES times (default 30) on N8N_VERSION (default 2.41.1) in a fresh n8n folder, and prints how
 * each run ended and the counts (docs/evidence/2026-11-29-n8n-execute-sigsegv).
 *   node --import tsx tools/n8n/execute-exit.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installN8n, N8n } from './n8n';
import { chain, manualTrigger, setFields } from './workflow';

async function main() {
	const version = process.env.N8N_VERSION ?? '2.41.1';
	const installDir = await installN8n(version, () => undefined);
	const home = mkdtempSync(join(tmpdir(), 'execute-exit-'));
	const n8n = new N8n({ installDir, home, owner: { email: 'owner@execute-exit.example.com', password: 'Execute-exit-Passw0rd!', firstName: 'Execute', lastName: 'Exit' } });
	try {
		const workflow = chain('executeExitPlain', 'Plain: Manual Trigger and Set', [manualTrigger(), setFields('Set', { now: '={{ $now.toISO() }}' })]);
		await n8n.importWorkflows([workflow]);
		const counts: Record<string, number> = {};
		for (let i = 0; i < Number(process.env.TIMES ?? 30); i++) {
			const result = await n8n.execute(workflow.id);
			const end = result.signal ?? `code ${result.code}`;
			counts[end] = (counts[end] ?? 0) + 1;
			const status = (result.json as { status?: string } | undefined)?.status;
			process.stdout.write(`run ${i}: ${end}, printed status ${status ?? 'none'}\n`);
		}
		process.stdout.write(`n8n ${version}, ${JSON.stringify(counts)}\n`);
	} finally {
		rmSync(home, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
