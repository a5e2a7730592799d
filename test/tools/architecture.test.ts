/**
 * The import rules (.dependency-cruiser.cjs, ARCHITECTURE.md "Layers"), checked with dependency-cruiser
 * over the shipped code and tools/: no cycle; the node → router → actions → helpers → transport, never
 * back up; messages only through the send pipeline; tools/ never reaching into test/.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

interface CruiseResult {
	summary: { violations: Array<{ rule: { name: string }; from: string; to: string; cycle?: Array<{ name: string }> }>; totalCruised: number };
	modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
}

const cruise = (): CruiseResult => {
	const result = spawnSync(
		process.execPath,
		[join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'), '--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'nodes', 'credentials', 'tools'],
		{ cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
	);
	if (!result.stdout) throw new Error(`dependency-cruiser printed nothing: ${result.stderr}`);
	return JSON.parse(result.stdout) as CruiseResult;
};

test('no import cycle, no arrow up the layers or from tools/ into test/, messages only through the send pipeline', () => {
	const { summary, modules } = cruise();
	const breaches = summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' → ')})` : ''}`);
	expect(breaches).toEqual([]);
	// It looked at the code it guards: the pipeline's one arrow to the message transport is among what it read.
	const pipeline = modules.find((m) => m.source === 'nodes/BusinessMessaging/actions/send.ts');
	expect(pipeline?.dependencies.map((d) => d.resolved)).toContain('nodes/BusinessMessaging/transport/message.ts');
	expect(summary.totalCruised).toBeGreaterThan(50);
}, 60_000);
