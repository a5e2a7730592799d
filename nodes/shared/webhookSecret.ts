import { sleep, type IWebhookFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../credentials/credentialType';

/**
 * How long one reading of a credential's Webhook Secret serves the webhooks that check signatures with it:
 * the trigger, and the resume address of Ask and Wait for Chat Reply, which the trigger calls a moment after
 * it read the same credential. Reading a credential is the costliest step n8n takes per event (a database
 * query, a decryption and n8n's policy checks: about a sixth of n8n's CPU per event, docs/performance.md), so
 * under load one reading serves a second of events, and a reply is checked with one reading, not two. An
 * edited, rotated or deleted credential takes effect within this time. The secret only ever checks a
 * signature and never reaches a workflow; n8n checks a workflow's access to its credentials before every
 * run, a resumed one too (WorkflowRunner.run in n8n/dist/workflow-runner.js).
 * It is dropped from memory when the time is up, and never reused while the editor listens for a test event
 * or resumes a run started there.
 */
export const SECRET_REUSE_MS = 1000;

interface Reading {
	secret: Promise<string>;
	usableUntilMs: number;
}

/** Readings under way or done, per credential; each removed after SECRET_REUSE_MS. */
const readings = new Map<string, Reading>();

/** The Webhook Secret in a credential's data ('' when not filled in). */
export function secretIn(credentials: { webhookSecret?: unknown }): string {
	return typeof credentials.webhookSecret === 'string' ? credentials.webhookSecret : '';
}

async function readSecret(context: IWebhookFunctions): Promise<string> {
	return secretIn(await context.getCredentials(CREDENTIAL_TYPE));
}

/** The credential's Webhook Secret ('' when not filled in). Concurrent requests share one reading. */
export async function webhookSecret(context: IWebhookFunctions): Promise<string> {
	const credentialId = context.getNode().credentials?.[CREDENTIAL_TYPE]?.id;
	if (context.getMode() === 'manual' || !credentialId) return await readSecret(context);
	const kept = readings.get(credentialId);
	// The time check holds the bound even when a stalled event loop delays the removal below.
	if (kept !== undefined && Date.now() < kept.usableUntilMs) return await kept.secret;
	const reading: Reading = { secret: readSecret(context), usableUntilMs: Date.now() + SECRET_REUSE_MS };
	readings.set(credentialId, reading);
	const forget = () => {
		if (readings.get(credentialId) === reading) readings.delete(credentialId);
	};
	void sleep(SECRET_REUSE_MS).then(forget);
	// A failed reading is not reused: the next request reads again.
	reading.secret.catch(forget);
	return await reading.secret;
}

/** Forgets every reading, as a restart does (tests). */
export function forgetWebhookSecrets(): void {
	readings.clear();
}
