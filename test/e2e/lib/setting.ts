import type { N8n } from '../../../tools/n8n/n8n';
import type { EngineSetting } from '../../../tools/n8n/settings';
import { assertEqual, type Check } from './report';

/** A suite run under an expression-engine setting first shows that every n8n process really has it (none for n8n's defaults). */
export function settingChecks(setting: EngineSetting, processes: () => N8n[]): Check[] {
	if (Object.keys(setting.env).length === 0) return [];
	return [
		{
			name: `every n8n process runs with ${setting.title}`,
			fn: async () => {
				for (const p of processes()) assertEqual(p.runningEnv(Object.keys(setting.env)), setting.env, `the environment of ${p.logFile}`);
			},
		},
	];
}
