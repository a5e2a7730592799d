import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { RunState } from './runState';

/**
 * What a waiting node keeps about its wait, in the node's context: n8n saves it with the execution and
 * does not show it in the output, and the node's webhook reads it back when the execution is resumed.
 */
export function keepInContext(ctx: IExecuteFunctions, field: string, value: unknown): void {
	ctx.getContext('node')[field] = JSON.stringify(value);
}

function parsed<T>(raw: unknown): T | undefined {
	try {
		return typeof raw === 'string' && raw ? (JSON.parse(raw) as T) : undefined;
	} catch {
		return undefined;
	}
}

/** What this node kept earlier in the same execution (a loop asks again). */
export function keptInContext<T>(ctx: IExecuteFunctions, field: string): T | undefined {
	return parsed<T>(ctx.getContext('node')[field]);
}

/**
 * Read back through n8n's expression for this node's context (a webhook has no getContext), once per
 * webhook request: the router asks whether the execution waits here, then the operation reads its wait.
 */
export function readFromContext<T>(run: RunState<IWebhookFunctions>, field: string): T | undefined {
	if (!run.kept.has(field)) run.kept.set(field, evaluated(run.ctx, field));
	return run.kept.get(field) as T | undefined;
}

function evaluated(ctx: IWebhookFunctions, field: string): unknown {
	// Braces escaped so that a node name holding `}}` cannot end the expression early.
	const quoted = (text: string) => JSON.stringify(text).replace(/[{}]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
	try {
		return parsed(ctx.evaluateExpression(`{{ $node[${quoted(ctx.getNode().name)}].context[${quoted(field)}] }}`));
	} catch {
		return undefined;
	}
}
