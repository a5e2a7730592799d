import { createHash } from 'node:crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { RunState } from './runState';
import { planChain, PROCESSED } from './retryChain';
import type { TestMode } from './testMode';

/** What a send is about to send, for recognising the same message again. */
export interface OutgoingMessage {
	phone: string;
	/** The request as sent, beside its recipient (`messageKey`, helpers/messageKey.ts). */
	key: string;
}

/** The item's message; asked more than once per item, so the caller keeps each answer (actions/send.ts). */
export type MessageOf<Message extends OutgoingMessage> = (itemIndex: number) => Promise<Message>;

/** One place for the hash every key here is made from. */
export function hashOf(text: string): string {
	return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** The default Repeat Key: the recipient and what is sent. */
export function defaultRepeatKey(message: OutgoingMessage): string {
	return `${message.phone}|${hashOf(message.key)}`;
}

/**
 * The two windows a repeat is looked for in: the one `now` falls in and the one before. n8n's
 * processed-data store keeps keys without times, so the time goes into the key: a repeat less than
 * `windowMs` after a send is always found; one more than twice that after is never found.
 */
export function repeatWindowKeys(key: string, now: number, windowMs: number): { current: string; previous: string } {
	const slot = Math.floor(now / windowMs);
	const hashed = hashOf(key);
	return { current: `${hashed}@${slot}`, previous: `${hashed}@${slot - 1}` };
}

export const SKIPPED_RETRY = 'Already sent by an earlier attempt of this execution (n8n Retry or Retry On Fail)';
export const SKIPPED_REPEAT = 'Same Repeat Key already sent within the Skip Repeats Within window';
export const SKIPPED_REPEAT_IN_RUN = 'Same Repeat Key as an earlier item of this run';

interface RepeatPlan {
	/** Items not to send, with why. */
	skip: Map<number, string>;
	/** Key of each item that will be sent, recorded as sent in advance. */
	reserved: Map<number, string>;
	/** Keys recorded only to look them up: removed again at the end. */
	lookupOnly: string[];
}

export interface SendGuard<Message extends OutgoingMessage> {
	/** `send` unless the item's message went out already; it gets the message the guard recognised. */
	send(itemIndex: number, send: (message: Message) => Promise<IDataObject>): Promise<IDataObject>;
	/** Gives back the reserved keys of items that were not sent, so a later run or retry can send them. */
	finish(): Promise<void>;
}

/**
 * Keeps a message from going out twice:
 * - Retry: each sent item is written down in the node's execution context (`getContext('node')`),
 *   which n8n saves with the execution and hands back when the execution is retried (either mode),
 *   and keeps across Retry On Fail. An item of the same node run whose message is unchanged is skipped.
 *   What other retries of the same execution sent: retryChain.ts.
 * - Option Skip Repeats Within: keys in n8n's processed-data store, read and recorded once per run.
 */
export async function startSendGuard<Message extends OutgoingMessage>(
	run: RunState,
	itemCount: number,
	messageOf: MessageOf<Message>,
	testMode: TestMode,
): Promise<SendGuard<Message>> {
	const ctx = run.ctx;
	const runIndex = Number(ctx.getWorkflowDataProxy(0).$runIndex ?? 0);
	const context = ctx.getContext('node');
	const ledger = (context.sentMessages ??= {}) as Record<string, string>;
	const windowMinutes = Number(ctx.getNodeParameter('options.skipRepeatsWithin', 0, 0));
	// 64 bits: it only has to tell this item's message from the same item's changed message.
	const fingerprintOf = (outgoing: OutgoingMessage) => hashOf(`${outgoing.phone}\n${outgoing.key}`).slice(0, 16);
	const earlierSend = (itemIndex: number, fingerprint: string) => {
		const [earlierFingerprint, earlierId] = String(ledger[`${runIndex}:${itemIndex}`] ?? '').split(' ');
		return earlierFingerprint === fingerprint ? earlierId : undefined;
	};
	const chain = testMode === 'dryRun' ? undefined : await planChain(ctx, context, notInLedger);
	const plan =
		windowMinutes > 0 ? await planRepeats(ctx, itemCount, messageOf, windowMinutes * 60_000) : undefined;
	const sent = new Set<number>();
	const sentToRecipient = new Set<number>();

	/** Each item whose message the ledger does not hold, with what identifies that send in the chain. */
	async function notInLedger(): Promise<Map<number, string>> {
		const entries = new Map<number, string>();
		for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
			let fingerprint: string;
			try {
				fingerprint = fingerprintOf(await messageOf(itemIndex));
			} catch {
				continue; // The item's own send reports the error.
			}
			if (earlierSend(itemIndex, fingerprint) === undefined) entries.set(itemIndex, `${runIndex} ${itemIndex} ${fingerprint}`);
		}
		return entries;
	}

	return {
		async send(itemIndex, send) {
			const outgoing = await messageOf(itemIndex);
			const earlierId = earlierSend(itemIndex, fingerprintOf(outgoing));
			if (earlierId !== undefined) {
				return { phone: outgoing.phone, message_id: earlierId, skipped: true, skipReason: SKIPPED_RETRY };
			}
			if (chain?.sentElsewhere.has(itemIndex)) return { phone: outgoing.phone, skipped: true, skipReason: SKIPPED_RETRY };
			const repeat = plan?.skip.get(itemIndex);
			if (repeat) return { phone: outgoing.phone, skipped: true, skipReason: repeat };
			const result = await send(outgoing);
			if (testMode === 'dryRun') return result;
			ledger[`${runIndex}:${itemIndex}`] = `${fingerprintOf(outgoing)} ${String(result.message_id ?? result.id ?? '')}`;
			sent.add(itemIndex);
			// A message to the test recipient does not count as sent to the real one.
			if (testMode === 'off') sentToRecipient.add(itemIndex);
			return result;
		},
		async finish() {
			const unsent = (reserved: Map<number, string>, done: Set<number>) =>
				[...reserved].filter(([itemIndex]) => !done.has(itemIndex)).map(([, key]) => key);
			const release = [
				...(chain ? unsent(chain.reserved, sent) : []),
				...(plan ? [...plan.lookupOnly, ...unsent(plan.reserved, sentToRecipient)] : []),
			];
			if (release.length === 0) return;
			try {
				await ctx.helpers.removeProcessed(release, 'node', PROCESSED);
			} catch (error) {
				ctx.logger.warn(`Could not release the keys of unsent messages: ${(error as Error).message}`);
			}
		},
	};
}

async function planRepeats(
	ctx: IExecuteFunctions,
	itemCount: number,
	message: MessageOf<OutgoingMessage>,
	windowMs: number,
): Promise<RepeatPlan> {
	const now = Date.now();
	const skip = new Map<number, string>();
	const firstItemOfKey = new Map<string, number>();
	const windows = new Map<number, { current: string; previous: string }>();
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		let key: string;
		try {
			const custom = String(ctx.getNodeParameter('options.repeatKey', itemIndex, '') ?? '').trim();
			key = custom || defaultRepeatKey(await message(itemIndex));
		} catch {
			continue; // The item's own send reports the error.
		}
		if (firstItemOfKey.has(key)) {
			skip.set(itemIndex, SKIPPED_REPEAT_IN_RUN);
			continue;
		}
		firstItemOfKey.set(key, itemIndex);
		windows.set(itemIndex, repeatWindowKeys(key, now, windowMs));
	}
	const current = [...windows.values()].map((w) => w.current);
	const previous = [...windows.values()].map((w) => w.previous);
	const { processed } = await checkAndRecord(ctx, [...current, ...previous]);
	const seen = new Set(processed.map(String));
	const reserved = new Map<number, string>();
	const lookupOnly = previous.filter((key) => !seen.has(key));
	for (const [itemIndex, { current: now, previous: before }] of windows) {
		if (seen.has(now) || seen.has(before)) {
			skip.set(itemIndex, SKIPPED_REPEAT);
			if (!seen.has(now)) lookupOnly.push(now);
		} else {
			reserved.set(itemIndex, now);
		}
	}
	return { skip, reserved, lookupOnly };
}

/** The store inserts its row on first use: two first runs at once collide there, so the loser asks again. */
async function checkAndRecord(ctx: IExecuteFunctions, keys: string[]) {
	if (keys.length === 0) return { new: [], processed: [] };
	try {
		return await ctx.helpers.checkProcessedAndRecord(keys, 'node', PROCESSED);
	} catch {
		return await ctx.helpers.checkProcessedAndRecord(keys, 'node', PROCESSED);
	}
}
