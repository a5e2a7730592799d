import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './credentialType';
import { signRequest } from './signing';

/**
 * The Test button is `testCredential` (credentialTest.ts), named by both nodes' `testedBy`: n8n uses a
 * credential's own `test` request before any node's method, so this class has none.
 */
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
			displayName: 'Business Name',
			name: 'businessName',
			type: 'string',
			default: '',
			placeholder: 'e.g. Acme Shop',
			description:
				'Your business as your customers know it. The answer page of Send and Wait for Response shows it as who asks, unless the node’s Options → Asked By names someone else. Optional.',
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
}
