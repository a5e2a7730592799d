/** Runs the package's action node through n8n-core's engine against a sandbox, with its credentials. */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { BusinessMessagingApi } from '../../credentials/BusinessMessagingApi.credentials';
import { BusinessMessaging } from '../../nodes/BusinessMessaging/BusinessMessaging.node';
import type { Sandbox } from '../../tools/sandbox';
import { runListSearch, runNode, runResourceMapping, type RunNodeInputItem, type RunResult } from './engine';
import { assertNoSecrets } from './secrets';

export const ACTION_NODE_TYPE = 'n8n-nodes-business-messaging.businessMessaging';

export interface RunActionOptions {
	input?: RunNodeInputItem[];
	/** Overrides of the credential's fields (the sandbox's own values otherwise). */
	credentials?: IDataObject;
	continueOnFail?: boolean;
	/** n8n's Retry On Fail setting of the node. */
	retryOnFail?: { maxTries: number; waitBetweenTries?: number };
	/** Retry this failed run as n8n's Retry button does. */
	retryOf?: RunResult;
	/** Run the node's AI-tool variant (`…businessMessagingTool`), as n8n does for an agent's tool. */
	asAiTool?: boolean;
	/** The n8n the run belongs to (test/helpers/conversation.ts stands in for one). */
	n8nUrl?: string;
}

/**
 * The node as n8n's loader offers it to an AI agent (`createAiTools` in n8n's tool-generation): the
 * same node under the name `…Tool`, which is what the description's `@tool` display options look at.
 */
export function toolVariant(): BusinessMessaging {
	const node = new BusinessMessaging();
	node.description = { ...node.description, name: `${node.description.name}Tool` };
	return node;
}

export async function runAction(
	/** The in-process sandbox or one in its own process: only its credentials are used. */
	sandbox: Pick<Sandbox, 'credentials'>,
	parameters: INodeParameters,
	options: RunActionOptions = {},
): Promise<RunResult> {
	const type = options.asAiTool ? `${ACTION_NODE_TYPE}Tool` : ACTION_NODE_TYPE;
	const result = await runNode({
		nodeTypes: { [type]: options.asAiTool ? toolVariant() : new BusinessMessaging() },
		credentialTypes: { businessMessagingApi: new BusinessMessagingApi() },
		credentials: { businessMessagingApi: { ...sandbox.credentials, ...options.credentials } },
		node: {
			type,
			parameters,
			continueOnFail: options.continueOnFail,
			...(options.retryOnFail && { retryOnFail: true, waitBetweenTries: 0, ...options.retryOnFail }),
		},
		input: options.input,
		retryOf: options.retryOf,
		n8nUrl: options.n8nUrl,
	});
	assertNoSecrets('the action node’s output, error or logs', {
		items: result.items,
		error: result.error,
		logs: result.logs,
	});
	return result;
}

/** The Template picker's search, as the editor calls it. */
export async function searchTemplates(sandbox: Sandbox, filter?: string, paginationToken?: string) {
	const result = await runListSearch({
		nodeTypes: { [ACTION_NODE_TYPE]: new BusinessMessaging() },
		credentialTypes: { businessMessagingApi: new BusinessMessagingApi() },
		credentials: { businessMessagingApi: { ...sandbox.credentials } },
		node: { type: ACTION_NODE_TYPE, parameters: { resource: 'template', operation: 'get' } },
		method: 'searchTemplates',
		parameterPath: 'parameters.templateId',
		filter,
		paginationToken,
	});
	assertNoSecrets('the template search', result);
	return result;
}

/** The Placeholder Values fields the editor shows for the given Template field value. */
export async function templatePlaceholderFields(sandbox: Sandbox, templateId: string) {
	return await runResourceMapping({
		nodeTypes: { [ACTION_NODE_TYPE]: new BusinessMessaging() },
		credentialTypes: { businessMessagingApi: new BusinessMessagingApi() },
		credentials: { businessMessagingApi: { ...sandbox.credentials } },
		node: {
			type: ACTION_NODE_TYPE,
			parameters: { resource: 'template', operation: 'render', templateId: { __rl: true, mode: 'id', value: templateId } },
		},
		method: 'getTemplatePlaceholders',
		parameterPath: 'parameters.placeholderValues',
	});
}
