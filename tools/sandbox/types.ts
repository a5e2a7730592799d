/** The sandbox's shapes, shared by its server (index.ts) and its control API (control.ts). */
import type { ParsedMultipart, SentMessage } from './api';
import type { FaultSpec } from './faults';
import type { Order } from './seed';
import type { MessageStatus, StatusPlan } from './statuses';
import type { CustomerMessage, Delivery, DeliverOptions, VerifyResult } from './webhooks';

export interface SandboxCredentials {
	baseUrl: string;
	clientId: string;
	clientSecret: string;
	domain: string;
	webhookSecret: string;
	phoneNumberId: string;
}

export interface RecordedRequest {
	seq: number;
	method: string;
	path: string;
	query: Record<string, string>;
	rawQuery: string;
	headers: Record<string, string | string[] | undefined>;
	body: Buffer;
	json?: unknown;
	multipart?: ParsedMultipart;
	/** The status answered; null when the socket was destroyed by a fault, 0 while still in progress. */
	status: number | null;
	authOk: boolean;
	receivedAt: string;
	/** When the answer was written; unset while in progress or when the socket was destroyed. */
	answeredAt?: string;
}

export interface Sandbox {
	url: string;
	port: number;
	credentials: SandboxCredentials;
	requests: RecordedRequest[];
	messages: SentMessage[];
	deliveries: Delivery[];
	readonly webhookUrl: string | undefined;
	getOrder(id: number): Order | undefined;
	injectFault(fault: FaultSpec): void;
	clearFaults(): void;
	reset(): void;
	setWebhookUrl(url: string | undefined): void;
	/** The status plan for later messages; with a phone, for later messages to it only (null removes that). */
	setStatuses(plan: StatusPlan | null, phone?: string): void;
	readonly statusPlans: { schedule: StatusPlan; phones: Record<string, StatusPlan> };
	/** Records `status` on the message and delivers its `message.status.updated` now, in any order, any number of times. */
	reportStatus(messageId: string, status: MessageStatus): Delivery | undefined;
	verifyWebhook(url?: string): Promise<VerifyResult>;
	deliver(opts: DeliverOptions): Delivery;
	/** Plays the customer: delivers a signed `message.received` from `from` (the sender number by default as `to`). */
	customerMessage(message: CustomerMessage): Delivery;
	stop(): Promise<void>;
}
