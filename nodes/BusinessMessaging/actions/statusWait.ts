import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	LIMIT_FALLBACK_MS,
	type MessageStatus,
	type MessageStatusSummary,
	statusRank,
	WAITS_MESSAGE_TYPE,
} from '../../shared/sharing';
import { secretIn } from '../../shared/webhookSecret';
import { runsAsAgentTool } from '../helpers/agentLimits';
import { keepInContext } from '../helpers/nodeContext';
import type { RunState } from '../helpers/runState';
import { type TestMode, testModeOf } from '../helpers/testMode';
import { MESSAGES_SENT, newWaitId, registerConfirmed, tellTrigger, type TriggerLink, triggerLink } from '../helpers/triggerLink';
import { getCredential } from '../transport';
import { UNIT_OPTIONS, UNITS_MS } from './message/sendAndWait.operation';

/**
 * Wait for Status, a rule across the message sends (Send Text, typed or from a template, and Send Media) that
 * the router applies around the send pipeline: the wait is registered with the sharing trigger before anything
 * is sent, the `message_id`s of the items sent are named to it afterwards, and the run waits until the trigger
 * hands it a summary signed with the Webhook Secret (statusWaitWebhook.ts) or Limit Wait Time passes. The
 * tally lives in the trigger: n8n resumes a waiting run once, and saves nothing of a resume call that does not
 * resume it (waiting-webhooks.js), so the node could not count statuses itself.
 */

const WANTED = ['delivered', 'read'] as const;
const LIMIT = 'Limit Wait Time';

const whenWaiting = { show: { waitForStatus: [...WANTED] } };

/** The fields, added by each send operation after its own (never on an agent's tool: the call would wait). */
export const statusWaitFields: INodeProperties[] = [
	{
		displayName: 'Wait for Status',
		name: 'waitForStatus',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'None', value: 'none', description: 'The run goes on once the messages are sent' },
			{ name: 'Delivered', value: 'delivered', description: 'The run waits until every message sent is delivered (or read), or until Limit Wait Time' },
			{ name: 'Read', value: 'read', description: 'The run waits until every message sent is read, or until Limit Wait Time' },
		],
		default: 'none',
		description: 'Whether the run waits for what happens to the messages. Needs a Business Messaging Trigger with Share With Other Workflows on.',
		displayOptions: { show: { '@tool': [false] } },
	},
	{
		displayName: LIMIT,
		name: 'statusWaitLimit',
		type: 'number',
		required: true,
		// The smallest amount the editor can enter with two decimals: 0 is refused when the run starts.
		typeOptions: { minValue: 0.01, numberPrecision: 2 },
		default: 1,
		description: 'When not every message reached the status by then, the run goes on with reached: false for those that did not',
		displayOptions: whenWaiting,
	},
	{
		displayName: 'Limit Wait Unit',
		name: 'statusWaitUnit',
		type: 'options',
		options: UNIT_OPTIONS,
		default: 'hours',
		displayOptions: whenWaiting,
	},
];

/** The wait as the router carries it from before the send to after it. */
export interface PreparedStatusWait {
	wanted: MessageStatus;
	until: Date;
	testMode: TestMode;
	/** Unset in a dry run: nothing is registered. */
	id?: string;
	link?: TriggerLink;
	url?: string;
	secret?: string;
	askedAt: number;
}

/** What the waiting run keeps (node context): the webhook builds the resumed items from it alone. */
export interface KeptStatusWait {
	id: string;
	wanted: MessageStatus;
	askedAt: number;
	/** Each output item: its index, its send output, and whether its message is waited for (an item that failed
	 * under Continue On Fail, or a skipped repeat, goes on as it is). */
	items: Array<{ item: number; send: IDataObject; waited: boolean }>;
}
export const STATUS_WAIT_FIELD = 'statusWait';

/** The wanted status, or undefined for None (and always on an agent's tool). */
function wantedOf(run: RunState): MessageStatus | undefined {
	if (runsAsAgentTool(run.ctx)) return undefined;
	const wanted = run.ctx.getNodeParameter('waitForStatus', 0, 'none');
	return (WANTED as readonly unknown[]).includes(wanted) ? (wanted as MessageStatus) : undefined;
}

/** Limit Wait Time, checked: a wait for a status always ends. */
function untilOf(run: RunState, now: number): Date {
	const ctx = run.ctx;
	const raw = ctx.getNodeParameter('statusWaitLimit', 0, null) as unknown;
	const amount = raw === '' || raw === null ? NaN : Number(raw);
	const unit = UNITS_MS[ctx.getNodeParameter('statusWaitUnit', 0, 'hours') as keyof typeof UNITS_MS];
	if (!(amount > 0) || !Number.isFinite(amount) || !unit) {
		throw new NodeOperationError(ctx.getNode(), `${LIMIT}: must be more than 0 to wait for a status`, {
			description: `Enter how long the run waits for the messages to be ${String(ctx.getNodeParameter('waitForStatus', 0))}, or set Wait for Status to None. Nothing was sent.`,
		});
	}
	return new Date(now + amount * unit);
}

/**
 * Before anything is sent: the fields checked and, unless in a dry run (which sends nothing, so no status
 * comes), the wait registered with the sharing trigger and found saved. Undefined when the run does not wait.
 */
export async function prepareStatusWait(run: RunState): Promise<PreparedStatusWait | undefined> {
	const wanted = wantedOf(run);
	if (!wanted) return undefined;
	const ctx = run.ctx;
	const askedAt = Date.now();
	const until = untilOf(run, askedAt);
	const credentials = await getCredential(run);
	const testMode = testModeOf(ctx, credentials).mode;
	if (testMode === 'dryRun') return { wanted, until, testMode, askedAt };
	const secret = secretIn(credentials);
	if (secret === '') {
		throw new NodeOperationError(ctx.getNode(), 'Webhook Secret (credential): empty', {
			description:
				'Wait for Status learns the statuses from the Business Messaging Trigger that shares your service’s events, and checks what it tells with the Webhook Secret from your service’s dashboard. Fill it in the credential. Nothing was sent.',
		});
	}
	const id = newWaitId();
	const link = triggerLink(ctx, id);
	const wait = { id, resumeUrl: link.resumeUrl, until: until.getTime(), wanted, askedAt };
	const { url } = await registerConfirmed(ctx, link, secret, { type: WAITS_MESSAGE_TYPE, action: 'registerStatusWait', wait }, id);
	return { wanted, until, testMode, id, link, url, secret, askedAt };
}

/** One output item of a status wait: what its message reached, and the item's send output. */
function statusItem(wanted: MessageStatus, send: IDataObject, summary: MessageStatusSummary | undefined): IDataObject {
	const status = summary?.status ?? null;
	return {
		message_id: send.message_id ?? null,
		wanted,
		reached: statusRank(status) >= statusRank(wanted),
		status,
		deliveredAt: summary?.deliveredAt ?? null,
		readAt: summary?.readAt ?? null,
		send,
	};
}

/** The output of a status wait: each waited item with what its message reached, every other item as it was. */
export function statusWaitOutput(kept: KeptStatusWait, statuses: Record<string, MessageStatusSummary>): INodeExecutionData[] {
	return kept.items.map(({ item, send, waited }) => {
		const id = String(send.message_id);
		return { json: waited ? statusItem(kept.wanted, send, Object.hasOwn(statuses, id) ? statuses[id] : undefined) : send, pairedItem: { item } };
	});
}

/** Whether an item's output is a message this run sent (not an error under Continue On Fail, nor a skipped repeat). */
function sentMessage(json: IDataObject): boolean {
	return typeof json.message_id === 'string' && json.message_id !== '' && json.skipped !== true && json.error === undefined;
}

/**
 * After the send: names the sent messages to the trigger (found saved), prepares the output n8n passes on if it
 * resumes the run itself (it then runs this node disabled, which passes on the node's input: workflow-execute.js),
 * and puts the run to wait. Items that failed are not waited for. The trigger may already have every status (a
 * fast service): the run then goes on at once.
 */
export async function waitForStatuses(run: RunState, wait: PreparedStatusWait, outputs: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
	const ctx = run.ctx;
	if (!wait.id) {
		// A dry run sent nothing: no status will come.
		return [outputs.map((o) => ({ ...o, json: { ...o.json, statusWait: `not waited for: Test Mode Dry Run sends nothing (Wait for Status: ${wait.wanted})` } }))];
	}
	const sent = outputs.filter((o) => sentMessage(o.json));
	const kept: KeptStatusWait = {
		id: wait.id,
		wanted: wait.wanted,
		askedAt: wait.askedAt,
		items: outputs.map((o) => ({ item: itemOf(o), send: o.json, waited: sentMessage(o.json) })),
	};
	// Nothing went out (every item failed, under Continue On Fail): nothing to wait for, the errors go on.
	if (sent.length === 0) {
		await endStatusWait(run, wait);
		return [outputs];
	}
	const watch = { id: newWaitId(), wait: wait.id, messages: sent.map((o) => String(o.json.message_id)) };
	const { registered, check } = await registerConfirmed(ctx, wait.link!, wait.secret!, { type: WAITS_MESSAGE_TYPE, action: 'watch', watch }, watch.id, {
		url: wait.url!,
		state: MESSAGES_SENT,
	});
	// Every status came before the node named its messages, or before it checked: the trigger ended the wait
	// then, since a resume could not reach a run that does not wait yet. The run goes on at once.
	const last = registered.complete === true ? registered : check;
	const known = (last.statuses ?? {}) as Record<string, MessageStatusSummary>;
	if (last.complete === true) return [statusWaitOutput(kept, known)];
	keepInContext(ctx, STATUS_WAIT_FIELD, kept);
	// At the limit the trigger hands the run what it counted by then; n8n's own resume, a while later, is the fallback.
	const fallback = statusWaitOutput(kept, known);
	ctx.getExecuteData().data = { main: [fallback] };
	await ctx.putExecutionToWait(new Date(wait.until.getTime() + LIMIT_FALLBACK_MS));
	// Shown on the waiting node while it waits: what is known so far.
	return [fallback];
}

/**
 * Tells the trigger that the wait ended before it began (nothing was sent, or the send stopped on an error), so
 * it stops keeping statuses for it. Only saves work: a failure is logged, the wait ends at its limit anyway.
 */
export async function endStatusWait(run: RunState, wait: PreparedStatusWait): Promise<void> {
	if (!wait.id) return;
	try {
		await tellTrigger(run.ctx, wait.url!, wait.secret!, { type: WAITS_MESSAGE_TYPE, action: 'endStatusWait', id: wait.id });
	} catch (error) {
		run.ctx.logger.warn(`Wait for Status: could not tell the trigger that nothing is waited for: ${(error as Error).message}`);
	}
}

function itemOf(output: INodeExecutionData): number {
	const paired = output.pairedItem;
	if (typeof paired === 'number') return paired;
	if (Array.isArray(paired)) return paired[0]?.item ?? 0;
	return paired?.item ?? 0;
}
