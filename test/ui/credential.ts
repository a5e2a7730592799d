/**
 * The credential created from scratch, as a new user does: Create credential → search "Business
 * Messaging" → fill the fields → Save, which tests it (success); then a wrong client secret shows the
 * service's 401 in words (one full stop after them), and a Base URL with a wrong path (/api/v9) the path
 * the service does not know.
 */
import type { Locator, Page } from 'playwright-core';
import type { SandboxProcess } from '../../tools/n8n/sandbox';
import { assert } from '../e2e/lib/report';
import { waitFor } from '../../tools/n8n/proc';
import { byTestId, openInEditor, WAIT } from './browser';

/** Create credential → search "Business Messaging" → Business Messaging API: the empty credential's dialog. */
export async function newCredentialDialog(page: Page, baseUrl: string): Promise<Locator> {
	await openInEditor(page, baseUrl, '/home/credentials');
	await byTestId(page, 'add-resource-credential').click();
	await byTestId(page, 'new-credential-type-select').locator('input').fill('Business Messaging');
	await byTestId(page, 'new-credential-type-select-option').filter({ hasText: 'Business Messaging API' }).click();
	await byTestId(page, 'new-credential-type-button').click();
	return byTestId(page, 'credential-edit-dialog');
}

export async function createCredential(page: Page, baseUrl: string, sandbox: SandboxProcess): Promise<void> {
	const values = sandbox.credentials;
	const dialog = await newCredentialDialog(page, baseUrl);
	const field = (name: string, label: string) => {
		const input = byTestId(dialog, `parameter-input-${name}`).locator('input');
		// The label a user reads; required fields carry a `*`.
		const text = new RegExp(`^${label.replace(/[()]/g, '\\$&')}\\s*\\*?$`);
		return { input, label: dialog.getByText(text).filter({ visible: true }).first() };
	};
	const fields = [
		{ ...field('baseUrl', 'Base URL'), value: values.baseUrl },
		{ ...field('clientId', 'Client ID'), value: values.clientId },
		{ ...field('clientSecret', 'Client Secret'), value: values.clientSecret },
		{ ...field('domain', 'Workspace Domain'), value: values.domain },
		{ ...field('webhookSecret', 'Webhook Secret'), value: values.webhookSecret },
		{ ...field('phoneNumberId', 'Default Sender (Phone Number ID)'), value: values.phoneNumberId },
		{ ...field('businessName', 'Business Name'), value: 'Acme Shop' },
	];
	for (const { input, label, value } of fields) {
		await label.waitFor();
		await input.fill(value);
	}
	const since = await sandbox.mark();
	// Saving tests the credential (n8n runs its test request).
	await saveAndTest(page, sandbox);
	await byTestId(page, 'credentials-config-container-test-success').waitFor();
	const tested = (await sandbox.requests(since)).filter((r) => r.path === '/templates');
	assert(tested.length > 0 && tested.every((r) => r.authOk), `the Test reached the sandbox signed: ${JSON.stringify(tested.map((r) => [r.path, r.authOk]))}`);

	await fields[2].input.fill('not-the-right-secret');
	await saveAndTest(page, sandbox);
	const rejected = await details(page, dialog, 'The service rejected the signed request (401)');
	// One full stop after the service's words, then what to check.
	assert(!rejected.includes('..') && /[^.]\. Check the client ID, client secret and workspace domain/.test(rejected), `the 401 details read: ${rejected}`);

	// The right secret, and a Base URL whose path the service does not know: a path, not a signature, is wrong.
	await fields[2].input.fill(values.clientSecret);
	await fields[0].input.fill(`${values.baseUrl}/api/v9`);
	await saveAndTest(page, sandbox);
	const unknown = await details(page, dialog, 'The service does not know the path /api/v9/templates (404)');
	assert(/Check the Base URL’s path, including any version such as \/v1\./.test(unknown) && !/signature|401/.test(unknown), `the 404 details read: ${unknown}`);
	// The secret never shows in the dialog.
	assert(!(await dialog.innerText()).includes(values.clientSecret), 'the dialog shows the client secret');
}

/**
 * Save, which makes n8n run the credential's Test; saved again when no Test reached the sandbox. On a busy machine
 * a click can come while the dialog is still busy with the save before, and is lost (seen once: the wrong secret
 * was typed, and no second Test came).
 */
async function saveAndTest(page: Page, sandbox: SandboxProcess): Promise<void> {
	for (let attempt = 1; ; attempt++) {
		const since = await sandbox.mark();
		await byTestId(page, 'credential-save-button').click();
		const tested = async () => ((await sandbox.requests(since)).some((r) => r.path.endsWith('/templates')) ? true : undefined);
		try {
			await waitFor('the credential’s Test to reach the sandbox', tested, 10_000, 250);
			return;
		} catch (error) {
			if (attempt === 3) throw error;
		}
	}
}

/** The failed Test's details that start with `start` (opening "More details" whenever it is closed): their whole text. */
async function details(page: Page, dialog: Locator, start: string): Promise<string> {
	const text = page.getByText(start, { exact: false }).filter({ visible: true }).first();
	const more = dialog.getByText('More details', { exact: true }).filter({ visible: true });
	await waitFor(`the details "${start}"`, async () => {
		if (await text.isVisible()) return true;
		if (await more.count()) await more.first().click().catch(() => undefined);
		return undefined;
	}, WAIT, 250);
	return (await text.innerText()).trim();
}
