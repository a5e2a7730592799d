/**
 * Restarts the stack's n8n with extra environment variables (same user folder, database, encryption
 * key and port), e.g. to compare n8n settings. Active workflows become active again at start.
 */
import { N8n, type Owner } from '../../tools/n8n/n8n';
import type { Stack } from '../../tools/n8n/stack';

export async function restartN8n(stack: Stack, owner: Owner, env: Record<string, string>): Promise<N8n> {
	const old = stack.n8n;
	await old.stop();
	const n8n = new N8n({ installDir: old.installDir, home: old.home, owner, encryptionKey: old.encryptionKey, port: old.port, env });
	await n8n.start();
	await n8n.login();
	await n8n.createApiKey(`bench-${Date.now()}`);
	return n8n;
}
