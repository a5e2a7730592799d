/**
 * What the asking operation (Message → Ask and Wait for Chat Reply) and the Business Messaging Trigger
 * say to each other, in one place. The asking node tells the trigger which customer it waits for and
 * where its run waits (its n8n resume address); the trigger hands that run the customer's reply, the
 * service's signed body unchanged. docs/conversations.md tells the whole story.
 */

/**
 * The trigger's second webhook, one per n8n instance (n8n's production webhook base + this path): only
 * the trigger with Resume Waiting Runs on registers it, so the asking node needs no address.
 */
export const WAITS_PATH = 'business-messaging-replies';

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

/** The two requests of the asking node, signed like the service's webhooks with the Webhook Secret. */
export type WaitsRequest =
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'register'; wait: WaitRegistration }
	| { type: typeof WAITS_MESSAGE_TYPE; action: 'check'; id: string };

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
