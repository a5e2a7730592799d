import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

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

/** Read back through n8n's expression for this node's context (a webhook has no getContext). */
export function readFromContext<T>(ctx: IWebhookFunctions, field: string): T | undefined {
	// Braces escaped so that a node name holding `}}` cannot end the expression early.
	const quoted = (text: string) => JSON.stringify(text).replace(/[{}]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
	try {
		return parsed<T>(ctx.evaluateExpression(`{{ $node[${quoted(ctx.getNode().name)}].context[${quoted(field)}] }}`));
	} catch {
		return undefined;
	}
}
