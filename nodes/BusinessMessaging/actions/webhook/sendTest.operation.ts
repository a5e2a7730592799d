import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../transport';
import { optionsField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Operation } from '../operation';

const properties: INodeProperties[] = [
	{
		displayName:
			'Asks the service to send a test event to the webhook URL set in its dashboard. To check the whole path, put a Business Messaging Trigger’s Test URL there, click Execute step on it (it then says "Listening for test event"), then run this: the event arrives marked as the service’s test event, or an item says why it was refused.',
		name: 'sendTestNotice',
		type: 'notice',
		default: '',
	},
	optionsField,
];

const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['sendTest'] } },
	properties,
);

async function execute(run: RunState, itemIndex: number): Promise<IDataObject> {
	// The spec shows no request payload: none is sent, so the query string (empty) is what is signed.
	const response = await apiRequest(run, 'POST', '/webhooks/test', { itemIndex, retry: 'send' });
	return (response.data as IDataObject) ?? response;
}

export const operation: Operation = { kind: 'request', description, execute };
