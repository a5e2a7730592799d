import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './credentialType';
import { signRequest } from './signing';

/** Shown under Base URL: what the bare connection error codes of the Test button mean. */
export const BASE_URL_CONNECTION_HINT =
	'Test says ECONNREFUSED, ENOTFOUND or ETIMEDOUT? Nothing answered at this address: check the host name, the port, and https:// or http://.';

export class BusinessMessagingApi implements ICredentialType {
	name = CREDENTIAL_TYPE;

	displayName = 'Business Messaging API';

	icon = {
		light: 'file:../icons/businessMessaging.svg',
		dark: 'file:../icons/businessMessaging.dark.svg',
	} as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-business-messaging#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com/v1',
			description: 'The address every API path is relative to, as shown in your developer dashboard',
			// n8n's Test shows only the error code when nothing answers (its credentials tester returns
			// error.cause.code; response-code rules cannot match a connection that never got a response),
			// so the hint for those codes sits on the field they are about.
			hint: BASE_URL_CONNECTION_HINT,
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: 'Sent as X-Client-ID with every request',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Key that signs every request. It is never sent itself.',
		},
		{
			displayName: 'Workspace Domain',
			name: 'domain',
			type: 'string',
			default: '',
			required: true,
			description: 'Your workspace identifier, sent as X-Domain',
		},
		{
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Key the service signs webhook events with. The Business Messaging Trigger rejects every event while this is empty.',
		},
		{
			displayName: 'Default Sender (Phone Number ID)',
			name: 'phoneNumberId',
			type: 'string',
			default: '',
			description: 'Sender number used when a node leaves its Sender field empty',
		},
		{
			displayName: 'Multipart Signing',
			name: 'multipartSigning',
			type: 'options',
			default: 'rawBody',
			options: [
				{
					name: 'Raw Body (Default)',
					value: 'rawBody',
					description: 'Timestamp followed by the exact multipart bytes sent',
				},
				{
					name: 'Query String',
					value: 'queryString',
					description: 'Timestamp followed by the query string, as for requests without a JSON body',
				},
				{
					name: 'Timestamp Only',
					value: 'timestampOnly',
					description: 'Timestamp followed by nothing',
				},
			],
			description:
				'Advanced. How media uploads are signed: the service documentation does not say. Change only if media sends fail with 401 while other requests work.',
		},
		{
			displayName: 'Test Mode',
			name: 'testMode',
			type: 'options',
			default: 'off',
			options: [
				{ name: 'Off', value: 'off', description: 'Messages go to their real recipients' },
				{
					name: 'Send to Test Recipient',
					value: 'redirect',
					description: 'Every message goes to the Test Recipient below instead',
				},
				{
					name: 'Dry Run',
					value: 'dryRun',
					description: 'Every message is checked and signed, but not sent',
				},
			],
			description:
				'For building workflows: applies to every node using this credential. The output and the node’s output panel say when it is on.',
		},
		{
			displayName: 'Test Recipient',
			name: 'testRecipient',
			type: 'string',
			default: '',
			placeholder: '+4915112345678',
			description: 'Your own number: receives every message while Test Mode is Send to Test Recipient',
			displayOptions: { show: { testMode: ['redirect'] } },
		},
	];

	authenticate = signRequest;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/templates',
			method: 'GET',
			qs: { page: 1, limit: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The service rejected the signed request (401). Check the client ID, client secret and workspace domain, and that this machine’s clock is right.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'Nothing answers at this base URL (404). Check the base URL, including any version path.',
				},
			},
		],
	};
}
