import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { normalizePhone } from './validation';

/**
 * The credential's Test Mode, so that switching the credential switches every node using it:
 * - `redirect`: every message goes to the credential's Test Recipient instead of the real one;
 * - `dryRun`: every message is checked and signed, but not sent.
 */
export type TestMode = 'off' | 'redirect' | 'dryRun';

export interface TestModeSetting {
	mode: TestMode;
	/** Set for `redirect`. */
	recipient?: string;
}

export function testModeOf(ctx: IExecuteFunctions | IWebhookFunctions, credentials: ICredentialDataDecryptedObject): TestModeSetting {
	const mode = (credentials.testMode as TestMode | undefined) ?? 'off';
	if (mode !== 'redirect') return { mode: mode === 'dryRun' ? 'dryRun' : 'off' };
	const recipient = normalizePhone(String(credentials.testRecipient ?? '').trim());
	if (!/^\+?[1-9]\d{6,14}$/.test(recipient)) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Test Recipient (credential): Test Mode sends to a test recipient, but none is set',
			{ description: 'Enter a phone number in international format as the credential’s Test Recipient, or turn Test Mode off.' },
		);
	}
	return { mode, recipient };
}

/** Who a message really goes to. */
export function deliveryPhone(setting: TestModeSetting, phone: string): string {
	return setting.mode === 'redirect' ? setting.recipient! : phone;
}

/** The output of a send in test mode says so, with the recipient the message was meant for. */
export function markTestMode(setting: TestModeSetting, output: IDataObject, intendedRecipient: string): IDataObject {
	if (setting.mode === 'redirect') return { ...output, testMode: 'redirected', intendedRecipient };
	if (setting.mode === 'dryRun') return { ...output, testMode: 'dryRun', sent: false, intendedRecipient };
	return output;
}

/** Shown above the node's output in the editor: credentials cannot drive a node's panel, executions can. */
export function announceTestMode(ctx: IExecuteFunctions, setting: TestModeSetting): void {
	if (setting.mode === 'off') return;
	const message =
		setting.mode === 'redirect'
			? `Test Mode is on in the credential: every message went to the test recipient ${setting.recipient}, not to the real recipient (see intendedRecipient).`
			: 'Test Mode is on in the credential: dry run, no message was sent. Each request was checked and signed only.';
	ctx.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
}
