/**
 * Probe (not a test): what n8n-core's engine does with a node that has both `webhook` and `trigger` when a run
 * starts from its webhook, as n8n builds it for a test webhook (webhook-helpers.js prepareExecutionData: the
 * webhook node on the stack holding the webhook's output; test-webhooks.js: executionMode 'manual') and for a
 * production webhook (mode 'webhook'). Run: node --import tsx docs/evidence/2026-12-01-gap1-trigger-method/probe-manual-run.ts
 */
import { dirname } from 'node:path';

const core = require('n8n-core') as typeof import('n8n-core');
const wf = require('n8n-workflow') as typeof import('n8n-workflow');
const fromCore = (name: string): unknown => require(require.resolve(name, { paths: [dirname(require.resolve('n8n-core'))] }));
const { Container } = fromCore('@n8n/di') as typeof import('@n8n/di');
const { Logger } = fromCore('@n8n/backend-common') as typeof import('@n8n/backend-common');
import type { INodeType, INodeTypeDescription, ITriggerFunctions, IWebhookFunctions, IRun, WorkflowExecuteMode } from 'n8n-workflow';

const quiet = { error() {}, warn() {}, info() {}, debug() {}, scoped() { return quiet; } };
Container.set(Logger, quiet as never);
wf.LoggerProxy.init(quiet as never);

const calls: string[] = [];
const description: INodeTypeDescription = {
	displayName: 'Probe', name: 'probe', group: ['trigger'], version: 1, description: '', defaults: { name: 'Probe' },
	inputs: [], outputs: ['main'], properties: [],
	webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
};
class WebhookOnly implements INodeType {
	description = description;
	async webhook(this: IWebhookFunctions) { return { workflowData: [[{ json: { from: 'webhook()' } }]] }; }
}
class WebhookAndTrigger extends WebhookOnly {
	async trigger(this: ITriggerFunctions) {
		calls.push(`trigger() called, mode ${this.getMode()}, activation ${this.getActivationMode()}`);
		return { closeFunction: async () => {} };
	}
}

async function run(type: INodeType, mode: WorkflowExecuteMode): Promise<string> {
	const node = { id: 'n1', name: 'Probe', type: 'probe', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };
	const nodeTypes = { getByName: () => type, getByNameAndVersion: () => type, getKnownTypes: () => ({}) };
	const workflow = new wf.Workflow({ id: 'w1', name: 'w', nodes: [node], connections: {}, active: false, nodeTypes, settings: { executionOrder: 'v1' } });
	const hooks = new core.ExecutionLifecycleHooks(mode, 'e1', { id: 'w1', name: 'w', nodes: [node], connections: {}, active: false, activeVersionId: null, isArchived: false, createdAt: new Date(), updatedAt: new Date(), settings: {} } as never);
	const finished = new Promise<IRun>((resolve) => hooks.addHandler('workflowExecuteAfter', (r) => resolve(r)));
	const additionalData = { hooks, executionId: 'e1', currentNodeExecutionIndex: 0, webhookBaseUrl: 'http://x/webhook', restApiUrl: 'http://x/rest', instanceBaseUrl: 'http://x', variables: {} } as never;
	// As webhook-helpers.js prepareExecutionData builds it from the webhook's answer.
	const data = wf.createRunExecutionData({ executionData: { nodeExecutionStack: [{ node, data: { main: [[{ json: { from: 'webhook()' } }]] }, source: null }] } });
	const execution = new core.WorkflowExecute(additionalData, mode, data);
	void execution.processRunExecutionData(workflow);
	const outcome = await Promise.race([finished.then((r) => JSON.stringify(r.data.resultData.runData.Probe?.[0]?.data?.main ?? null)), new Promise<string>((r) => setTimeout(() => r('still running after 5 s (waiting for trigger emit)'), 5000))]);
	return outcome;
}

void (async () => {
	for (const [label, type] of [['webhook only', new WebhookOnly()], ['webhook + trigger', new WebhookAndTrigger()]] as const) {
		for (const mode of ['manual', 'webhook'] as const) {
			calls.length = 0;
			const out = await run(type, mode);
			console.log(`${label}, mode ${mode}: output ${out}${calls.length ? `; ${calls.join('; ')}` : ''}`);
		}
	}
	process.exit(0);
})();
