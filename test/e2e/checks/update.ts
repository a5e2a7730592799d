/**
 * The update from the package as it was before several workflows on one URL (package 0.2.0, `BEFORE_SHARING`)
 * to this build, in place: the package's folder in n8n's nodes folder replaced, n8n restarted, as after a
 * manual update (Settings → Community Nodes → Update is checked with the same build by the install suite). What
 * the earlier build made must keep working at the same URLs: a run waiting for a chat reply (registered in the
 * Resume Waiting Runs trigger's static data), that trigger's duplicate store, and a plain trigger's.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAndPack, PACKAGE_NAME, REPO_ROOT } from '../../../tools/n8n/n8n';
import { run } from '../../../tools/n8n/proc';
import { packedPackage, type Stack } from '../../../tools/n8n/stack';
import { triggerProductionPath } from '../../../tools/n8n/workflows';
import { signedRequest } from '../../trigger/requests';
import { assertEqual, type Check } from '../lib/report';
import { askCustomer, askOutput, customerWrites, newCustomer, settledRun } from './conversations';
import { expectExecutionCount } from './trigger';

/** main just before the package learnt to share events (its package.json said 0.2.0). */
export const BEFORE_SHARING = 'fdd46c6';

/** The package built from `commit`'s sources (with this checkout's development tools), packed. */
async function packAt(commit: string, outDir: string): Promise<string> {
	const src = mkdtempSync(join(tmpdir(), `bm-${commit}-`));
	try {
		await run('bash', ['-c', `git -C "${REPO_ROOT}" archive ${commit} | tar -x -C "${src}"`], { timeoutMs: 60_000 });
		symlinkSync(join(REPO_ROOT, 'node_modules'), join(src, 'node_modules'));
		mkdirSync(outDir, { recursive: true });
		return await buildAndPack(outDir, src);
	} finally {
		rmSync(src, { recursive: true, force: true });
	}
}

/** Replaces the installed package with `tarball` while n8n is stopped, then starts n8n again. */
async function installInPlace(stack: Stack, tarball: string): Promise<void> {
	await stack.n8n.stop();
	rmSync(join(stack.n8n.home, '.n8n/nodes/node_modules', PACKAGE_NAME), { recursive: true, force: true });
	await stack.n8n.installPackage(tarball);
	await stack.n8n.start();
}

export function updateCheck(stack: Stack, plainTriggerHook: string, plainTriggerWorkflowId: () => string, log: (line: string) => void): Check {
	return {
		name: `the update from the package before several workflows on one URL (${BEFORE_SHARING}, 0.2.0) to this build, in place: a run waiting for a chat reply, the duplicate stores and the URLs made with it keep working`,
		timeoutMs: 600_000,
		fn: async () => {
			const { n8n } = stack;
			const before = await packAt(BEFORE_SHARING, mkdtempSync(join(tmpdir(), 'bm-before-')));
			const current = await packedPackage(log);
			await installInPlace(stack, before);
			let updated = false;
			try {
				// Made with the earlier build: a run waiting for a reply, and an event the plain trigger ran.
				const ask = stack.workflows.find((w) => w.name === 'E2E: ask and wait for chat reply (Any)')!;
				const customer = newCustomer();
				const question = await askCustomer(stack, ask, customer, 'ORD-UPDATE');
				const body = JSON.stringify({ event: 'contact.created', timestamp: new Date().toISOString(), data: { contact_id: `update-${Date.now()}` } });
				const url = `${n8n.baseUrl}${triggerProductionPath(plainTriggerHook)}`;
				const post = async () => {
					const res = await fetch(url, { method: 'POST', headers: signedRequest(stack.sandbox.credentials.webhookSecret, body, Math.floor(Date.now() / 1000)).headers, body });
					return { status: res.status, text: await res.text() };
				};
				const runsBefore = (await n8n.executions(plainTriggerWorkflowId(), 250)).length;
				assertEqual((await post()).status, 200, 'the event, with the earlier build');
				// A request the trigger answers itself hands the duplicate store to n8n to save (docs/trigger.md, Duplicates).
				await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"verification","challenge":"c"}' });
				log('update: the earlier build asked, ran an event; replacing it with this build');

				await installInPlace(stack, current);
				updated = true;
				const retry = await post();
				assertEqual([retry.status, JSON.parse(retry.text)], [200, { received: true, ignored: 'duplicate delivery' }], 'the service’s retry of that event, after the update');
				await expectExecutionCount(n8n, plainTriggerWorkflowId(), runsBefore + 1);
				const reply = await customerWrites(stack, customer, 'ok');
				assertEqual(reply.attempts.at(-1)?.status, 200, 'the customer’s reply, after the update');
				const resumed = await settledRun(n8n, question);
				assertEqual([resumed.status, askOutput(resumed).replied], ['success', true], 'the run that waited across the update');
			} finally {
				// The checks after this one run on this build, whatever happened here.
				if (!updated) await installInPlace(stack, current).catch(() => undefined);
			}
		},
	};
}
