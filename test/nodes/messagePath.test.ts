/**
 * The transport's guard on message endpoints decides on the path as it goes out: a request that sends
 * nothing to a customer (`apiRequest`) cannot reach a message endpoint through a dot segment, an escape,
 * a backslash or a repeated slash, since n8n's HTTP client resolves those; and what is sent is the form
 * the guard decided on.
 */
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { apiRequest, type Connection } from '../../nodes/BusinessMessaging/transport';
import { postMessage } from '../../nodes/BusinessMessaging/transport/message';

const BASE = 'https://service.example/api';

/** A run whose requests are written down where n8n's HTTP helper would send them. */
function recordingRun(): { run: Connection; urls: string[] } {
	const urls: string[] = [];
	const ctx = {
		getCredentials: async () => ({ baseUrl: BASE }),
		getNode: () => ({ name: 'Business Messaging', credentials: {} }),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				urls.push(options.url);
				return { data: {} };
			},
		},
	} as unknown as IExecuteFunctions;
	return { run: { ctx, backOffUntil: 0 }, urls };
}

// Built at run time, as a path from an expression would be: the type checker cannot see these.
const atRunTime = (path: string): string => path;

test.each([
	'/./w/message/location',
	'/w/../w/message/text',
	'/w/./message/text',
	'/orders/../w/message/text',
	'/%2e/w/message/text',
	'/w/%2E%2E/w/message/text',
	'/orders/..%2f..%2fw/message/text',
	'/%77/message/text',
	'/w%2Fmessage%2Ftext',
	'//w//message/text',
	'\\w\\message\\text',
	'/W/Message/Text',
])('apiRequest refuses %s before anything is sent: it is a message endpoint as it goes out', async (path) => {
	const { run, urls } = recordingRun();
	await expect(apiRequest(run, 'POST', atRunTime(path))).rejects.toThrow(
		`${path} sends a message: only the send pipeline may call it (declare the operation kind 'send', see ARCHITECTURE.md)`,
	);
	expect(urls).toEqual([]);
});

test.each([
	['/templates/./1', '/templates/1'],
	['/templates/x/../1', '/templates/1'],
	['/templates/%31', '/templates/1'],
	['//orders', '/orders'],
	['/templates/a%3Fb', '/templates/a%3Fb'],
])('a request that is no message goes out as the guard saw it: %s as %s', async (path, sent) => {
	const { run, urls } = recordingRun();
	await apiRequest(run, 'GET', atRunTime(path));
	expect(urls).toEqual([`${BASE}${sent}`]);
});

test('a declared message path that leaves the message endpoints once resolved is refused before anything is sent', async () => {
	const { run, urls } = recordingRun();
	await expect(postMessage(run, '/w/message/../../orders/1', {})).rejects.toThrow(
		'/w/message/../../orders/1 is not a message endpoint once its dot segments are resolved: write the endpoint plainly',
	);
	expect(urls).toEqual([]);
});
