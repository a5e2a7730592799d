/**
 * n8n's expression-engine settings, in one place for the benchmarks that compare them and the suites that
 * run the package under the one the docs recommend. An n8n without the expression engine's isolates (2.3.6 and
 * 1.123.81 here) ignores these variables.
 */
export interface EngineSetting {
	key: string;
	title: string;
	env: Record<string, string>;
}

export const ENGINE_SETTINGS: EngineSetting[] = [
	{ key: 'vm', title: 'n8n defaults (expression engine "vm")', env: {} },
	{ key: 'lazy', title: 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true (engine "vm")', env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' } },
	{ key: 'legacy', title: 'N8N_EXPRESSION_ENGINE=legacy', env: { N8N_EXPRESSION_ENGINE: 'legacy' } },
];

export const N8N_DEFAULTS = ENGINE_SETTINGS[0];

/** The setting the README and docs recommend to busy receivers; `npm test` runs the package under it too. */
export const RECOMMENDED_SETTING = ENGINE_SETTINGS.find((s) => s.key === 'lazy')!;
