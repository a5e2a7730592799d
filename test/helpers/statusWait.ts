/**
 * A send's Wait for Status in process, as the statusWait*.test.ts files drive it: the action node through n8n-core's
 * engine against the sandbox, which reports message statuses to the real Business Messaging Trigger behind a stand-in
 * n8n (conversation.ts). Called once at a test file's top level (it registers the sandbox and the stand-in per test).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../tools/sandbox';
import { runAction, type RunActionOptions } from './actionNode';
import { reportStatus, type ResumeCall, type TriggerStandIn, useStatusStandIn } from './conversation';
import type { RunResult } from './engine';
import { callResumeAddress } from './resume';
import { useSandbox } from './useSandbox';

export const PHONE = '+4915112345678';

/** The send's parameters for a wait for `status` (2 hours unless `extra` says otherwise). */
export const waitFor = (status: string, extra: IDataObject = {}): INodeParameters => ({ waitForStatus: status, statusWaitLimit: 2, statusWaitUnit: 'hours', ...extra });

export function useStatusWait() {
	let sandbox: Sandbox;
	useSandbox((started) => (sandbox = started));
	const standInNow = useStatusStandIn(() => sandbox);
	let standIn: TriggerStandIn;
	beforeEach(() => (standIn = standInNow()));

	/** Send Text to PHONE, waiting for read, unless `parameters` say otherwise. */
	async function send(parameters: INodeParameters = {}, options: RunActionOptions = {}): Promise<RunResult> {
		return await runAction(
			sandbox,
			{ resource: 'message', operation: 'sendText', phone: PHONE, text: 'Your payment is due', options: { maxMessagesPerSecond: 0 }, ...waitFor('read'), ...parameters },
			{ n8nUrl: standIn.url, ...options },
		);
	}
	const posted = (): ResumeCall[] => standIn.resumes.filter((c) => c.method === 'POST');
	return {
		/** This test's sandbox and trigger stand-in (set before each test). */
		current: () => ({ sandbox, standIn }),
		send,
		report: async (messageId: string, status: 'sent' | 'delivered' | 'read') => await reportStatus(sandbox, messageId, status),
		/** The message ids the sandbox handed out, in order. */
		ids: () => sandbox.messages.map((m) => m.message_id),
		/** The summaries the trigger posted to resume addresses. */
		posted,
		/** What the node's own resume address does with the trigger's summary (as n8n would call it). */
		resumeWith: async (run: RunResult, call: ResumeCall, headers: Record<string, string> = call.headers as Record<string, string>) => {
			const query = new URL(call.url, 'http://n8n').search.slice(1);
			return await callResumeAddress(sandbox, run, { query, headers, body: call.body });
		},
		/** The items n8n passes on at the limit: the waiting node's input, as saved with the execution. */
		atLimit: (run: RunResult) => run.run.data.executionData!.nodeExecutionStack[0].data.main[0]!.map((i) => i.json),
	};
}
