/**
 * The sentinel secrets every suite uses (the sandbox's defaults). Both harnesses check every run with
 * `assertNoSecrets`, so a secret reaching an output item, an error, an HTTP answer or a log line fails
 * whichever test caused it.
 */
import { SANDBOX_CREDENTIALS } from '../../tools/sandbox';

export const SENTINEL_CLIENT_SECRET = SANDBOX_CREDENTIALS.clientSecret;
export const SENTINEL_WEBHOOK_SECRET = SANDBOX_CREDENTIALS.webhookSecret;

function serialize(value: unknown): string {
	return JSON.stringify(value, (_key, item: unknown) =>
		item instanceof Error ? { ...item, message: item.message, stack: item.stack } : item,
	);
}

export function assertNoSecrets(what: string, seen: unknown): void {
	const text = serialize(seen);
	for (const secret of [SENTINEL_CLIENT_SECRET, SENTINEL_WEBHOOK_SECRET]) {
		if (text.includes(secret)) throw new Error(`A sentinel secret appeared in ${what}`);
	}
}
