import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack } from '../../../tools/n8n/stack';
import { stopAll } from '../../../tools/n8n/proc';
async function main() {
	for (const version of process.argv.slice(2)) {
		const dir = mkdtempSync(join(tmpdir(), 'probe-'));
		const stack = await startStack({ dir, n8nVersion: version, owner: { email: 'o@example.com', password: 'Probe-owner-Passw0rd!', firstName: 'P', lastName: 'O' }, workflows: () => [], publish: () => [] });
		const r = await stack.n8n.rest('GET', '/workflows/abc123/publication-status');
		console.log(version, 'with cookie:', r.status, JSON.stringify(r.body).slice(0, 200));
		const anon = await fetch(`${stack.n8n.baseUrl}/rest/workflows/abc123/publication-status`);
		console.log(version, 'no cookie:', anon.status, (await anon.text()).slice(0, 200));
		await stack.n8n.stop();
		await stack.stop();
	}
	await stopAll();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
