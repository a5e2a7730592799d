import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { lastWarnings } from '../../tools/n8n/logs';

describe('a failed suite prints its logs’ last warnings and errors (CI keeps only the output)', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), 'logs-test-'));
		mkdirSync(join(dir, 'n8n', '.n8n'), { recursive: true });
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	test('each log’s last 15 warnings and errors, named by path; other lines, n8n’s 409s to the trigger’s asks, its Python runner notice and n8n’s event log left out', () => {
		const lines = Array.from({ length: 20 }, (_, i) => `Business Messaging Trigger: warning ${i}`);
		const asked = 'Error in handling webhook request GET /webhook-waiting/7/x: The execution "7" is running already.';
		const noise = [asked, 'Failed to start Python task runner in internal mode.', '   - E2E: bulk send (e2e-bulk-retry-on-fail)'];
		writeFileSync(join(dir, 'n8n', 'n8n.log'), ['n8n ready', ...lines, ...noise, 'Editor is now accessible'].join('\n'));
		writeFileSync(join(dir, 'sandbox.log'), 'sandbox listening\ndelivery failed: timeout\n');
		writeFileSync(join(dir, 'n8n', '.n8n', 'n8nEventLog.log'), 'error in the event log\n');
		const printed = lastWarnings(dir);
		expect(printed.filter((l) => l.startsWith(join('n8n', 'n8n.log')))).toEqual(lines.slice(5).map((l) => `${join('n8n', 'n8n.log')}: ${l}`));
		expect(printed.filter((l) => l.startsWith('sandbox.log'))).toEqual(['sandbox.log: delivery failed: timeout']);
		expect(printed.some((l) => l.includes('event log'))).toBe(false);
	});
});
