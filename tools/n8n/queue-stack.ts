/**
 * n8n in queue mode, as its docs lay it out for volume: PostgreSQL, Redis, the main process (editor, API,
 * activation; production webhooks off), two `n8n webhook` processes on their own ports and one
 * `n8n worker`, all on one user folder holding this package and one encryption key. Used by the queue
 * suite and the queue benchmark.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type N8n, n8nId } from './n8n';
import { freePort } from './proc';
import { installQueueServices, type Service, startPostgres, startRedis } from './services';
import { type Stack, type StackOptions, startStack } from './stack';

export interface QueueStack extends Stack {
	/** The two `n8n webhook` processes. */
	webhooks: N8n[];
	worker: N8n;
	postgres: Service;
	redis: Service;
	/** The environment every n8n process got on top of the driver's defaults. */
	queueEnv: Record<string, string>;
}

export const WORKER_CONCURRENCY = 10;

/** A credential for n8n's Redis node on the queue's own Redis, database 1 (Bull uses 0): imported with the stack's. */
export const REDIS_CREDENTIAL = { id: n8nId('Redis (deduplication)'), name: 'Redis (deduplication)' };

function redisCredentialEntry(port: number) {
	return { name: REDIS_CREDENTIAL.name, type: 'redis', data: { host: '127.0.0.1', port, database: 1, password: '', user: '', ssl: false } };
}

/** `env`, when given, is set on every n8n process on top of queue mode's own (e.g. an expression-engine setting to measure). */
export async function startQueueStack(options: Omit<StackOptions, 'processes' | 'otherCredentials'>): Promise<QueueStack> {
	const log = options.log ?? (() => undefined);
	mkdirSync(options.dir, { recursive: true });
	log('PostgreSQL and Redis (installed with apt-get when missing)…');
	await installQueueServices();
	const postgres = await startPostgres(join(options.dir, 'postgres.log'));
	let redis: Service | undefined;
	try {
		redis = await startRedis(join(options.dir, 'redis.log'));
		// n8n's public webhook address (WEBHOOK_URL), the same for every process as behind a load balancer:
		// here the first webhook process. Resume addresses made on the worker point there.
		const webhookPort = await freePort();
		const queueEnv = {
			...postgres.env,
			...redis.env,
			EXECUTIONS_MODE: 'queue',
			// The load balancer sends /webhook/ to the webhook processes only.
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
			N8N_CONCURRENCY_PRODUCTION_LIMIT: String(WORKER_CONCURRENCY),
			WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/`,
			...options.env,
		};
		const stack = await startStack({
			...options,
			env: queueEnv,
			otherCredentials: [redisCredentialEntry(redis.port)],
			processes: [
				{ name: 'webhook-1', command: 'webhook', port: webhookPort },
				{ name: 'webhook-2', command: 'webhook' },
				{ name: 'worker', command: 'worker' },
			],
		});
		const services = [redis, postgres];
		return {
			...stack,
			webhooks: stack.processes.slice(0, 2),
			worker: stack.processes[2],
			postgres,
			redis,
			queueEnv,
			stop: async () => {
				await stack.stop();
				for (const s of services) await s.stop();
			},
		};
	} catch (error) {
		await redis?.stop();
		await postgres.stop();
		throw error;
	}
}
