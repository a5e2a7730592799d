/**
 * PostgreSQL and Redis for n8n's queue mode: Debian's servers (scripts/install-queue-services.sh installs
 * them when missing), each on a random loopback port with its data in its own temp folder, each started
 * through `startProcess` so it is stopped by process group like everything else.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './n8n';
import { freePort, run, startProcess, type Started, waitFor } from './proc';

export async function installQueueServices(): Promise<void> {
	await run('bash', [join(REPO_ROOT, 'scripts/install-queue-services.sh')], { stdio: ['ignore', 'inherit', 'inherit'], timeoutMs: 15 * 60_000 });
}

export interface Service {
	port: number;
	/** Environment variables that point n8n at this service. */
	env: Record<string, string>;
	stop: () => Promise<void>;
}

/** A temp folder removed by `remove()`, or at exit at the latest (also after Ctrl-C). */
function tempDir(prefix: string): { dir: string; remove: () => void } {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	const remove = () => {
		process.off('exit', remove);
		rmSync(dir, { recursive: true, force: true });
	};
	process.on('exit', remove);
	return { dir, remove };
}

function postgresBin(): string {
	const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
	if (!versions.length) throw new Error('no PostgreSQL under /usr/lib/postgresql');
	return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/**
 * initdb and postgres refuse to run as root: as root they run as the `postgres` user the Debian package
 * creates (setpriv execs in place, so the process started is the postmaster itself).
 */
function asPostgres(command: string, args: string[]): [string, string[]] {
	if (process.getuid?.() !== 0) return [command, args];
	return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]];
}

function postgresIds(): { uid: number; gid: number } {
	return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
}

/** A throwaway PostgreSQL cluster (trust auth on 127.0.0.1 only, no fsync) with a database `n8n`. */
export async function startPostgres(logFile: string): Promise<Service> {
	const bin = postgresBin();
	const { dir, remove } = tempDir('bm-pg-');
	const data = join(dir, 'data');
	mkdirSync(data, { mode: 0o700 });
	if (process.getuid?.() === 0) {
		const { uid, gid } = postgresIds();
		chownSync(dir, uid, gid);
		chownSync(data, uid, gid);
	}
	const port = await freePort();
	const user = 'n8n';
	const [initCmd, initArgs] = asPostgres(join(bin, 'initdb'), ['-D', data, '-U', user, '--auth=trust', '--encoding=UTF8', '--no-sync']);
	await run(initCmd, initArgs, { cwd: dir, timeoutMs: 120_000 });
	const [cmd, args] = asPostgres(join(bin, 'postgres'), [
		'-D', data,
		'-p', String(port),
		'-c', 'listen_addresses=127.0.0.1',
		'-c', 'unix_socket_directories=',
		'-c', 'fsync=off',
		'-c', 'synchronous_commit=off',
		'-c', 'full_page_writes=off',
		'-c', 'max_connections=200',
	]);
	const server: Started = startProcess(cmd, args, { cwd: dir, logFile });
	const stop = async () => {
		await server.stop();
		remove();
	};
	try {
		await waitFor('PostgreSQL to accept connections', async () => (/ready to accept connections/.test(server.output()) ? true : undefined), 60_000, 100);
		await run(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, 'n8n'], { timeoutMs: 60_000 });
	} catch (error) {
		await stop();
		throw new Error(`${String(error)}\n${server.output().slice(-2000)}`);
	}
	return {
		port,
		env: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(port),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: user,
			DB_POSTGRESDB_PASSWORD: 'unused-trust-auth',
		},
		stop,
	};
}

/** A throwaway Redis (no persistence) on 127.0.0.1. */
export async function startRedis(logFile: string): Promise<Service> {
	const { dir, remove } = tempDir('bm-redis-');
	const port = await freePort();
	const conf = join(dir, 'redis.conf');
	writeFileSync(conf, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, 'save ""', 'appendonly no', 'daemonize no', 'protected-mode yes'].join('\n') + '\n');
	const server = startProcess('redis-server', [conf], { cwd: dir, logFile });
	const stop = async () => {
		await server.stop();
		remove();
	};
	try {
		await waitFor('Redis to accept connections', async () => (/Ready to accept connections/i.test(server.output()) ? true : undefined), 30_000, 100);
	} catch (error) {
		await stop();
		throw new Error(`${String(error)}\n${server.output().slice(-2000)}`);
	}
	return { port, env: { QUEUE_BULL_REDIS_HOST: '127.0.0.1', QUEUE_BULL_REDIS_PORT: String(port) }, stop };
}
