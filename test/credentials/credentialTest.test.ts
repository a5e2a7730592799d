/**
 * The credential's Test button, as n8n runs it: the nodes' `testedBy` method called with n8n-core's own
 * credential-test context (its `helpers.request`), against the sandbox. A failure says what to check; the
 * service's own words for a 401 reach the user; secrets never do.
 */
import { createServer, type Socket } from 'node:net';

import { CredentialTestContext } from 'n8n-core';
import type { ICredentialDataDecryptedObject, INodeCredentialTestResult } from 'n8n-workflow';

import { testCredential } from '../../credentials/credentialTest';
import { freePort } from '../../tools/n8n/proc';
import { assertNoSecrets } from '../helpers/secrets';
import { useSandbox } from '../helpers/useSandbox';
import type { Sandbox } from '../../tools/sandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

async function runTest(changes: ICredentialDataDecryptedObject = {}): Promise<INodeCredentialTestResult> {
	// What n8n's credentials tester hands the method (credentials-tester.service.js, testCredentials).
	const context = new CredentialTestContext({} as never);
	const result = await testCredential.call(context, {
		id: 'c1',
		name: 'Business Messaging',
		type: 'businessMessagingApi',
		data: { ...sandbox.credentials, ...changes },
	});
	assertNoSecrets('the credential test’s result', result);
	return result;
}

test('the right credential: success, after one signed GET /templates?page=1&limit=1', async () => {
	expect(await runTest()).toEqual({ status: 'OK', message: 'Connection successful' });
	expect(sandbox.requests.map((r) => [r.method, r.path, r.rawQuery, r.authOk])).toEqual([['GET', '/templates', 'page=1&limit=1', true]]);
});

test('a wrong client secret: the service’s 401 in its own words, and what to check', async () => {
	const { status, message } = await runTest({ clientSecret: 'not-the-secret' });
	expect(status).toBe('Error');
	expect(message).toMatch(/^The service rejected the signed request \(401\): Invalid signature/);
	expect(message).toMatch(/client ID, client secret and workspace domain/);
	// The sandbox's words end with a full stop: the sentence after them starts after one, not two.
	expect(message).toMatch(/[^.]\. Check the client ID/);
	expect(message).not.toMatch(/\.\./);
});

test('nothing listening at the base URL: what was tried, and what to check, not only ECONNREFUSED', async () => {
	const port = await freePort();
	const { status, message } = await runTest({ baseUrl: `http://127.0.0.1:${port}/v1` });
	expect(status).toBe('Error');
	expect(message).toContain(`Nothing answered at 127.0.0.1:${port}`);
	expect(message).toContain('(ECONNREFUSED)');
	expect(message).toMatch(/Check the credential’s Base URL: the host name, the port, and https:\/\/ or http:\/\//);
});

test('a host name that does not exist: the name was not found', async () => {
	const { status, message } = await runTest({ baseUrl: 'http://no-such-host.invalid/v1' });
	expect(status).toBe('Error');
	expect(message).toMatch(/^The host name in no-such-host\.invalid was not found \((ENOTFOUND|EAI_AGAIN)\)\. Check the credential’s Base URL/);
});

test('a base URL that is no address: named before anything is sent', async () => {
	const { status, message } = await runTest({ baseUrl: 'api.example.com/v1' });
	expect(status).toBe('Error');
	expect(message).toMatch(/^Base URL: "api\.example\.com\/v1" is not an address/);
	expect(sandbox.requests).toHaveLength(0);
});

test('a base URL whose path is wrong: the path the service does not know (404), in its words, and the version path to check', async () => {
	const { status, message } = await runTest({ baseUrl: `${sandbox.url}/api/v9` });
	expect(status).toBe('Error');
	expect(message).toBe('The service does not know the path /api/v9/templates (404): No route for GET /api/v9/templates. Check the Base URL’s path, including any version such as /v1.');
	// The request was signed as it should be: the service refused the path, not the signature.
	expect(sandbox.requests.map((r) => [r.path, r.authOk, r.status])).toEqual([['/api/v9/templates', true, 404]]);
});

test('a host that takes the connection and never answers: it did not answer within 20 seconds', async () => {
	const sockets: Socket[] = [];
	const silent = createServer((socket) => void sockets.push(socket));
	await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
	const { port } = silent.address() as { port: number };
	try {
		const { status, message } = await runTest({ baseUrl: `http://127.0.0.1:${port}/v1` });
		expect(status).toBe('Error');
		expect(message).toMatch(new RegExp(`^127\\.0\\.0\\.1:${port} did not answer within 20 seconds \\((ECONNABORTED|ETIMEDOUT|ESOCKETTIMEDOUT)\\)\\. Check the credential’s Base URL`));
	} finally {
		for (const socket of sockets) socket.destroy();
		silent.close();
	}
}, 60_000);
