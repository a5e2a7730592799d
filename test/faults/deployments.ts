import { type EngineSetting, N8N_DEFAULTS, RECOMMENDED_SETTING } from '../../tools/n8n/settings';
import { DEFAULT_N8N_VERSION, SMOKE_N8N_VERSIONS } from '../../tools/n8n/versions';

/**
 * Where the fault suite's cases run: each version in regular mode, and the default version in queue mode,
 * under n8n's defaults; and the default version in regular mode under the setting the docs recommend,
 * where only the trigger's kills run: the promise "nothing answered 2xx is lost" is made under it too. That
 * one comes right after the default version's regular deployment and takes it over: the same n8n restarted
 * with the setting, as an operator changes a deployment (run.ts).
 */
export interface Deployment {
	version: string;
	mode: 'regular' | 'queue';
	setting: EngineSetting;
	/** Only the trigger's bursts at default settings, under each kill. */
	killsOnly?: boolean;
}

export const DEPLOYMENTS: Deployment[] = [
	...[...SMOKE_N8N_VERSIONS, DEFAULT_N8N_VERSION].map((version): Deployment => ({ version, mode: 'regular', setting: N8N_DEFAULTS })),
	{ version: DEFAULT_N8N_VERSION, mode: 'regular', setting: RECOMMENDED_SETTING, killsOnly: true },
	{ version: DEFAULT_N8N_VERSION, mode: 'queue', setting: N8N_DEFAULTS },
];

/**
 * Whether deployment `next` can run on `previous`'s n8n, restarted with its setting: the same version in
 * regular mode, `previous` under n8n's defaults (a setting is added, none taken away).
 */
export const takesOver = (previous: Deployment, next: Deployment) =>
	previous.version === next.version && previous.mode === 'regular' && next.mode === 'regular' && Object.keys(previous.setting.env).length === 0;

/** A deployment's name, e.g. "2.41.1 queue"; the setting is named when it is not n8n's defaults. */
export const deploymentLabel = (d: Deployment) => `${d.version} ${d.mode}${d.setting === N8N_DEFAULTS ? '' : `, ${d.setting.title}`}`;

/** A deployment's own part of its folder's name and of the ids of the events its cases send. */
export const deploymentKey = (d: Deployment) => `${d.version}-${d.mode}-${d.setting.key}`.replace(/\./g, '_');

/** What the fault suite's case names start with. */
export const prefix = (d: Deployment) => `n8n ${deploymentLabel(d)}`;
