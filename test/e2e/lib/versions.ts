/**
 * Every difference between the n8n versions the suites run against, in one place: how to install each on
 * this registry, and what its CLI and start-up offer. `N8N_VERSION=… npm run test:e2e` picks one.
 */

/** The version the full suites, the demo and the benchmarks use. */
export const DEFAULT_N8N_VERSION = '2.41.1';

/** The other versions `npm test` smoke-tests (newest 1.x; oldest 2.x the package supports). */
export const SMOKE_N8N_VERSIONS = ['1.123.81', '2.0.3'];

export interface N8nVersionFacts {
	version: string;
	/** npm `overrides` for the holder package.json: dependencies this registry cannot serve as declared. */
	installOverrides: Record<string, string>;
	/** CLI arguments that make an imported workflow active from the next start. */
	activateCommand: (workflowId: string) => string[];
	/** Environment that only this version understands (others refuse or ignore unknown values). */
	env: Record<string, string>;
	/** Whether N8N_INSTANCE_OWNER_* create the owner at start; otherwise the driver calls POST /rest/owner/setup. */
	ownerFromEnv: boolean;
}

function major(version: string): number {
	return Number(version.split('.')[0]);
}

/**
 * Older n8n-nodes-base (1.x, early 2.x) depends on xlsx as a CDN tarball URL, which cannot be fetched here
 * (0.18.5 is the registry's newest); linkedom 0.18.15 needs a package this registry lacks, 0.18.13 works.
 * npm ignores an override for a package a version does not use.
 */
const INSTALL_OVERRIDES = { xlsx: '0.18.5', linkedom: '0.18.13' };

export function n8nVersionFacts(version: string): N8nVersionFacts {
	if (major(version) < 2) {
		return {
			version,
			installOverrides: INSTALL_OVERRIDES,
			// 1.x has no publish:workflow.
			activateCommand: (id) => ['update:workflow', `--id=${id}`, '--active=true'],
			env: {},
			ownerFromEnv: false,
		};
	}
	return {
		version,
		installOverrides: INSTALL_OVERRIDES,
		activateCommand: (id) => ['publish:workflow', `--id=${id}`],
		env: { N8N_DISABLED_MODULES: 'mcp-registry' },
		ownerFromEnv: true,
	};
}

/** The version chosen for this run: `N8N_VERSION` or the default. */
export function selectedN8nVersion(): string {
	return process.env.N8N_VERSION?.trim() || DEFAULT_N8N_VERSION;
}
