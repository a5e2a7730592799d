/**
 * What happens to a message the sandbox accepted: `message.status.updated` events (sent, delivered, read)
 * on a schedule, recorded on the message and delivered like every other event. Scheduling runs on the
 * sandbox's Clock, so a test drives it with a ManualClock.
 */
import type { Clock } from './clock';
import type { Delivery, DeliverOptions } from './webhooks';

export const MESSAGE_STATUSES = ['sent', 'delivered', 'read'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Milliseconds after the message is accepted; null: never (a message never delivered is never read). */
export interface StatusSchedule {
	sentMs: number;
	deliveredMs: number | null;
	readMs: number | null;
}

/** A schedule, or false for no status events at all. */
export type StatusPlan = StatusSchedule | false;

/** What `npm run sandbox` does unless told otherwise: sent at once, delivered after 2 s, read after 10 s. */
export const CLI_STATUS_SCHEDULE: StatusSchedule = { sentMs: 0, deliveredMs: 2_000, readMs: 10_000 };

export interface StatusRecord {
	status: MessageStatus;
	/** Wall-clock time of the status, ISO 8601: also the event's `data.timestamp`. */
	at: string;
	/** The webhook delivery that reported it; absent when no webhook URL was configured. */
	delivery_id?: string;
}

/** A plan checked field by field: offsets are numbers >= 0 (or null after `sentMs`) and never decrease. */
export function checkStatusPlan(value: unknown): StatusPlan {
	if (value === false) return false;
	if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('The status schedule must be an object { sentMs, deliveredMs, readMs } or false.');
	const v = value as Record<string, unknown>;
	const offset = (name: keyof StatusSchedule, nullable: boolean): number | null => {
		const x = v[name];
		if (x === null && nullable) return null;
		if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) throw new Error(`${name} must be a number of milliseconds >= 0${nullable ? ' or null (never)' : ''}.`);
		return x;
	};
	const sentMs = offset('sentMs', false) as number;
	const deliveredMs = offset('deliveredMs', true);
	const readMs = offset('readMs', true);
	if (deliveredMs !== null && deliveredMs < sentMs) throw new Error('deliveredMs must not be before sentMs.');
	if (readMs !== null && (deliveredMs === null || readMs < deliveredMs)) throw new Error('readMs must be null or not before deliveredMs (a message is read after it is delivered).');
	return { sentMs, deliveredMs, readMs };
}

/** The part of a sent message (api.ts's SentMessage) that statuses read and write; api.ts imports this file, not the reverse. */
export interface StatusTarget {
	message_id: string;
	phone: string;
	status?: MessageStatus;
	statuses: StatusRecord[];
}

export interface StatusConfig {
	plan: StatusPlan;
	clock: Clock;
	now: () => number;
	webhookUrl: () => string | undefined;
	deliver: (o: DeliverOptions) => Delivery;
}

export class StatusReporter {
	private plan: StatusPlan;
	/** Plans for messages to one phone, set through the control API; they win over `plan`. */
	private byPhone = new Map<string, StatusPlan>();
	private cancel = new AbortController();

	constructor(private cfg: StatusConfig) {
		this.plan = cfg.plan;
	}

	/** Without a phone: the plan for every later message. With one: for later messages to that phone; null removes it. */
	set(plan: StatusPlan | null, phone?: string): void {
		if (phone === undefined) {
			if (plan === null) throw new Error('A schedule of null needs a phone (it removes that phone\'s schedule).');
			this.plan = plan;
		} else if (plan === null) this.byPhone.delete(phone);
		else this.byPhone.set(phone, plan);
	}

	get plans(): { schedule: StatusPlan; phones: Record<string, StatusPlan> } {
		return { schedule: this.plan, phones: Object.fromEntries(this.byPhone) };
	}

	/** Plan the statuses of a message just accepted. */
	accepted(m: StatusTarget): void {
		const plan = this.byPhone.get(m.phone) ?? this.plan;
		if (plan === false) return;
		const steps: Array<[MessageStatus, number | null]> = [['sent', plan.sentMs], ['delivered', plan.deliveredMs], ['read', plan.readMs]];
		this.run(m, steps, this.cancel.signal).catch(() => undefined);
	}

	private async run(m: StatusTarget, steps: Array<[MessageStatus, number | null]>, signal: AbortSignal): Promise<void> {
		const { clock } = this.cfg;
		const start = clock.now();
		for (const [status, at] of steps) {
			if (at === null) return;
			const wait = start + at - clock.now();
			// No sleep for a status that is due now, so `sent` at 0 ms goes out with the API's answer.
			if (wait > 0) await clock.sleep(wait, signal);
			if (signal.aborted) return;
			this.report(m, status);
		}
	}

	/** Record a status on the message and deliver its event now, whatever came before. */
	report(m: StatusTarget, status: MessageStatus): Delivery | undefined {
		const at = new Date(this.cfg.now()).toISOString();
		const record: StatusRecord = { status, at };
		m.status = status;
		m.statuses.push(record);
		// With no webhook URL the status still happens; there is just nobody to tell (as with other events).
		if (!this.cfg.webhookUrl()) return undefined;
		const d = this.cfg.deliver({ event: 'message.status.updated', data: { message_id: m.message_id, status, timestamp: at }, occurredAt: at });
		record.delivery_id = d.id;
		return d;
	}

	/** Back to the starting plan; statuses still waiting are dropped. */
	reset(): void {
		this.close();
		this.cancel = new AbortController();
		this.plan = this.cfg.plan;
		this.byPhone.clear();
	}

	close(): void {
		this.cancel.abort();
	}
}
