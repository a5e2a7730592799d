/**
 * The credential's Test button. A node method (`testedBy` in both nodes), not the credential's `test`
 * request: for a request that never got an answer, n8n's request test shows only the error code
 * ("ECONNREFUSED", credentials-tester.service.js returns `error.cause.code`); a method says what to check.
 * It sends the request the `test` request sent: one signed GET /templates?page=1&limit=1.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { signRequest } from './signing';

const TIMEOUT_SECONDS = 20;

/** The service's own words in an error body (the spec does not show its shape: message, error or detail). */
function serviceWords(body: unknown): string | undefined {
	if (typeof body === 'string') return body.trim().slice(0, 300) || undefined;
	if (!body || typeof body !== 'object') return undefined;
	const record = body as IDataObject;
	return [record.message, record.error, record.detail].find((value): value is string => typeof value === 'string');
}

/** What to check when nothing answered, by the connection error's code. */
function unreachable(code: string | undefined, host: string): string {
	const checkUrl = 'Check the credential’s Base URL';
	switch (code) {
		case 'ECONNREFUSED':
			return `Nothing answered at ${host}: the connection was refused (ECONNREFUSED). ${checkUrl}: the host name, the port, and https:// or http://. Then check that the service runs and n8n may reach it.`;
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return `The host name in ${host} was not found (${code}). ${checkUrl}: the spelling of the host name, and that the n8n machine can look it up (DNS).`;
		case 'ETIMEDOUT':
		case 'ECONNABORTED':
		case 'ESOCKETTIMEDOUT':
			return `${host} did not answer within ${TIMEOUT_SECONDS} seconds (${code}). ${checkUrl}: the host name and the port. Then check that no firewall or proxy stops n8n from reaching it.`;
		default:
			return `Could not reach ${host}${code ? ` (${code})` : ''}. ${checkUrl}: the host name, the port, and https:// where the service speaks https (http:// where it does not).`;
	}
}

/** ": <the service's words>." (one full stop, whatever the words end with), or "." without words. */
function saying(words: string | undefined): string {
	const text = words?.trim();
	if (!text) return '.';
	return `: ${/[.!?]$/.test(text) ? text : `${text}.`}`;
}

function failure(message: string): INodeCredentialTestResult {
	return { status: 'Error', message };
}

export async function testCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data: ICredentialDataDecryptedObject = credential.data ?? {};
	const baseUrl = String(data.baseUrl ?? '').trim().replace(/\/+$/, '');
	let host: string;
	try {
		const url = new URL(baseUrl);
		if (!/^https?:$/.test(url.protocol)) throw new Error('not http');
		host = url.host;
	} catch {
		return failure(`Base URL: "${baseUrl}" is not an address. Enter it as your developer dashboard shows it, for example https://api.example.com/v1.`);
	}
	const signed = await signRequest(data, { method: 'GET', url: `${baseUrl}/templates`, qs: { page: 1, limit: 1 } });
	// A credential test gets only the legacy `request` helper (ICredentialTestFunctions; n8n's lint would
	// point to `httpRequest`, which this context does not offer). It goes through n8n's proxy settings.
	const { request } = this.helpers;
	let response: { statusCode: number; body: unknown };
	try {
		response = (await request({
			method: 'GET',
			uri: signed.url,
			headers: signed.headers,
			json: true,
			simple: false,
			resolveWithFullResponse: true,
			timeout: TIMEOUT_SECONDS * 1000,
		})) as { statusCode: number; body: unknown };
	} catch (error) {
		const { code, cause } = error as { code?: string; cause?: { code?: string } };
		return failure(unreachable(cause?.code ?? code, host));
	}
	const { statusCode, body } = response;
	if (statusCode >= 200 && statusCode < 300) return { status: 'OK', message: 'Connection successful' };
	const said = saying(serviceWords(body));
	if (statusCode === 401) {
		return failure(
			`The service rejected the signed request (401)${said} Check the client ID, client secret and workspace domain, and that this machine’s clock is right.`,
		);
	}
	if (statusCode === 404) {
		const path = new URL(signed.url).pathname;
		return failure(`The service does not know the path ${path} (404)${said} Check the Base URL’s path, including any version such as /v1.`);
	}
	return failure(`The service answered ${statusCode}${said} Check the base URL; if it is right, try again later.`);
}
