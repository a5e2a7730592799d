import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../operation';

import { operationsOffered } from '../../helpers/agentLimits';

import * as askAndWait from './askAndWait.operation';
import * as sendAndWait from './sendAndWait.operation';
import * as sendMedia from './sendMedia.operation';
import * as sendText from './sendText.operation';

/** The operations of this resource, by the value of its Operation field. */
export const operations: Record<string, Operation> = {
	askAndWaitForReply: askAndWait.operation,
	sendAndWait: sendAndWait.operation,
	sendMedia: sendMedia.operation,
	sendText: sendText.operation,
};

export const description: INodeProperties[] = [
	...operationsOffered('message', {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['message'] } },
		options: [
			{
				name: 'Ask and Wait for Chat Reply',
				value: 'askAndWaitForReply',
				description: 'Send a question (text or template) and pause the workflow until the customer replies in the chat',
				action: 'Ask a question and wait for the chat reply',
			},
			{
				name: 'Send and Wait for Response',
				value: 'sendAndWait',
				description: 'Send a question with a link and pause the workflow until the recipient answers',
				action: 'Send a message and wait for the answer',
			},
			{
				name: 'Send Media',
				value: 'sendMedia',
				description: 'Send an image, video, audio file or document from binary data',
				action: 'Send a media file',
			},
			{
				name: 'Send Text',
				value: 'sendText',
				description: 'Send a text message',
				action: 'Send a text message',
			},
		],
		default: 'sendText',
	}),
	{
		// A node's panel cannot read its credential (docs/action-node.md, "Test Mode"), so this says where the
		// setting is and what each choice does, never which one is chosen. The run's output panel says that.
		displayName:
			'Test Mode belongs to the credential, not to this node. Off: messages go to their recipients. Send to Test Recipient: all go to its Test Recipient. Dry Run: nothing is sent; requests are only checked and signed. A note above the output says when a test setting was used.',
		name: 'testModeNotice',
		type: 'notice',
		default: '',
		// Every operation above that sends, read from `operations`: a new send cannot be left out.
		displayOptions: { show: { resource: ['message'], operation: Object.keys(operations).filter((name) => operations[name].kind !== 'request') } },
	},
	...sendText.operation.description,
	...sendMedia.operation.description,
	...sendAndWait.operation.description,
	...askAndWait.operation.description,
];
