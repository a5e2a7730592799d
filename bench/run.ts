/**
 * Benchmarks: npm run bench [-- sending receiving media listing signing conversations sharing queue]   (default: all but queue;
 * `queue` runs only when named: it starts its own queue-mode deployment)
 * Prints a header (command, machine, versions, commit, date), then one table per benchmark (progress goes to
 * stderr). The same output goes, unedited, to a new file in docs/results/ (BENCH_RESULTS_DIR moves it): the raw
 * output a figure in docs/ links to (CONTRIBUTING.md, "Figures").
 * Sizes for quick tries: BENCH_ROUNDS, BENCH_ITEMS, BENCH_LATENCY_ITEMS, BENCH_LATENCY_MS (comma-separated), BENCH_RECV_SECONDS,
 * BENCH_MEDIA_MB, BENCH_TEMPLATES (comma-separated), BENCH_QUEUE_EVENTS,
 * BENCH_QUEUE_ROWS (a regex over the queue table's row labels), BENCH_QUEUE_SETTING (vm, lazy or legacy; vm when unset), BENCH_RECV_SETTINGS, BENCH_CONV_SETTINGS and BENCH_SHARING_SETTINGS (vm,lazy,legacy), BENCH_CONV_SAMPLES,
 * BENCH_CONV_WAITING, BENCH_STATUS_MESSAGES, BENCH_SHARING_CONCURRENCY, BENCH_SHARING_SECONDS, BENCH_SHARING_SAMPLES; BENCH_KEEP=1 keeps the folder with the logs.
 * Everything runs on 127.0.0.1 in this process tree; every process started is stopped on exit and Ctrl-C.
 */
import { join } from 'node:path';
import { N8N_VERSION } from '../tools/n8n/n8n';
import { logsFolder } from '../tools/n8n/logs';
import { stopAll } from '../tools/n8n/proc';
import { startStack, type Stack } from '../tools/n8n/stack';
import type { Workflow } from '../tools/n8n/workflow';
import type { BenchContext } from './lib/context';
import { findN8nMain, findTaskRunner } from './lib/procfs';
import { benchConversations, benchStatusBurst, conversationWorkflows } from './conversations';
import { benchListing, startListingSandboxes } from './listing';
import { benchMedia, mediaWorkflows } from './media';
import { benchQueue } from './queue';
import { benchReceivingUnder, benchVerification, HEADER_AUTH, headerAuthCredential, receivingWorkflows } from './receiving';
import { ENGINE_SETTINGS, type EngineSetting, RECOMMENDED_SETTING } from '../tools/n8n/settings';
import { benchReceivingProfile } from './receiving-profile';
import { isolateCounterEnv, requestCounterEnv } from './lib/isolates';
import { restartN8n } from './lib/restart';
import { benchCommand, headerLines, machineHeader, openResults, shownPath } from './lib/results';
import { benchSending, sendingWorkflows } from './sending';
import { benchSharing, sharingBenchWorkflows, sharingRequestDir } from './sharing';
import { benchSigning } from './signing';

const ALL = ['sending', 'receiving', 'media', 'listing', 'signing', 'conversations', 'sharing'] as const;
/** Run only when named. */
const ON_REQUEST = ['queue'] as const;
type Section = (typeof ALL)[number] | (typeof ON_REQUEST)[number];

const OWNER = { email: 'owner@bench.example.com', password: 'Bench-owner-Passw0rd!', firstName: 'Bench', lastName: 'Owner' };

/** The engine settings named in `envName` (`fallback`, or all, when unset), each with its table id: `2a`, `2b`, … */
function settingsChosen(envName: string, table: string, fallback?: string[]) {
	const only = process.env[envName]?.split(',') ?? fallback;
	return ENGINE_SETTINGS.map((setting, i) => ({ setting, id: `${table}${'abc'[i]}` })).filter(({ setting }) => !only || only.includes(setting.key));
}

const num = (name: string, fallback: number) => {
	const v = Number(process.env[name]);
	return Number.isFinite(v) && v > 0 ? v : fallback;
};

async function main(): Promise<number> {
	const started = Date.now();
	const args = process.argv.slice(2);
	const known: readonly string[] = [...ALL, ...ON_REQUEST];
	for (const a of args) if (!known.includes(a)) throw new Error(`unknown benchmark "${a}" (known: ${known.join(', ')})`);
	const sections = new Set<Section>(args.length ? (args as Section[]) : ALL);
	const rounds = num('BENCH_ROUNDS', 3);
	const items = num('BENCH_ITEMS', 2000);
	const recvSeconds = num('BENCH_RECV_SECONDS', 8);
	const mediaMb = num('BENCH_MEDIA_MB', 50);
	const templateSizes = (process.env.BENCH_TEMPLATES ?? '1000,10000').split(',').map(Number);
	const log = (line: string) => process.stderr.write(`# ${line}\n`);
	const results = openResults([...sections]);
	const out = (text: string) => {
		process.stdout.write(`${text}\n`);
		results.write(`${text}\n`);
	};
	const logs = logsFolder('bench', log, 'BENCH_KEEP');
	const { dir } = logs;

	out([...headerLines(machineHeader(benchCommand(args), { node: process.version, n8n: N8N_VERSION })), `Rounds: ${rounds}`, ''].join('\n'));

	let stack: Stack | undefined;
	const stops: Array<() => Promise<void>> = [];
	let failed = false;
	const tables: Record<string, string> = {};
	try {
		const needsN8n = [...sections].some((s) => s !== 'signing' && s !== 'queue');
		if (needsN8n) {
			const listing = sections.has('listing') ? await startListingSandboxes(dir, templateSizes) : undefined;
			if (listing) stops.push(listing.stop);
			let workflows: Workflow[] = [];
			/** Activated by the sharing benchmark itself: one trigger per n8n shares. */
			let sharingWorkflows: Workflow[] = [];
			stack = await startStack({
				dir,
				owner: OWNER,
				log,
				otherCredentials: sections.has('receiving') ? [headerAuthCredential()] : [],
				workflows: ({ sandbox, credential, n8n, extraCredentials }) => {
					workflows = [
						...(sections.has('sending') ? sendingWorkflows(credential, sandbox.url, sandbox.credentials.phoneNumberId) : []),
						...(sections.has('receiving') ? receivingWorkflows(credential, extraCredentials[HEADER_AUTH.name]) : []),
						...(sections.has('media') ? mediaWorkflows(credential, n8n.filesDir) : []),
						...(sections.has('conversations') ? conversationWorkflows(credential) : []),
					];
					sharingWorkflows = sections.has('sharing') ? sharingBenchWorkflows(credential) : [];
					return [...workflows, ...sharingWorkflows];
				},
				activate: () => [],
			});
			stops.push(async () => {
				await stack!.n8n.stop(); // the current server, also after a restart
				await stack!.stop();
			});
			for (const w of workflows) await stack.n8n.activate(w.id);
			const home = stack.n8n.home;
			const ctx: BenchContext = {
				stack,
				dir,
				rounds,
				log,
				isolateDir: join(dir, 'isolates'),
				n8nPids: () => {
					const main = findN8nMain(home);
					if (!main) return [];
					const runner = findTaskRunner(main);
					return runner ? [main, runner] : [main];
				},
			};
			// Run order differs from print order: the receiving comparison restarts n8n with other settings, so it goes last.
			const guarded = async (key: string, name: string, fn: () => Promise<string>) => {
				try {
					tables[key] = await fn();
				} catch (error) {
					failed = true;
					tables[key] = `${name}: FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
				}
				log(`${name}: done`);
			};
			/** n8n restarted under an expression-engine setting, with the isolate counter (`more` adds to its environment). */
			const restartUnder = async (setting: EngineSetting, more = (env: Record<string, string>) => env) => {
				log(`restarting n8n with ${JSON.stringify(setting.env)} and the isolate counter`);
				stack!.n8n = await restartN8n(stack!, OWNER, more({ ...setting.env, ...isolateCounterEnv(ctx.isolateDir) }));
			};
			if (sections.has('sending')) {
				await guarded('1', '1. Sending', () =>
					benchSending(ctx, workflows, items, Math.max(1, Math.floor(items / 4)), {
						items: num('BENCH_LATENCY_ITEMS', 200),
						ms: (process.env.BENCH_LATENCY_MS ?? '25,100').split(',').map(Number).filter((ms) => ms > 0),
					}),
				);
			}
			if (sections.has('media')) await guarded('3', '3. Media', () => benchMedia(ctx, workflows, mediaMb));
			if (sections.has('listing') && listing) await guarded('4', '4. Listing', () => benchListing(ctx, listing.sandboxes));
			if (sections.has('conversations')) {
				// Under each expression-engine setting, with the isolate counter: the isolates explain the gap (docs/performance.md, What bounds the targets).
				for (const { setting, id } of settingsChosen('BENCH_CONV_SETTINGS', '7')) {
					await guarded(id, `${id}. Conversations (${setting.key})`, async () => {
						await restartUnder(setting);
						return await benchConversations(ctx, workflows, num('BENCH_CONV_SAMPLES', 30), num('BENCH_CONV_WAITING', 50), id, setting.title);
					});
					// On the same n8n, after the rounds: a bulk send's statuses all at once (its own entry, so a failure keeps the table above).
					const messages = num('BENCH_STATUS_MESSAGES', 500);
					await guarded(`${id}-statuses`, `${id}. Wait for Status, ${messages} messages (${setting.key})`, () => benchStatusBurst(ctx, workflows, messages, id, setting.title));
				}
			}
			if (sections.has('sharing')) {
				for (const { setting, id } of settingsChosen('BENCH_SHARING_SETTINGS', '8', ['vm', 'lazy'])) {
					const goal = setting === RECOMMENDED_SETTING;
					await guarded(id, `${id}. Sharing (${setting.key})`, async () => {
						await restartUnder(setting, (env) => requestCounterEnv(sharingRequestDir(ctx), env));
						// The setting with the goal gets twice the rounds, as in table 2.
						const options = { seconds: num('BENCH_SHARING_SECONDS', 8), samples: num('BENCH_SHARING_SAMPLES', 20), rounds: goal ? rounds * 2 : rounds, setting, goal, id };
						return await benchSharing(ctx, sharingWorkflows, workflows, options);
					});
				}
			}
			if (sections.has('receiving')) {
				for (const { setting, id } of settingsChosen('BENCH_RECV_SETTINGS', '2')) {
					await guarded(id, `${id}. Receiving (${setting.key})`, async () => {
						await restartUnder(setting);
						return await benchReceivingUnder(ctx, workflows, recvSeconds, setting, id);
					});
					if (setting === RECOMMENDED_SETTING) {
						await guarded('2e', '2e. Receiving, CPU profile', () => benchReceivingProfile(ctx, workflows, 15, '2e'));
					}
				}
				tables['2d'] = await benchVerification(stack.sandbox.credentials.webhookSecret, '2d');
			}
		}
		if (sections.has('queue')) {
			// Its own deployment (PostgreSQL, Redis, four n8n processes), once the single n8n above is stopped.
			for (const stop of stops.reverse()) await stop();
			stops.length = 0;
			try {
				const key = process.env.BENCH_QUEUE_SETTING ?? 'vm';
				const setting = ENGINE_SETTINGS.find((s) => s.key === key);
				if (!setting) throw new Error(`BENCH_QUEUE_SETTING=${key}: not one of ${ENGINE_SETTINGS.map((s) => s.key).join(', ')}`);
				tables['6'] = await benchQueue(dir, log, num('BENCH_QUEUE_EVENTS', 1000), setting);
			} catch (error) {
				failed = true;
				tables['6'] = `6. Queue mode: FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
			}
		}
		// Last, with n8n stopped: the signing figures are in-process and want a quiet machine.
		for (const stop of stops.reverse()) await stop();
		stops.length = 0;
		if (sections.has('signing')) {
			try {
				tables['5'] = await benchSigning(rounds);
			} catch (error) {
				failed = true;
				tables['5'] = `5. Signing: FAILED: ${String(error)}`;
			}
		}
		for (const key of ['1', '2a', '2b', '2c', '2d', '2e', '3', '4', '5', '6', ...['7a', '7b', '7c'].flatMap((conv) => [conv, `${conv}-statuses`]), '8a', '8b', '8c']) if (tables[key]) out(tables[key]);
	} finally {
		for (const stop of stops.reverse()) await stop().catch(() => undefined);
		await stopAll();
	}
	log(`whole run: ${((Date.now() - started) / 1000).toFixed(0)} s`);
	log(`raw output: ${shownPath(results.path)} (a figure in docs/ links to it; CONTRIBUTING.md, "Figures")`);
	logs.close(failed);
	return failed ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	async (error) => {
		process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		await stopAll();
		process.exit(1);
	},
);
