/**
 * Every difference between the n8n versions the suites run against, in one place: which versions, how to
 * install each on this registry, and what the installed n8n offers (read from its own files, so a version
 * not tried here still gets the right answer). `N8N_VERSION=… npm run test:e2e` picks one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type EngineSetting, RECOMMENDED_SETTING } from './settings';

/** The version the full suites, the demo and the benchmarks use. */
export const DEFAULT_N8N_VERSION = '2.41.1';

/** The other versions `npm test` smoke-tests: the newest 1.x, and the oldest 2.x. */
export const SMOKE_N8N_VERSIONS = ['1.123.81', '2.3.6'];

/**
 * The smoke runs of `npm run test:versions`: the default version under the expression-engine setting the docs
 * recommend (it changes when n8n builds isolates for expressions), then the other versions. The first is the
 * longest (it also sends to 500 recipients): started first, two lanes end closer together.
 */
export const SMOKE_RUNS: Array<{ version: string; label: string; setting?: EngineSetting }> = [
	{ version: DEFAULT_N8N_VERSION, label: `${DEFAULT_N8N_VERSION}, ${RECOMMENDED_SETTING.title}`, setting: RECOMMENDED_SETTING },
	...SMOKE_N8N_VERSIONS.map((version) => ({ version, label: version })),
];

/**
 * npm `overrides` for the holder package.json. Older n8n-nodes-base (1.x, early 2.x) depends on xlsx as a
 * CDN tarball URL, which cannot be fetched here (0.18.5 is the registry's newest); linkedom 0.18.15 needs a
 * package this registry lacks, 0.18.13 works. npm ignores an override for a package a version does not use.
 */
export const INSTALL_OVERRIDES: Record<string, string> = { xlsx: '0.18.5', linkedom: '0.18.13' };

/** Where n8n versions (scripts/install-n8n.sh) and other Node versions are installed, reused between runs. */
export const INSTALL_CACHE = process.env.N8N_CACHE_DIR ?? join(homedir(), '.cache/n8n-nodes-business-messaging');

/** The newest Node.js 22: n8n 1.123 and 2.3 run on Node 20.19 to 24, and 22 is the LTS line between. */
const NODE_22 = '22.23.3';

/**
 * The Node.js versions users run the supported n8n versions on, besides the project's own 24.21.0 (the
 * devDependency `node`, which every suite runs on): the floor package.json's `engines.node` states, and Node 22.
 */
export function otherNodeVersions(): string[] {
	const engines = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
	const floor = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(engines.trim());
	if (!floor) throw new Error(`package.json's engines.node is "${engines}": expected ">=major.minor"`);
	return [`${floor[1]}.${floor[2]}.${floor[3] ?? 0}`, NODE_22];
}

/** `a >= b` for plain `major.minor.patch` versions. */
export function versionAtLeast(a: string, b: string): boolean {
	const [x, y] = [a, b].map((v) => v.split('.').map(Number));
	for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
	return true;
}

/** The version chosen for this run: `N8N_VERSION` or the default. */
export function selectedN8nVersion(): string {
	return process.env.N8N_VERSION?.trim() || DEFAULT_N8N_VERSION;
}

export interface N8nFeatures {
	/** N8N_INSTANCE_OWNER_* create the owner at start; otherwise the owner is set up through POST /rest/owner/setup. */
	ownerFromEnv: boolean;
	/** N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV (declarative community packages). */
	communityPackagesFromEnv: boolean;
	/** Modules this version knows; naming another in N8N_DISABLED_MODULES stops n8n at start. */
	modules: string[];
	/**
	 * n8n's body parser drops a UTF-8 byte order mark before JSON (`stripBom`, middlewares/body-parser.js).
	 * Without it (1.123.81) n8n answers such a body 422 "Failed to parse request body" before any node runs.
	 */
	jsonBomAccepted: boolean;
	/** The AI Agent node's versions (`@n8n/n8n-nodes-langchain.agent`): 1.123.81 goes up to 3, 2.3.6 and later to 3.1. */
	agentVersions: number[];
	/** n8n generates a human-review tool (`…HitlTool`) from every node with Send and Wait (2.41.1; not 1.123.81). */
	hitlTools: boolean;
	/**
	 * A webhook answering "Immediately" (`onReceived`, n8n's Webhook node's default) is answered once the run
	 * exists: from n8n 2.8.0 (`shouldDeferOnReceivedResponse`, webhooks/webhook-helpers.js). Before, n8n answers
	 * before it creates the execution, and a crash loses what it acknowledged (the fault suite's Webhook node
	 * shows it). The trigger answers in `hostedChat` mode, after the run exists on every supported version.
	 */
	onReceivedAnswersAfterRun: boolean;
	/**
	 * `/healthz/readiness` says 200 only once n8n has started (`fullyReady`, abstract-server.js, 2.41.1): past
	 * its startup recovery, which marks every run still `running` in the database crashed. 1.123.81 and 2.3.6
	 * say 200 once the database is migrated, before n8n serves webhooks and runs that recovery (in that order).
	 */
	readinessWaitsForStart: boolean;
	/**
	 * A manual run (`POST /rest/workflows/:id/run`, the editor's Execute step) reads the workflow from the database
	 * (`ManualRunDto`, workflows.controller.js, 2.41.1); before, the editor sends it in the body (1.123.81, 2.3.6).
	 */
	manualRunReadsDatabase: boolean;
	/**
	 * n8n runs every active workflow's activation (its triggers' `create`) when it starts: 1.123.81 and 2.3.6
	 * (`activeWorkflowManager.init()`). 2.41.1 starts with its workflow publication service
	 * (`N8N_USE_WORKFLOW_PUBLICATION_SERVICE`, on by default; workflows.config.js), which at a start publishes again
	 * only triggers kept in memory: nothing of a webhook trigger runs until a request comes.
	 */
	activatesWorkflowsAtStart: boolean;
}

/**
 * What an installed n8n offers, read from its files. Checked here: 1.123.81, 2.0.3 and 2.3.6 have no
 * owner or community packages from the environment; 2.41.1 has both.
 */
export function n8nFeatures(installDir: string): N8nFeatures {
	const n8nDist = join(installDir, 'node_modules/n8n/dist');
	const configDist = join(installDir, 'node_modules/@n8n/config/dist/configs');
	const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
	const ownerConfig = read(join(configDist, 'instance-settings-loader.config.js'));
	const modulesFile = read(join(installDir, 'node_modules/@n8n/backend-common/dist/modules/modules.config.js'));
	const agentNode = join(installDir, 'node_modules/@n8n/n8n-nodes-langchain/dist/nodes/agents/Agent/Agent.node.js');
	const modulesList = /MODULE_NAMES = \[([^\]]*)\]/.exec(modulesFile)?.[1] ?? '';
	return {
		ownerFromEnv: ownerConfig.includes('N8N_INSTANCE_OWNER_MANAGED_BY_ENV'),
		communityPackagesFromEnv: ownerConfig.includes('N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV'),
		modules: [...modulesList.matchAll(/'([^']+)'/g)].map((m) => m[1]),
		jsonBomAccepted: read(join(n8nDist, 'middlewares/body-parser.js')).includes('stripBom'),
		agentVersions: [...read(agentNode).matchAll(/^\s*'?(\d+(?:\.\d+)?)'?: new /gm)].map((m) => Number(m[1])),
		hitlTools: existsSync(join(n8nDist, 'tool-generation/hitl-tools.js')),
		onReceivedAnswersAfterRun: read(join(n8nDist, 'webhooks/webhook-helpers.js')).includes('shouldDeferOnReceivedResponse'),
		readinessWaitsForStart: read(join(n8nDist, 'abstract-server.js')).includes('fullyReady'),
		manualRunReadsDatabase: read(join(n8nDist, 'workflows/workflows.controller.js')).includes('ManualRunDto'),
		activatesWorkflowsAtStart: !read(join(configDist, 'workflows.config.js')).includes('N8N_USE_WORKFLOW_PUBLICATION_SERVICE'),
	};
}
