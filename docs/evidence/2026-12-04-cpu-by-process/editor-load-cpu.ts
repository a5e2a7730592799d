/**
 * Chromium's CPU for one load of n8n's editor on a workflow, and while it sits idle (throwaway measurement, run from the
 * repository's root: PACKED_TARBALL=<tgz> node --import tsx docs/evidence/2026-12-04-cpu-by-process/editor-load-cpu.ts).
 * The browser as test/ui/run.ts launches it; CPU from /proc per Chromium process type.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startStack } from '../../../tools/n8n/stack';
import { chain, manualTrigger, node } from '../../../tools/n8n/workflow';

const OWNER = { email: 'o@ui.example.com', password: 'Ui-owner-Passw0rd!', firstName: 'U', lastName: 'O' };
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VARIANTS: Record<string, string[]> = { plain: [], flags: ['--disable-gpu-rasterization', '--disable-software-rasterizer'] };

/** CPU seconds of every Chromium process, by type. */
function chromiumCpu(): Record<string, number> {
	const byType: Record<string, number> = {};
	for (const pid of execSync('pgrep -f /usr/lib/chromium/chromium || true').toString().trim().split('\n').filter(Boolean)) {
		try {
			const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
			const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
			const type = (/--type=([\w-]+)/.exec(cmd)?.[1] ?? 'browser') + (/--utility-sub-type=([\w.]+)/.exec(cmd)?.[1] ? `:${/--utility-sub-type=([\w.]+)/.exec(cmd)![1]}` : '');
			byType[type] = (byType[type] ?? 0) + (Number(f[11]) + Number(f[12])) / 100;
		} catch {
			// gone meanwhile
		}
	}
	return byType;
}
const total = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
const since = (a: Record<string, number>, b: Record<string, number>) => Object.entries(b).map(([k, v]) => `${k} ${(v - (a[k] ?? 0)).toFixed(2)}`).join(', ');

async function main() {
	const stack = await startStack({ dir: mkdtempSync(join(tmpdir(), 'editor-load-')), owner: OWNER, workflows: () => [chain('editorLoad', 'Editor load', [manualTrigger(), node('Set', 'n8n-nodes-base.set', 3.4, {})])], activate: () => [] });
	for (const variant of (process.env.VARIANTS ?? 'plain,flags').split(',')) {
		const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: [...ARGS, ...VARIANTS[variant]] });
		const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await context.newPage();
		await page.goto(`${stack.n8n.baseUrl}/signin`);
		await page.locator('input[type="email"], input[name="emailOrLdapLoginId"]').first().fill(OWNER.email);
		await page.locator('input[type="password"]').fill(OWNER.password);
		await page.locator('[data-test-id="form-submit-button"]').click();
		await page.waitForURL((u) => !u.pathname.startsWith('/signin'));
		for (let k = 0; k < 3; k++) {
			await page.waitForTimeout(3000);
			const before = chromiumCpu();
			await page.goto(`${stack.n8n.baseUrl}/workflow/${stack.workflows[0].id}`);
			await page.locator('[data-test-id="canvas-node"]').first().waitFor();
			const loaded = chromiumCpu();
			console.log(`${variant}: load ${k + 1} of the workflow page: ${(total(loaded) - total(before)).toFixed(2)} CPU s to its first node (${since(before, loaded)})`);
		}
		const idle = chromiumCpu();
		await page.waitForTimeout(20_000);
		console.log(`${variant}: 20 s idle on the canvas: ${(total(chromiumCpu()) - total(idle)).toFixed(2)} CPU s`);
		await browser.close();
	}
	await stack.stop();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
