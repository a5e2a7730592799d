/**
 * What the trigger that shares this account's events says with those who receive through it, in one place:
 * the asking operation (Message → Ask and Wait for Chat Reply) tells it which customer a run waits for and
 * where the run waits (its n8n resume address); a trigger set to receive through it tells it which events
 * its workflow takes and where (its Production URL, or its Test URL while the editor listens). The sharing
 * trigger hands each of them the service's signed body unchanged. docs/sharing.md tells the whole story.
 */

/**
 * The sharing trigger's second webhook, under n8n's production webhook base: only the trigger with Share With
 * Other Workflows on registers it, so nobody needs an address. One per service account whose events this n8n
 * shares: account 1 (the only one, usually) at this path, account 2 and 3 at `-2` and `-3` (the sharing
 * trigger's Share As). The asking node and the receiving triggers find theirs by the Webhook Secret: the first
 * of them that takes their signature.
 */
export const WAITS_PATH = 'business-messaging-replies';

/** The accounts an n8n can share for, and where each one's sharing trigger is (below n8n's webhook base). */
export const SHARE_AS = [1, 2, 3] as const;
export function sharingPath(account: number): string {
	return account > 1 ? `${WAITS_PATH}-${account}` : WAITS_PATH;
}

/** The body's `type`: never an event name of the service, so a registration is never taken for an event. */
export const WAITS_MESSAGE_TYPE = 'business-messaging.reply-wait';

/** A run waiting for a reply, as the asking node registers it. Phones as the node sends them. */
export interface WaitRegistration {
	/** Random, per question. */
	id: string;
	/** Who the question went to (the test recipient when Test Mode redirects): the reply's `from`. */
	customer: string;
	/** The sender's phone number the customer replies to (the reply's `to`); '' when not set: any. */
	sender: string;
	/** n8n's resume address of the waiting run and node. */
	resumeUrl: string;
	/** When the wait ends (ms), 0 without Limit Wait Time. */
	until: number;
	/** When the question was asked (ms): the newest question gets the reply. */
	askedAt: number;
}

/** A trigger workflow that receives through the sharing trigger, as it registers. */
export interface SubscriptionRegistration {
	/** Random, per registration. */
	id: string;
	/** The trigger: `<workflow id>/<node id>`, with `/test` while the editor listens. A later registration of a key ends the earlier ones. */
	key: string;
	/** Where it takes events: its Production URL, or its Test URL while the editor listens. */
	url: string;
	/** Its Events ('*' for all) and the message statuses it ignores. */
	events: string[];
	ignoreStatuses: string[];
	/** Its workflow's name, for the messages that name it. */
	workflow: string;
	/** When it registered (ms). */
	registeredAt: number;
	/** When a test listener stops (ms), 0 for an active workflow. */
	until: number;
}

/** The statuses a sent message goes through (the service's `message.status.updated`), in their order. */
export const MESSAGE_STATUSES = ['sent', 'delivered', 'read'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
/** A status's place in the order: a later one satisfies a wait for an earlier one (`read` satisfies `delivered`). */
export const statusRank = (status: unknown): number => MESSAGE_STATUSES.indexOf(status as MessageStatus) + 1;

/**
 * A run waiting for the statuses of the messages it is about to send (a send's Wait for Status), as the node
 * registers it before sending: the messages are not known yet, the wait is (so statuses of a fast service are
 * kept until the node names its messages in a `watch`).
 */
export interface StatusWaitRegistration {
	/** Random, per wait. */
	id: string;
	/** n8n's resume address of the waiting run and node. */
	resumeUrl: string;
	/** When the wait ends (ms): Limit Wait Time, always set. */
	until: number;
	/** The status every message must reach. */
	wanted: MessageStatus;
	/** When the node registered it (ms). */
	askedAt: number;
}

/** The messages a status wait waits for: the `message_id`s of the items that were sent. */
export interface StatusWatchRegistration {
	/** Random, per watch. */
	id: string;
	/** The status wait's id. */
	wait: string;
	messages: string[];
}

/** What a message reached, as the trigger tells the waiting node (times ISO 8601, from the service's events). */
export interface MessageStatusSummary {
	status: MessageStatus | null;
	deliveredAt: string | null;
	readAt: string | null;
}

/**
 * The body the trigger posts, signed with the Webhook Secret, to a status wait's resume address once every message
 * reached the status, or at Limit Wait Time with what it counted by then.
 */
export interface StatusSummary {
	type: typeof STATUS_SUMMARY_TYPE;
	wait: string;
	statuses: Record<string, MessageStatusSummary>;
}
export const STATUS_SUMMARY_TYPE = 'business-messaging.status-summary';

/**
 * How long whoever saved something in the sharing trigger's static data waits before it reads the saved copy
 * again: a request of the trigger that loaded static data before the save, and saves after it, drops it (n8n:
 * last write wins); such a request ends well within this time.
 */
export const CONFIRM_AFTER_MS = 1000;

/**
 * How long after Limit Wait Time n8n resumes a run waiting for statuses itself: the node puts the run to wait until
 * then, and the trigger hands it what it counted at the limit (statusLimit.ts). n8n's own resume passes on what the
 * node knew when the wait began (it runs the node disabled), so it is only the fallback, for a limit no process of
 * n8n kept (restarted, with no request of the trigger since). Longer than the 70 s ahead in which n8n schedules its
 * own resume (wait-tracker.js), so a run the trigger resumed is never resumed again by n8n's timer.
 */
export const LIMIT_FALLBACK_MS = 90_000;

/** The requests to the sharing trigger, signed like the service's webhooks with the Webhook Secret. */
export type WaitsRequest =
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'register'; wait: WaitRegistration }
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'registerStatusWait'; wait: StatusWaitRegistration }
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'watch'; watch: StatusWatchRegistration }
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'endStatusWait'; id: string; by?: 'resumed' }
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'recount'; id: string; statuses: Record<string, number[]> }
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'keepStatuses'; statuses: Record<string, number[]> }
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'statusLimit'; id: string }
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'check'; id: string }
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'subscribe'; subscription: SubscriptionRegistration }
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'unsubscribe'; key: string };

/** The query parameter naming the wait in the resume address, so a later wait of the same node can tell. */
export const WAIT_ID_PARAM = 'wait';

/**
 * What the asking node answers the trigger about a reply (JSON `outcome`):
 * - `resumed`: the run goes on with the reply (n8n resumes it);
 * - `waiting`: the reply was not one of the expected answers and the run keeps waiting;
 * - `other`: the reply is not for this wait (another customer or sender, older than the question, or
 *   the node now waits for another question);
 * - a 401 answer: not signed with the Webhook Secret, or outside the 300 s window.
 */
export type ReplyOutcome = 'resumed' | 'waiting' | 'other';

/** Digits only: the service may write a number with or without `+` and spaces. */
export function phoneKey(phone: string): string {
	return phone.replace(/\D/g, '');
}
