/** Small builders for workflow JSON as `n8n import:workflow` takes it. */
import { randomUUID } from 'node:crypto';
import { n8nId } from './n8n';

export interface WfNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
	onError?: string;
	executeOnce?: boolean;
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
}

export interface Workflow {
	id: string;
	name: string;
	active: boolean;
	nodes: WfNode[];
	/** By output type: `main`, or the AI connection types (`ai_languageModel`, `ai_tool`) of sub-nodes. */
	connections: Record<string, Record<string, Array<Array<{ node: string; type: string; index: number }>>>>;
	settings: Record<string, unknown>;
	pinData: Record<string, unknown>;
	/** 2.0.x's import requires one; later versions make one when it is missing. */
	versionId: string;
}

let counter = 0;

export function node(
	name: string,
	type: string,
	typeVersion: number,
	parameters: Record<string, unknown>,
	extra: Partial<WfNode> = {},
): WfNode {
	counter++;
	return {
		id: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
		name,
		type,
		typeVersion,
		position: [counter * 220, 300],
		parameters,
		...extra,
	};
}

/** A workflow whose nodes run one after another, in the order given. */
export function chain(id: string, name: string, nodes: WfNode[]): Workflow {
	const connections: Workflow['connections'] = {};
	for (let i = 0; i < nodes.length - 1; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return {
		id: n8nId(id),
		name,
		active: false,
		nodes,
		connections,
		settings: { executionOrder: 'v1', saveManualExecutions: true, saveDataSuccessExecution: 'all' },
		pinData: {},
		versionId: randomUUID(),
	};
}

export const manualTrigger = (name = 'Start') => node(name, 'n8n-nodes-base.manualTrigger', 1, {});

/**
 * n8n's Webhook node at `/webhook/<path>` once active: lets the server run a workflow on request. It answers
 * with the last node's items when the run ends (`lastNode`), or at once (`onReceived`).
 */
export type WebhookResponseMode = 'lastNode' | 'onReceived';

export const webhookTrigger = (path: string, name = 'Run', responseMode: WebhookResponseMode = 'lastNode') =>
	node(
		name,
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path, responseMode, responseData: 'allEntries', options: {} },
		{ webhookId: webhookIdFor(path) },
	);

/** A stable UUID-shaped webhook id per path. */
export function webhookIdFor(path: string): string {
	let hex = '';
	for (const ch of path) hex += ch.charCodeAt(0).toString(16);
	hex = (hex + '0'.repeat(32)).slice(0, 32);
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const setFields = (name: string, values: Record<string, string | number | boolean>) =>
	node(name, 'n8n-nodes-base.set', 3.4, {
		mode: 'manual',
		assignments: {
			assignments: Object.entries(values).map(([key, value], index) => ({
				id: `a${index}`,
				name: key,
				value,
				type: typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'string',
			})),
		},
		options: {},
	});
