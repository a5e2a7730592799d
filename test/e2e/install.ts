/**
 * Install suite: this package installed the way users install it. n8n fetches it by name from its built-in
 * registry (answered by a local verdaccio inside an offline namespace, see lib/registry.ts), through the
 * REST calls of Settings → Community Nodes: install, update offered and applied, uninstall, reinstall, the
 * errors a user can meet; then the declarative install (N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV). The tarball
 * itself (file list, README links, n8n's scanner rules) is checked by the release suite (test/release).
 * npm run test:install  (installs n8n and the tools, then runs itself inside scripts/offline-namespace.sh;
 * E2E_KEEP=1 keeps the logs)
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runThroughServer } from './checks/actions';
import { buildAndPack, installN8n, N8N_VERSION, N8n, n8nId, PACKAGE_NAME, REPO_ROOT } from '../../tools/n8n/n8n';
import { logsFolder } from '../../tools/n8n/logs';
import { run, sleep, stopAll } from '../../tools/n8n/proc';
import { installTools, LocalRegistry } from '../../tools/n8n/registry';
import { assert, assertEqual, closingLine, createReporter, errorText, runSuite } from './lib/report';
import { SandboxProcess } from '../../tools/n8n/sandbox';
import { waitForWebhook } from '../../tools/n8n/stack';
import { webhookIdFor } from '../../tools/n8n/workflow';
import { ACTION_TYPE, CREDENTIAL_TYPE, type CredentialRef, credentialEntry, replyWorkflow, textWorkflow, TRIGGER_TYPE, triggerProductionPath } from '../../tools/n8n/workflows';

const OWNER = { email: 'owner@install.example.com', password: 'Install-owner-Passw0rd!', firstName: 'Install', lastName: 'Owner' };

const TRIGGER_WEBHOOK_ID = webhookIdFor('install-trigger');

/** The version being released (package.json), and a later one: the same build republished, to try the update. */
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const NEXT_VERSION = VERSION.replace(/\d+$/, (patch) => String(Number(patch) + 1));

interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	updateAvailable?: string;
	failedLoading?: boolean;
	installedNodes: Array<{ name: string; type: string }>;
}

/** A copy of the packed package with another version (and optionally other package.json fields), as a folder to publish. */
async function variant(tarball: string, dir: string, changes: Record<string, unknown>): Promise<string> {
	rmSync(dir, { recursive: true, force: true });
	await run('mkdir', ['-p', dir]);
	await run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
	const file = join(dir, 'package.json');
	const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
	writeFileSync(file, JSON.stringify({ ...pkg, ...changes }, null, 2));
	return dir;
}

/** Node types and credential types n8n currently offers the editor. */
async function loadedTypes(n8n: N8n): Promise<{ nodes: Set<string>; credentials: Set<string> }> {
	const nodes = await n8n.getAsOwner<Array<{ name: string }>>('/types/nodes.json');
	const credentials = await n8n.getAsOwner<Array<{ name: string }>>('/types/credentials.json');
	assertEqual(nodes.status, 200, 'GET /types/nodes.json');
	return { nodes: new Set(nodes.body.map((n) => n.name)), credentials: new Set(credentials.body.map((c) => c.name)) };
}

async function assertPackageLoaded(n8n: N8n): Promise<void> {
	const types = await loadedTypes(n8n);
	for (const type of [ACTION_TYPE, TRIGGER_TYPE]) assert(types.nodes.has(type), `node type ${type} is not offered`);
	assert(types.credentials.has(CREDENTIAL_TYPE), `credential type ${CREDENTIAL_TYPE} is not offered`);
}

async function installedPackages(n8n: N8n): Promise<InstalledPackage[]> {
	const res = await n8n.rest<{ data: InstalledPackage[] }>('GET', '/community-packages');
	assertEqual(res.status, 200, 'GET /rest/community-packages');
	return res.body.data;
}

/** The Community Nodes screen's install call; returns n8n's answer as the screen shows it. */
async function installByName(n8n: N8n, version?: string, name = PACKAGE_NAME): Promise<{ status: number; message: string; data?: InstalledPackage }> {
	const res = await n8n.rest<{ data?: InstalledPackage; message?: string }>('POST', '/community-packages', {
		name,
		...(version ? { version } : {}),
	});
	return { status: res.status, message: res.body.message ?? '', data: res.body.data };
}

/** One text message through the installed action node (Webhook → Send Text), checked at the sandbox. */
async function sendsText(n8n: N8n, sandbox: SandboxProcess, workflow: ReturnType<typeof textWorkflow>): Promise<void> {
	const before = (await sandbox.messages()).length;
	const since = await sandbox.mark();
	const execution = await runThroughServer(n8n, workflow);
	assert(execution.status === 'success', `text workflow: execution ${execution.id} is ${execution.status}: ${JSON.stringify(execution.data?.resultData.error ?? null)}`);
	const requests = await sandbox.requests(since);
	assert(requests.length > 0 && requests.every((r) => r.authOk), `requests signed: ${requests.map((r) => `${r.method} ${r.path} authOk=${r.authOk}`).join(', ')}`);
	const messages = (await sandbox.messages()).slice(before);
	assertEqual(messages.map((m) => [m.kind, m.phone]), [['text', '+15551234567']], 'messages the sandbox received');
}

/** One genuine and one forged delivery to the installed trigger: one execution, the forgery refused. */
async function triggerAcceptsGenuineOnly(n8n: N8n, sandbox: SandboxProcess, workflowId: string): Promise<void> {
	const before = (await n8n.executions(workflowId)).length;
	const genuine = await sandbox.settled(await sandbox.deliver({ event: 'contact.updated', data: { contact_id: Date.now() % 100000, name: 'Install check' } }), 60_000);
	assertEqual(genuine.state, 'delivered', `genuine delivery (${JSON.stringify(genuine.attempts)})`);
	const forged = await sandbox.settled(await sandbox.deliver({ event: 'contact.updated', data: { contact_id: 1 }, signWith: 'not-the-webhook-secret' }), 60_000);
	assertEqual([forged.state, forged.attempts[0]?.status], ['rejected', 401], 'forged delivery');
	await n8n.waitForExecutions(workflowId, before + 1);
	await sleep(1500); // time for a wrongly started execution to show up
	assertEqual((await n8n.executions(workflowId)).length, before + 1, 'trigger executions after one genuine and one forged delivery');
}

async function main(): Promise<number> {
	const started = Date.now();
	const report = createReporter();
	const say = (line: string) => process.stdout.write(`# ${line}\n`);
	const logs = logsFolder('install', say);
	const { dir } = logs;
	const registry = new LocalRegistry(join(dir, 'registry'));
	const sandbox = new SandboxProcess(join(dir, 'sandbox.log'), 60);
	const servers: N8n[] = [];
	const finish = async () => {
		for (const server of servers) await server.stop();
		await sandbox.stop();
		await registry.stop();
		await stopAll();
		say(`whole suite ${((Date.now() - started) / 1000).toFixed(1)} s`);
		logs.close(report.totals().failed > 0);
		return closingLine(report);
	};

	let n8n: N8n;
	let tarball: string;
	const credential: CredentialRef = { id: n8nId('bmInstallCred'), name: 'Business Messaging (sandbox)' };
	const text = textWorkflow(credential, 'install-text');
	const trigger = replyWorkflow(credential, { id: 'installTrigger', name: 'Install: trigger', webhookId: TRIGGER_WEBHOOK_ID });
	try {
		say(`n8n ${N8N_VERSION}; installing n8n (cached), building and packing, starting the registry and the sandbox…`);
		const installDir = await installN8n();
		tarball = await buildAndPack(join(dir, 'pack'));
		await registry.start();
		await registry.publish(tarball);
		await sandbox.start();
		n8n = new N8n({ installDir, home: join(dir, 'n8n'), owner: OWNER, env: registry.clientEnv });
		servers.push(n8n);
		// The credential and workflows exist before the package does, as after an import or a restore.
		await n8n.importCredentials([credentialEntry(credential.name, sandbox.credentials, credential.id)]);
		await n8n.importWorkflows([text, trigger]);
		await n8n.start();
		await n8n.login();
		await n8n.createApiKey();
		await sandbox.setWebhookUrl(`${n8n.baseUrl}${triggerProductionPath(TRIGGER_WEBHOOK_ID)}`);
		report.result(`set-up: ${PACKAGE_NAME}@${VERSION} published to the local registry at ${registry.url}; n8n without the package`, true);
	} catch (error) {
		report.result('set-up: local registry, sandbox, n8n', false, errorText(error));
		return await finish();
	}

	await report.run({
		name: 'install by name (POST /rest/community-packages): n8n fetches it from its default registry; both nodes and the credential appear',
		timeoutMs: 300_000,
		fn: async () => {
			const types = await loadedTypes(n8n);
			assert(!types.nodes.has(ACTION_TYPE), 'the action node is offered before the install');
			const res = await installByName(n8n);
			assertEqual(res.status, 200, `install answer (${res.message})`);
			assertEqual(res.data?.installedVersion, VERSION, 'installed version');
			assertEqual(res.data?.installedNodes.map((node) => node.type).sort(), [ACTION_TYPE, TRIGGER_TYPE].sort(), 'installed nodes');
			await assertPackageLoaded(n8n);
			const again = await installByName(n8n);
			say(`installing it again: ${again.status} ${again.message}`);
			assert(again.status === 400 && /is already installed/.test(again.message), `a second install: ${again.status} ${again.message}`);
		},
	});

	await report.run({
		name: 'workflows with the installed nodes run against the sandbox: a text send, and the trigger takes a genuine delivery and refuses a forged one',
		timeoutMs: 180_000,
		fn: async () => {
			await n8n.activate(text.id);
			await n8n.activate(trigger.id);
			await waitForWebhook(`${n8n.baseUrl}/webhook/install-text`);
			await sendsText(n8n, sandbox, text);
			await triggerAcceptsGenuineOnly(n8n, sandbox, trigger.id);
		},
	});

	await report.run({
		name: `publish ${NEXT_VERSION}: the Community Nodes list offers the update (updateAvailable ${NEXT_VERSION})`,
		timeoutMs: 180_000,
		fn: async () => {
			await registry.publish(await variant(tarball, join(dir, `v${NEXT_VERSION}`), { version: NEXT_VERSION }));
			const [pkg] = (await installedPackages(n8n)).filter((p) => p.packageName === PACKAGE_NAME);
			assert(pkg, 'the package is not listed');
			assertEqual([pkg.installedVersion, pkg.updateAvailable], [VERSION, NEXT_VERSION], 'installed version and update offered');
		},
	});

	await report.run({
		name: `update (PATCH /rest/community-packages): ${NEXT_VERSION} loaded; the active trigger workflow, the text workflow and the credential keep working`,
		timeoutMs: 300_000,
		fn: async () => {
			const res = await n8n.rest<{ data?: InstalledPackage; message?: string }>('PATCH', '/community-packages', { name: PACKAGE_NAME, version: NEXT_VERSION });
			assertEqual(res.status, 200, `update answer (${res.body.message ?? ''})`);
			assertEqual(res.body.data?.installedVersion, NEXT_VERSION, 'installed version after the update');
			const onDisk = JSON.parse(readFileSync(join(n8n.home, '.n8n/nodes/node_modules', PACKAGE_NAME, 'package.json'), 'utf8')) as { version: string };
			assertEqual(onDisk.version, NEXT_VERSION, 'version in n8n’s nodes folder');
			const [pkg] = (await installedPackages(n8n)).filter((p) => p.packageName === PACKAGE_NAME);
			assertEqual([pkg.installedVersion, pkg.updateAvailable, pkg.failedLoading], [NEXT_VERSION, undefined, false], 'listed after the update');
			await assertPackageLoaded(n8n);
			await sendsText(n8n, sandbox, text);
			await triggerAcceptsGenuineOnly(n8n, sandbox, trigger.id);
			const test = await n8n.rest<{ data: { status: string; message: string } }>('POST', '/credentials/test', {
				credentials: { id: credential.id, name: credential.name, type: CREDENTIAL_TYPE, data: sandbox.credentials },
			});
			assertEqual(test.body.data?.status, 'OK', `credential test after the update (${test.body.data?.message})`);
		},
	});

	await report.run({
		name: 'uninstall (DELETE /rest/community-packages): the nodes disappear, workflows that use them still open (their nodes marked missing), n8n keeps running',
		timeoutMs: 180_000,
		fn: async () => {
			await n8n.deactivate(trigger.id);
			await n8n.deactivate(text.id);
			const res = await n8n.rest<{ message?: string }>('DELETE', `/community-packages?name=${encodeURIComponent(PACKAGE_NAME)}`);
			assertEqual(res.status, 200, `uninstall answer (${JSON.stringify(res.body)})`);
			const types = await loadedTypes(n8n);
			assert(!types.nodes.has(ACTION_TYPE) && !types.nodes.has(TRIGGER_TYPE), 'the nodes are still offered after the uninstall');
			assertEqual((await installedPackages(n8n)).length, 0, 'installed packages after the uninstall');
			// What the editor loads to open a workflow; it marks every node whose type is not offered as missing.
			const opened = await n8n.rest<{ data: { nodes: Array<{ type: string }> } }>('GET', `/workflows/${trigger.id}`);
			assertEqual(opened.status, 200, 'GET /rest/workflows/:id after the uninstall');
			const missing = opened.body.data.nodes.filter((node) => !types.nodes.has(node.type)).map((node) => node.type);
			assertEqual(missing.sort(), [ACTION_TYPE, TRIGGER_TYPE].sort(), 'node types the editor finds missing');
			const health = await fetch(n8n.readinessUrl);
			assertEqual(health.status, 200, 'n8n readiness after the uninstall');
			const activate = await n8n.api<{ message?: string }>('POST', `/workflows/${text.id}/activate`);
			assert(activate.status >= 400, `activating a workflow with a missing node should fail, got ${activate.status}`);
			say(`activating a workflow whose node is missing: ${activate.status} ${activate.body.message ?? ''}`);
		},
	});

	await report.run({
		name: 'errors a user can meet, as the install call answers them: a version or package that does not exist, a package needing a newer n8n, the registry down, no network',
		timeoutMs: 300_000,
		fn: async () => {
			// Each answer is printed: the README quotes them.
			const expectRefusal = async (what: string, attempt: Promise<{ status: number; message: string }>, pattern: RegExp) => {
				const res = await attempt;
				say(`${what}: ${res.status} ${res.message}`);
				assert(res.status >= 400 && pattern.test(res.message), `${what}: got ${res.status} "${res.message}", expected ${pattern}`);
			};
			await expectRefusal('a version that does not exist (9.9.9)', installByName(n8n, '9.9.9'), /Package version does not exist/);
			await expectRefusal('a package name that does not exist', installByName(n8n, undefined, `${PACKAGE_NAME}-nonexistent`), /Package version does not exist/);
			// n8n refuses a package whose n8n.n8nNodesApiVersion is newer than it supports: the "n8n too old" case.
			const { n8n: n8nBlock } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { n8n: object };
			await registry.publish(await variant(tarball, join(dir, 'v-api2'), { version: `${NEXT_VERSION}-nodes-api-2`, n8n: { ...n8nBlock, n8nNodesApiVersion: 2 } }), 'next');
			await expectRefusal('a package needing a newer n8n', installByName(n8n, `${NEXT_VERSION}-nodes-api-2`), /isn't compatible with your version of n8n/);
			await registry.stop();
			try {
				await expectRefusal('the registry not answering (connection refused)', installByName(n8n), /Failed to check package version existence/);
			} finally {
				await registry.listen();
			}
			const hosts = process.env.BM_OFFLINE_HOSTS_FILE ?? '';
			const original = readFileSync(hosts, 'utf8');
			writeFileSync(hosts, original.replace(`\t${registry.host}`, `\tnot-${registry.host}`));
			try {
				await expectRefusal('no network (the registry name does not resolve)', installByName(n8n), /temporarily unreachable/);
			} finally {
				writeFileSync(hosts, original);
			}
			assertEqual((await installedPackages(n8n)).length, 0, 'installed packages after the refused installs');
			assert(!(await loadedTypes(n8n)).nodes.has(ACTION_TYPE), 'a refused install left the node offered');
		},
	});

	await report.run({
		name: 'reinstall by name brings the nodes back; the workflows that used them activate and run again',
		timeoutMs: 300_000,
		fn: async () => {
			const res = await installByName(n8n);
			assertEqual(res.status, 200, `reinstall answer (${res.message})`);
			assertEqual(res.data?.installedVersion, NEXT_VERSION, 'reinstalled version (latest)');
			await assertPackageLoaded(n8n);
			await n8n.activate(text.id);
			await n8n.activate(trigger.id);
			await waitForWebhook(`${n8n.baseUrl}/webhook/install-text`);
			await sendsText(n8n, sandbox, text);
			await triggerAcceptsGenuineOnly(n8n, sandbox, trigger.id);
		},
	});
	await n8n.stop();

	if (!n8n.features.communityPackagesFromEnv) say(`n8n ${N8N_VERSION} has no N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV: declarative install not tried`);
	else await report.run({
		name: 'declarative install (N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV, N8N_COMMUNITY_PACKAGES) on a fresh user folder: installed at start, runs, the screen cannot change it; a new version in the list is installed at the next start',
		timeoutMs: 600_000,
		fn: async () => {
			const managed = new N8n({
				installDir: n8n.installDir,
				home: join(dir, 'n8n-managed'),
				owner: OWNER,
				env: {
					...registry.clientEnv,
					N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV: 'true',
					N8N_COMMUNITY_PACKAGES: JSON.stringify([{ name: PACKAGE_NAME, version: VERSION }]),
				},
			});
			servers.push(managed);
			await managed.importCredentials([credentialEntry(credential.name, sandbox.credentials, credential.id)]);
			await managed.importWorkflows([text]);
			await managed.start({ readyTimeoutMs: 300_000 });
			await managed.login();
			await managed.createApiKey();
			await assertPackageLoaded(managed);
			const [pkg] = await installedPackages(managed);
			assertEqual([pkg?.packageName, pkg?.installedVersion], [PACKAGE_NAME, VERSION], 'installed from the environment');
			await managed.activate(text.id);
			await waitForWebhook(`${managed.baseUrl}/webhook/install-text`);
			await sendsText(managed, sandbox, text);
			const refused = await installByName(managed, NEXT_VERSION);
			say(`installing through the screen: ${refused.status} ${refused.message}`);
			assert(refused.status >= 400 && /managed via environment variables/i.test(refused.message), `install through the screen: ${refused.status} ${refused.message}`);
			await managed.stop();
			// A new version in the list and a restart: n8n updates at start; the workflow keeps running.
			managed.setEnv({ N8N_COMMUNITY_PACKAGES: JSON.stringify([{ name: PACKAGE_NAME, version: NEXT_VERSION }]) });
			await managed.start({ readyTimeoutMs: 300_000 });
			await managed.login();
			const [updated] = await installedPackages(managed);
			assertEqual(updated?.installedVersion, NEXT_VERSION, 'installed version after changing the list and restarting');
			await assertPackageLoaded(managed);
			await waitForWebhook(`${managed.baseUrl}/webhook/install-text`);
			await sendsText(managed, sandbox, text);
			await managed.stop();
		},
	});

	await report.run({
		name: 'no secret appears in n8n’s logs',
		fn: async () => {
			const secrets = [sandbox.credentials.clientSecret, sandbox.credentials.webhookSecret];
			for (const server of servers) {
				const log = existsSync(server.logFile) ? readFileSync(server.logFile, 'utf8') : '';
				for (const secret of secrets) assert(!log.includes(secret), `a secret appears in ${server.logFile}`);
			}
		},
	});
	return await finish();
}

/**
 * Outside the namespace: install what needs the real registry (n8n, verdaccio), then run this file again
 * inside scripts/offline-namespace.sh, in the foreground (Ctrl-C reaches it).
 */
async function enterNamespace(): Promise<number> {
	await installN8n();
	await installTools();
	const tsxCli = join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs');
	const child = spawn('bash', [join(REPO_ROOT, 'scripts/offline-namespace.sh'), process.execPath, tsxCli, __filename], { stdio: 'inherit' });
	return await new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

runSuite(process.env.BM_OFFLINE_NAMESPACE === '1' ? main : enterNamespace);
