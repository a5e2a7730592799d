/**
 * The whole local stack, in the order that works: n8n (cached install), this package built and packed,
 * the sandbox, a fresh n8n user folder with the package installed, the credential and workflows imported,
 * the server started, the owner logged in, an API key, the workflows asked for activated. Used by the e2e
 * suite and the demo.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECEIVE_THROUGH_SHARING_TRIGGER } from '../../nodes/BusinessMessagingTrigger/sharing/scope';
import { inLanes } from './lanes';
import { buildAndPack, installN8n, N8n, type N8nCommand, n8nId, type Owner } from './n8n';
import { freePort, waitFor, withProgress } from './proc';
import { SandboxProcess } from './sandbox';
import type { Workflow } from './workflow';
import { type CredentialRef, credentialEntry, TRIGGER_TYPE } from './workflows';

/**
 * Workflows activated at once: n8n 2.41.1 publishes five at a time (N8N_WORKFLOW_PUBLICATION_CONCURRENCY), and
 * one after another each waited for the one before. Triggers that share or receive through the sharing one go
 * first, one after another in the order given: a trigger that receives through the sharing one registers with
 * it on activation, and activated at the same moment as it, found none until its retry 5 s later
 * (docs/sharing.md; the demo's orders workflow missed an order so:
 * docs/results/2026-11-30-npm-test-bb427f4-demo-failed.txt), and a sharing trigger looks for another one
 * sharing when it is activated. Every other workflow's activation touches no other workflow.
 */
const ACTIVATIONS_AT_ONCE = 5;

/** A trigger that shares (Share With Other Workflows) or receives through the one that does. */
function takesPartInSharing(parameters: Record<string, unknown>): boolean {
	return parameters.resumeWaitingRuns === true || parameters.receiveFrom === RECEIVE_THROUGH_SHARING_TRIGGER;
}

export interface StackOptions {
	/** Folder for the n8n user folder, the tarball and the logs. */
	dir: string;
	/** n8n version (default: N8N_VERSION or versions.ts's default). */
	n8nVersion?: string;
	owner: Owner;
	n8nPort?: number;
	sandboxPort?: number;
	/** Passed to the sandbox: retry delays divided by this. */
	timeScale?: number;
	credentialName?: string;
	/** The credential's fields that differ from the sandbox's values (the demo's Business Name). */
	credentialFields?: Record<string, unknown>;
	/** More credentials of this type: the sandbox's values with these fields changed, by name. */
	extraCredentials?: Record<string, Record<string, unknown>>;
	/** Credentials of other types (e.g. n8n's OpenAI credential), imported as given, by name. */
	otherCredentials?: Array<{ name: string; type: string; data: Record<string, unknown> }>;
	/** Builds the workflows once the sandbox's address and the credentials are known. */
	workflows: (context: {
		sandbox: SandboxProcess;
		credential: CredentialRef;
		n8n: N8n;
		extraCredentials: Record<string, CredentialRef>;
	}) => Workflow[];
	/**
	 * Workflows (ids) to activate (publish) through the public API once the server runs, before the stack is
	 * returned. Active in the database as `n8n publish:workflow` leaves them, so active again after a restart;
	 * one API call each instead of one n8n CLI start each.
	 */
	activate: (workflows: Workflow[]) => string[];
	log?: (line: string) => void;
	/** Extra environment for every n8n process and CLI command (e.g. the database and Redis of queue mode). */
	env?: Record<string, string>;
	/** More n8n processes on the same user folder, started once the main process is ready (queue mode). */
	processes?: Array<{ name: string; command: N8nCommand; port?: number }>;
}

export interface Stack {
	n8n: N8n;
	/** The processes asked for in `options.processes`, in that order. */
	processes: N8n[];
	sandbox: SandboxProcess;
	credential: CredentialRef;
	credentialData: Record<string, unknown>;
	workflows: Workflow[];
	timings: Record<string, number>;
	stop: () => Promise<void>;
}

/** How long each step of a stack's start took, and the whole suite since `started` (ms). */
export function timingsLine(timings: Record<string, number>, started: number): string {
	const steps = Object.entries(timings).map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)}`);
	return `timings (s): ${steps.join(', ')}; whole suite ${((Date.now() - started) / 1000).toFixed(1)}`;
}

let packed: Promise<string> | undefined;
/**
 * The package built and packed once per process: the sources do not change while a suite runs, and a suite
 * that starts several stacks (queue mode's two passes, the smoke runs, the fault suite's deployments, side by
 * side or one after another) installs the same tarball in each; stacks starting together wait for one build.
 * It lives outside every stack's folder, which a passing stack deletes, and goes when the process exits.
 */
export function packedPackage(log: (line: string) => void): Promise<string> {
	packed ??= (async () => {
		const dir = mkdtempSync(join(tmpdir(), 'bm-pack-'));
		process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
		log('building and packing the package…');
		return await withProgress('building and packing the package', () => buildAndPack(dir), log);
	})();
	return packed;
}

export async function startStack(options: StackOptions): Promise<Stack> {
	const log = options.log ?? (() => undefined);
	const timings: Record<string, number> = {};
	let t = Date.now();
	const lap = (name: string) => {
		timings[name] = Date.now() - t;
		t = Date.now();
		log(`${name}: ${(timings[name] / 1000).toFixed(1)} s`);
	};
	mkdirSync(options.dir, { recursive: true });

	log('installing n8n (cached after the first time)…');
	// The installer's own lines (what it is doing) reach the user; the heartbeat repeats the latest one.
	let installing = 'installing n8n';
	const installDir = await withProgress(
		() => installing,
		() =>
			installN8n(options.n8nVersion, (line) => {
				installing = line.replace(/[.…]+$/, '');
				log(line);
			}),
		log,
	);
	lap('n8n install');
	const tarball = await packedPackage(log);
	lap('build and pack');

	const sandbox = new SandboxProcess(join(options.dir, 'sandbox.log'), options.timeScale);
	const home = join(options.dir, 'n8n');
	const n8n = new N8n({ installDir, home, owner: options.owner, port: options.n8nPort ?? (await freePort()), env: options.env });
	const processes = (options.processes ?? []).map(
		(p) => new N8n({ installDir, home, owner: options.owner, encryptionKey: n8n.encryptionKey, env: options.env, name: p.name, port: p.port }),
	);
	const stop = async () => {
		await Promise.all(processes.map((p) => p.stop()));
		await n8n.stop();
		await sandbox.stop();
	};
	try {
		await sandbox.start(options.sandboxPort);
		lap('sandbox start');
		await withProgress('installing the package into n8n', () => n8n.installPackage(tarball), log);
		lap('package install');

		const credentialName = options.credentialName ?? 'Business Messaging (sandbox)';
		const credential: CredentialRef = { id: n8nId('bmSandboxCred'), name: credentialName };
		const credentialData = { ...sandbox.credentials, ...options.credentialFields };
		const extraCredentials: Record<string, CredentialRef> = {};
		const extraEntries = Object.entries(options.extraCredentials ?? {}).map(([name, fields]) => {
			extraCredentials[name] = { id: n8nId(name), name };
			return credentialEntry(name, { ...credentialData, ...fields }, extraCredentials[name].id);
		});
		for (const other of options.otherCredentials ?? []) {
			extraCredentials[other.name] = { id: n8nId(other.name), name: other.name };
			extraEntries.push({ id: extraCredentials[other.name].id, name: other.name, type: other.type, data: other.data });
		}
		// n8nId keeps 16 characters of a name: two names alike at the start would import as one credential.
		const ids = [credential.id, ...extraEntries.map((e) => e.id)];
		const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
		if (repeated) throw new Error(`two credentials would share the id ${repeated}: give them names that differ in their first 16 letters or digits`);
		await n8n.importCredentials([credentialEntry(credentialName, credentialData, credential.id), ...extraEntries]);
		lap('import credential');
		const workflows = options.workflows({ sandbox, credential, n8n, extraCredentials });
		await n8n.importWorkflows(workflows);
		lap('import workflows');
		await withProgress('waiting for n8n to start', () => n8n.start(), log);
		lap('n8n start');
		if (processes.length) {
			await Promise.all(processes.map((p, i) => p.start({ command: options.processes![i].command })));
			lap(`n8n ${options.processes!.map((p) => p.name).join(', ')} start`);
		}
		await n8n.login();
		await n8n.createApiKey();
		lap('login and API key');
		const toActivate = options.activate(workflows);
		const inSharing = (id: string) =>
			workflows.find((w) => w.id === id)?.nodes.some((n) => n.type === TRIGGER_TYPE && takesPartInSharing(n.parameters)) ?? true;
		for (const id of toActivate.filter(inSharing)) await n8n.activate(id);
		await inLanes(
			toActivate.filter((id) => !inSharing(id)),
			ACTIVATIONS_AT_ONCE,
			async (id) => await n8n.activate(id),
		);
		lap('activate');
		return { n8n, processes, sandbox, credential, credentialData, workflows, timings, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}

/** Production webhooks register just after readiness: waits until `url` stops answering 404 to a probe POST. */
export async function waitForWebhook(url: string, timeoutMs = 20_000): Promise<void> {
	await waitFor(
		`webhook ${url}`,
		async () => ((await fetch(url, { method: 'POST', body: '' })).status !== 404 ? true : undefined),
		timeoutMs,
		250,
	);
}
