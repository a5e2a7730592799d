/**
 * A local npm registry (verdaccio) that answers as n8n's built-in community-package registry, the public
 * npm registry's address (`DEFAULT_REGISTRY` in n8n's community-packages.service.js): on 443, with TLS
 * from a throwaway test CA, inside scripts/offline-namespace.sh where that host name is 127.0.0.1.
 * n8n's own install code then runs unmodified. Storage, CA, npm cache and npmrc live in a temp folder.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { join } from 'node:path';
import { REPO_ROOT } from './n8n';
import { run, startProcess, type Started, waitFor } from './proc';

/** The install suite's tools, verdaccio and n8n's scanner (package.json and lock committed, installed on first use). */
export const TOOLS_DIR = join(REPO_ROOT, 'tools/npm-tools');
const VERDACCIO_BIN = join(TOOLS_DIR, 'node_modules/verdaccio/bin/verdaccio');

/** Installs the pinned tools from their lock file the first time (outside the namespace: it needs the registry). */
export async function installTools(): Promise<void> {
	await run('bash', [join(REPO_ROOT, 'scripts/install-npm-tools.sh')], { onStderrLine: (line) => process.stderr.write(`${line}\n`), timeoutMs: 600_000 });
}

/** n8n's default registry (community-packages.service.js); only this one works without an enterprise licence. */
export const N8N_DEFAULT_REGISTRY = 'https://registry.npmjs.org';

const USER = 'e2e-publisher';
const PASSWORD = 'e2e-publisher-pass';

/** Makes a CA and a server certificate for `host` signed by it (openssl); returns the files. */
async function makeTestCertificates(dir: string, host: string): Promise<{ ca: string; key: string; cert: string }> {
	mkdirSync(dir, { recursive: true });
	const f = (name: string) => join(dir, name);
	const openssl = (args: string[]) => run('openssl', args, { cwd: dir, timeoutMs: 60_000 });
	await openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=n8n-nodes-business-messaging test CA']);
	await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', `/CN=${host}`]);
	writeFileSync(f('server.ext'), `subjectAltName=DNS:${host}\nextendedKeyUsage=serverAuth\n`);
	await openssl(['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '2', '-extfile', f('server.ext')]);
	return { ca: f('ca.pem'), key: f('server.key'), cert: f('server.pem') };
}

export class LocalRegistry {
	readonly url = N8N_DEFAULT_REGISTRY;
	private proc?: Started;
	private caFile = '';

	constructor(private readonly dir: string) {}

	get host(): string {
		return new URL(this.url).host;
	}

	/**
	 * What every process that talks to the registry needs (n8n, and the npm it runs): trust in the test CA,
	 * an npm cache and user config of their own (the real cache must not learn this registry's answers).
	 */
	get clientEnv(): Record<string, string> {
		return {
			NODE_EXTRA_CA_CERTS: this.caFile,
			npm_config_cafile: this.caFile,
			npm_config_cache: join(this.dir, 'npm-cache'),
			npm_config_userconfig: join(this.dir, 'npmrc'),
			npm_config_update_notifier: 'false',
		};
	}

	async start(): Promise<void> {
		if (process.env.BM_OFFLINE_NAMESPACE !== '1') {
			throw new Error('the local registry answers as the public registry: run inside scripts/offline-namespace.sh');
		}
		mkdirSync(join(this.dir, 'storage'), { recursive: true });
		const tls = await makeTestCertificates(join(this.dir, 'tls'), this.host);
		this.caFile = tls.ca;
		// verdaccio's htpasswd plugin reads {SHA} entries; anyone may read, the test user may publish.
		const sha = createHash('sha1').update(PASSWORD).digest('base64');
		writeFileSync(join(this.dir, 'htpasswd'), `${USER}:{SHA}${sha}:autocreated\n`);
		writeFileSync(
			join(this.dir, 'config.yaml'),
			[
				`storage: ${join(this.dir, 'storage')}`,
				'auth:',
				'  htpasswd:',
				`    file: ${join(this.dir, 'htpasswd')}`,
				'    max_users: -1',
				'uplinks: {}',
				'packages:',
				"  '**':",
				'    access: $all',
				'    publish: $authenticated',
				'    unpublish: $authenticated',
				'https:',
				`  key: ${tls.key}`,
				`  cert: ${tls.cert}`,
				'web:',
				'  enable: false',
				'log: { type: stdout, format: pretty, level: warn }',
				'',
			].join('\n'),
		);
		const auth = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
		writeFileSync(join(this.dir, 'npmrc'), `//${this.host}/:_auth=${auth}\n`);
		await this.listen();
	}

	/** Starts (or restarts, same storage) verdaccio on 443 and waits until it answers over TLS. */
	async listen(): Promise<void> {
		if (!existsSync(VERDACCIO_BIN)) throw new Error('verdaccio is not installed: run installTools() before entering the namespace');
		this.proc = startProcess(process.execPath, [VERDACCIO_BIN, '--config', join(this.dir, 'config.yaml'), '--listen', `https://127.0.0.1:443`], {
			cwd: this.dir,
			env: { ...process.env, ...this.clientEnv },
			logFile: join(this.dir, 'verdaccio.log'),
		});
		await waitFor(
			'local registry on 443',
			async () => ((await this.get('/-/ping')).status === 200 ? true : undefined),
			60_000,
			250,
		);
	}

	/** Stops verdaccio (storage stays): the registry is then down. */
	async stop(): Promise<void> {
		await this.proc?.stop();
		this.proc = undefined;
	}

	/** `npm publish` of a tarball or package folder with basic auth, as a maintainer would. */
	async publish(tarballOrFolder: string, tag = 'latest'): Promise<void> {
		await run('npm', ['publish', tarballOrFolder, '--tag', tag, '--registry', `${this.url}/`, '--ignore-scripts', '--loglevel=error'], {
			cwd: this.dir,
			env: { ...process.env, ...this.clientEnv },
			timeoutMs: 120_000,
		});
	}

	/** The registry's metadata for a package (dist-tags, versions), as n8n reads it. */
	async packument(name: string): Promise<{ 'dist-tags': Record<string, string>; versions: Record<string, unknown> }> {
		const res = await this.get(`/${encodeURIComponent(name)}`);
		if (res.status !== 200) throw new Error(`GET ${this.url}/${name}: ${res.status} ${res.body}`);
		return JSON.parse(res.body) as { 'dist-tags': Record<string, string>; versions: Record<string, unknown> };
	}

	/** A GET that trusts the test CA (this process started before the CA existed, so NODE_EXTRA_CA_CERTS cannot help). */
	private get(path: string): Promise<{ status: number; body: string }> {
		const ca = readFileSync(this.caFile);
		return new Promise((resolve, reject) => {
			const req = get(`${this.url}${path}`, { ca, timeout: 10_000 }, (res) => {
				let body = '';
				res.on('data', (c: Buffer) => (body += c.toString()));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
			});
			req.on('timeout', () => req.destroy(new Error('timeout')));
			req.on('error', reject);
		});
	}

	log(): string {
		try {
			return readFileSync(join(this.dir, 'verdaccio.log'), 'utf8');
		} catch {
			return '';
		}
	}
}
