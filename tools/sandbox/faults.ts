/** Fault injection: make the next matching API requests fail, stall or hang up, to exercise client retries. */

export interface FaultSpec {
	/** Answer this status instead of handling the request. */
	status?: number;
	/** Sent as the Retry-After header with the fault status. */
	retryAfter?: number | string;
	/** Wait this long (real ms) first; without status or destroy the request is then handled normally. */
	delayMs?: number;
	/** Raw response body for the fault status (e.g. a 200 that is not JSON). */
	body?: string;
	contentType?: string;
	/** Hang up without answering. */
	destroy?: boolean;
	/** How many matching requests this applies to; default 1. */
	count?: number;
	/** Only requests with this method (case-insensitive). */
	method?: string;
	/** Only requests whose path starts with this. */
	path?: string;
	/** Only requests whose JSON body's `phone` is this (one recipient's sends among others at the same moment). */
	phone?: string;
}

interface ActiveFault extends FaultSpec {
	remaining: number;
}

const DEFAULT_MESSAGES: Record<number, string> = {
	429: 'Too many requests. Try again later.',
	500: 'Internal server error.',
	502: 'Bad gateway.',
	503: 'Service temporarily unavailable.',
	504: 'Gateway timeout.',
};

export function faultMessage(status: number): string {
	return DEFAULT_MESSAGES[status] ?? `Injected fault with status ${status}.`;
}

export class FaultQueue {
	private faults: ActiveFault[] = [];

	add(spec: FaultSpec): void {
		if (spec.status !== undefined && (!Number.isInteger(spec.status) || spec.status < 100 || spec.status > 599)) {
			throw new Error(`Fault status must be an HTTP status code, got ${spec.status}`);
		}
		const count = spec.count ?? 1;
		if (!Number.isInteger(count) || count < 1) throw new Error(`Fault count must be a positive integer, got ${count}`);
		this.faults.push({ ...spec, remaining: count });
	}

	clear(): void {
		this.faults = [];
	}

	/** The first fault that matches, used up by one; faults apply in the order they were added. */
	take(method: string, path: string, json?: unknown): FaultSpec | undefined {
		const phone = (json as { phone?: unknown } | undefined)?.phone;
		const f = this.faults.find(
			(x) => (!x.method || x.method.toUpperCase() === method.toUpperCase()) && (!x.path || path.startsWith(x.path)) && (x.phone === undefined || x.phone === phone),
		);
		if (!f) return undefined;
		if (--f.remaining <= 0) this.faults = this.faults.filter((x) => x !== f);
		return f;
	}

	get active(): FaultSpec[] {
		return this.faults.map(({ remaining, ...spec }) => ({ ...spec, count: remaining }));
	}
}
