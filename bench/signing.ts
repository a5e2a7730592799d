/**
 * 5. Signing: time per signature for 1 KB and 1 MB bodies: the credential's signRequest end to end and
 * signPayload, against a bare createHmac over the same bytes. In this process, n8n stopped.
 */
import { createHmac } from 'node:crypto';
import type { IHttpRequestOptions } from 'n8n-workflow';
import { signPayload, signRequest } from '../credentials/signing';
import { fmt, median, ratio, table, verdict } from './lib/stats';

const credentials = {
	baseUrl: 'http://127.0.0.1:8765',
	clientId: 'sandbox-client',
	clientSecret: 'SENTINEL-client-secret-7f3a9c',
	domain: 'sandbox.local',
	phoneNumberId: '100200300',
	multipartSigning: 'rawBody',
};

/**
 * Median time per call (µs) of each function over `batches` batches of `perBatch` calls, the functions
 * taking turns batch by batch so that drift (frequency, other processes) touches all alike.
 */
async function timePerCall(perBatch: number, batches: number, fns: Array<() => unknown>): Promise<number[]> {
	for (const fn of fns) for (let i = 0; i < perBatch; i++) await fn(); // warm-up
	const per = fns.map(() => [] as number[]);
	for (let b = 0; b < batches; b++) {
		for (const [j, fn] of fns.entries()) {
			const t0 = process.hrtime.bigint();
			for (let i = 0; i < perBatch; i++) await fn();
			per[j].push(Number(process.hrtime.bigint() - t0) / 1000 / perBatch);
		}
	}
	return per.map(median);
}

interface Case {
	label: string;
	options: () => IHttpRequestOptions;
	/** The bytes that go out (and are signed after the timestamp). */
	bytes: Buffer;
	/** Making those bytes from what the node hands over (JSON bodies: serializing them). */
	serialize?: () => Buffer;
}

function cases(size: number, label: string): Case[] {
	// A text send whose JSON is `size` bytes.
	const shell = JSON.stringify({ phone: '+15551234567', body: '' }).length;
	const text = 'x'.repeat(size - shell);
	const json = { phone: '+15551234567', body: text };
	const jsonBytes = Buffer.from(JSON.stringify(json));
	const binary = Buffer.alloc(size, 7);
	return [
		{
			label: `${label} JSON body (sendText)`,
			options: () => ({ method: 'POST', url: `${credentials.baseUrl}/w/message/text`, qs: { phone_number_id: '100200300' }, body: json, json: true }),
			bytes: jsonBytes,
			serialize: () => Buffer.from(JSON.stringify(json), 'utf8'),
		},
		{
			label: `${label} Buffer body (sendMedia)`,
			options: () => ({
				method: 'POST',
				url: `${credentials.baseUrl}/w/message/media`,
				qs: { phone_number_id: '100200300' },
				body: binary,
				headers: { 'Content-Type': 'multipart/form-data; boundary=x' },
				json: false,
			}),
			bytes: binary,
		},
	];
}

export async function benchSigning(rounds: number): Promise<string> {
	const rows: string[][] = [];
	for (const [size, label, perBatch, batches] of [
		[1024, '1 KB', 2000, 25 * rounds],
		[1024 * 1024, '1 MB', 10, 10 * rounds],
	] as const) {
		for (const c of cases(size, label)) {
			const ts = String(Math.floor(Date.now() / 1000));
			const secret = credentials.clientSecret;
			const serialize = c.serialize;
			const [bare, payload, request, made] = await timePerCall(perBatch, batches, [
				() => createHmac('sha256', secret).update(ts).update(c.bytes).digest('hex'),
				() => signPayload(secret, ts, c.bytes),
				() => signRequest(credentials, c.options()),
				serialize ? () => createHmac('sha256', secret).update(ts).update(serialize()).digest('hex') : () => undefined,
			]);
			const madeAndBare = serialize ? made : bare;
			rows.push([
				c.label,
				fmt(bare, 2),
				fmt(payload, 2),
				ratio(bare / payload),
				fmt(request, 2),
				ratio(bare / request),
				serialize ? fmt(madeAndBare, 2) : '(same)',
				ratio(madeAndBare / request),
				`${verdict(bare / payload >= 0.9)} / ${verdict(bare / request >= 0.9)}`,
			]);
		}
	}
	return table(
		'5. Signing: time per signature (median of batches, this process)',
		['Body', 'bare HMAC µs', 'signPayload µs', 'speed', 'signRequest µs', 'speed', 'serialize + HMAC µs', 'speed', 'Target ≥ 0.9× (payload / request)'],
		rows,
		[
			'speed: the bare time ÷ this time (1.00× = as fast as a bare createHmac over the same bytes). signRequest is the',
			'credential’s authenticate end to end: query string into the URL, headers, and for JSON bodies serializing the body',
			'into the Buffer that is sent (so n8n’s HTTP client does not serialize it again); "serialize + HMAC" is a bare',
			'createHmac that also makes those bytes first.',
		],
	);
}
