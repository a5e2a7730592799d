/** Starts the sandbox through its CLI (its own process group) and talks to its unsigned control API. */
import { join } from 'node:path';
import { REPO_ROOT } from './n8n';
import { SANDBOX_CREDENTIALS, type UploadedFile, type SentMessage as SandboxMessage } from '../sandbox';
import { freePort, startProcess, type Started, waitFor } from './proc';


export interface RecordedRequest {
	seq: number;
	/** When the sandbox got it (ISO, the sandbox's clock). */
	receivedAt: string;
	method: string;
	path: string;
	query: Record<string, string>;
	rawQuery: string;
	headers: Record<string, string | string[] | undefined>;
	body?: string;
	bodySize: number;
	bodySha256: string;
	json?: unknown;
	multipart?: {
		fields: Record<string, string>;
		files: Array<{ field: string; filename: string; contentType: string; size: number; sha256: string }>;
	};
	status: number | null;
	authOk: boolean;
}

/** A message as the control API lists it (`?bytes=0`: file bytes left out). */
export type SentMessage = Omit<SandboxMessage, 'file'> & { file?: Omit<UploadedFile, 'bytes' | 'field'> };

export interface Delivery {
	id: string;
	event: string;
	url: string;
	body: string;
	state: 'pending' | 'delivered' | 'failed' | 'rejected';
	attempts: Array<{ attempt: number; sentAt: string; status: number | null; error?: string; responseBody?: string }>;
	/** While it waits to retry: the schedule's delay before the next attempt (not scaled). */
	nextAttemptDelayMs?: number;
}

/**
 * The service's delay from which a check sends a pending delivery again at once (sentAgainUnlessDelivered) rather than
 * wait for it: an hour, a minute at the suites' time scale, and the six hours after it (six minutes). The retries
 * before it come within 15 s at that scale; a check waits for those.
 */
const LONG_RETRY_DELAY_MS = 3_600_000;

/** A pending delivery whose next attempt is the service's hour or more away (LONG_RETRY_DELAY_MS); none is under way. */
export const awaitsLongRetry = (d: Delivery): boolean => d.state === 'pending' && (d.nextAttemptDelayMs ?? 0) >= LONG_RETRY_DELAY_MS;

export class SandboxProcess {
	url = '';
	private proc?: Started;

	constructor(
		private readonly logFile: string,
		private readonly timeScale?: number,
	) {}

	get credentials() {
		return { baseUrl: this.url, ...SANDBOX_CREDENTIALS, multipartSigning: 'rawBody' };
	}

	async start(port?: number): Promise<void> {
		const chosen = port ?? (await freePort());
		const tsxCli = join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs');
		// No message.status.updated events: the suites (and the demo's workflows) see only the events they send.
		const args = [tsxCli, join(REPO_ROOT, 'tools/sandbox/cli.ts'), '--port', String(chosen), '--statuses', 'off'];
		if (this.timeScale) args.push('--time-scale', String(this.timeScale));
		this.proc = startProcess(process.execPath, args, { cwd: REPO_ROOT, env: process.env, logFile: this.logFile });
		const proc = this.proc;
		const exited = proc.exited.then((code) => {
			throw new Error(`sandbox exited with ${code}: ${proc.output().slice(-2000)}`);
		});
		this.url = await Promise.race([
			exited,
			waitFor(
				'sandbox listening line',
				async () => /sandbox listening on (http:\/\/\S+)/.exec(proc.output())?.[1],
				60_000,
				100,
			),
		]);
		exited.catch(() => undefined);
	}

	async stop(): Promise<void> {
		await this.proc?.stop();
	}

	private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
		const res = await fetch(`${this.url}/_sandbox${path}`, {
			method,
			headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const json = (await res.json()) as T & { message?: string };
		if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
		return json;
	}

	/** Recorded API requests after `since` (a seq), without bodies unless asked. */
	async requests(since = 0, withBytes = false): Promise<RecordedRequest[]> {
		const r = await this.call<{ data: RecordedRequest[] }>('GET', `/requests?since=${since}${withBytes ? '' : '&bytes=0'}`);
		return r.data;
	}

	/** The highest request seq so far: pass it as `since` to see only what follows. */
	async mark(): Promise<number> {
		const all = await this.requests();
		return all.length ? all[all.length - 1].seq : 0;
	}

	async messages(): Promise<SentMessage[]> {
		return (await this.call<{ data: SentMessage[] }>('GET', '/messages?bytes=0')).data;
	}

	async order(id: number): Promise<Record<string, unknown>> {
		return (await this.call<{ data: Record<string, unknown> }>('GET', `/orders/${id}`)).data;
	}

	/** The sandbox's status schedule: for every later message, or (with `phone`) for later messages to that phone (null removes it). */
	async setStatuses(schedule: { sentMs: number; deliveredMs: number | null; readMs: number | null } | false | null, phone?: string): Promise<void> {
		await this.call('POST', '/statuses', { schedule, phone });
	}

	/** Reports a status of a message now (out of order and twice allowed); the id of its delivery to the webhook URL. */
	async reportStatus(messageId: string, status: 'sent' | 'delivered' | 'read'): Promise<string> {
		const r = await this.call<{ data: { delivery_id: string | null } }>('POST', `/messages/${encodeURIComponent(messageId)}/status`, { status });
		if (!r.data.delivery_id) throw new Error(`the sandbox delivered no status for ${messageId} (no webhook URL?)`);
		return r.data.delivery_id;
	}

	/** Where the sandbox delivers its events (null: nowhere). */
	async webhookUrl(): Promise<string | null> {
		return (await this.call<{ data: { webhookUrl: string | null } }>('GET', '/')).data.webhookUrl;
	}

	async setWebhookUrl(url: string | null): Promise<void> {
		await this.call('POST', '/webhook-url', { url });
	}

	async verify(url?: string): Promise<{ ok: boolean; status: number | null; body: string; challenge: string }> {
		return (await this.call<{ data: { ok: boolean; status: number | null; body: string; challenge: string } }>('POST', '/verify', url ? { url } : {})).data;
	}

	async deliver(options: { event: string; data?: unknown; url?: string; body?: string; signWith?: string; timestamp?: number; realTimeRetries?: boolean }): Promise<string> {
		return (await this.call<{ id: string }>('POST', '/deliver', options)).id;
	}

	/** Plays the customer: a signed message.received from `from` (to the sandbox's sender number unless `to`). The delivery's id. */
	async customerMessage(message: { from: string; body: string; to?: string; url?: string }): Promise<string> {
		return (await this.call<{ id: string }>('POST', '/customer-message', message)).id;
	}

	async delivery(id: string): Promise<Delivery> {
		return (await this.call<{ data: Delivery }>('GET', `/deliveries/${id}`)).data;
	}

	async deliveries(): Promise<Delivery[]> {
		return (await this.call<{ data: Delivery[] }>('GET', '/deliveries')).data;
	}

	/** Waits until a delivery is no longer pending. */
	async settled(id: string, timeoutMs = 30_000): Promise<Delivery> {
		try {
			return await waitFor(
				`delivery ${id} to settle`,
				async () => {
					const d = await this.delivery(id);
					return d.state === 'pending' ? undefined : d;
				},
				timeoutMs,
				150,
			);
		} catch (error) {
			const d = await this.delivery(id).catch(() => undefined);
			throw new Error(`${(error as Error).message}; delivery: ${JSON.stringify(d?.attempts ?? null)}`);
		}
	}

	/**
	 * After a restart: the delivery once it settles, or, when its retries fell into the restart and the next one is the
	 * service's hour or more away (awaitsLongRetry) or `timeoutMs` passed, sent again (sentAgainUnlessDelivered).
	 */
	async settledOrSentAgain(id: string, timeoutMs = 120_000): Promise<Delivery> {
		const d = await waitFor(
			`delivery ${id} to settle or wait for a long retry`,
			async () => {
				const now = await this.delivery(id);
				return now.state !== 'pending' || awaitsLongRetry(now) ? now : undefined;
			},
			timeoutMs,
			150,
		).catch(async () => await this.delivery(id));
		return await this.sentAgainUnlessDelivered(d);
	}

	/**
	 * A delivery not answered 200 (its time-scaled retries fell into a restart) sent again once, the same bytes to
	 * the same URL, as the service's next retry would, rather than waiting for it (a scaled minute or six): that
	 * one settled, or `d` as it was.
	 */
	async sentAgainUnlessDelivered(d: Delivery, timeoutMs = 120_000): Promise<Delivery> {
		if (d.state === 'delivered') return d;
		return await this.settled(await this.deliver({ event: d.event, url: d.url, body: d.body }), timeoutMs).catch(() => d);
	}

	async fault(spec: Record<string, unknown>): Promise<void> {
		await this.call('POST', '/faults', spec);
	}

	async clearFaults(): Promise<void> {
		await this.call('DELETE', '/faults');
	}
}
