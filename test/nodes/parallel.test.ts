/**
 * Parallel sending (option Parallel Requests): several recipients at once, each recipient's messages
 * in item order, nothing lost or duplicated, and a 429 slows every worker down, not just one.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runAction } from '../helpers/actionNode';
import type { RunNodeInputItem } from '../helpers/engine';
import { type Sandbox } from '../../tools/sandbox';
import { useSandbox } from '../helpers/useSandbox';

let sandbox: Sandbox;
useSandbox((started) => (sandbox = started));

const recipients = ['+4915100000001', '+4915100000002', '+4915100000003', '+4915100000004', '+4915100000005', '+4915100000006'];
// 30 items, recipients interleaved: item i goes to recipient i % 6 as that recipient's message i / 6.
const input: RunNodeInputItem[] = Array.from({ length: 30 }, (_, i) => ({
	json: { phone: recipients[i % 6], text: `msg ${Math.floor(i / 6)} of item ${i}` },
}));

async function send(options: Record<string, unknown>, items = input, continueOnFail = false) {
	const parameters: INodeParameters = {
		resource: 'message',
		operation: 'sendText',
		phone: '={{ $json.phone }}',
		text: '={{ $json.text }}',
		options: options as INodeParameters,
	};
	return await runAction(sandbox, parameters, { input: items, continueOnFail });
}

const at = (iso: string) => Date.parse(iso);

/** Whether the first `count` requests all arrived before the sandbox answered any of them. */
function arrivedWhileFirstHeld(count: number): boolean {
	const first = sandbox.requests.slice(0, count);
	const firstAnswer = Math.min(...first.map((request) => at(request.answeredAt!)));
	return first.every((request) => at(request.receivedAt) <= firstAnswer);
}

test('every message goes out once, in order per recipient, output in item order', async () => {
	sandbox.injectFault({ delayMs: 150, count: 30, path: '/w/message/text' });
	const result = await send({ parallelRequests: 5 });
	expect(result.error).toBeUndefined();

	expect(sandbox.messages.map((m) => m.body).sort()).toEqual(input.map((item) => item.json.text).sort());
	for (const phone of recipients) {
		const sent = sandbox.messages.filter((m) => m.phone === phone).map((m) => m.body);
		expect(sent).toEqual(input.filter((item) => item.json.phone === phone).map((item) => item.json.text));
	}
	expect(result.items.map((item) => item.pairedItem)).toEqual(input.map((_, i) => ({ item: i })));
	expect(result.items.map((item) => item.json.phone)).toEqual(input.map((item) => item.json.phone));

	// Requests really overlapped: the first five arrived while the sandbox was still holding the first.
	expect(arrivedWhileFirstHeld(5)).toBe(true);
});

test('without the option, items go out at the same time (default Parallel Requests)', async () => {
	sandbox.injectFault({ delayMs: 150, count: 30, path: '/w/message/text' });
	const result = await send({});
	expect(result.error).toBeUndefined();
	expect(sandbox.messages).toHaveLength(30);
	expect(arrivedWhileFirstHeld(6)).toBe(true);
	for (const phone of recipients) {
		const sent = sandbox.messages.filter((m) => m.phone === phone).map((m) => m.body);
		expect(sent).toEqual(input.filter((item) => item.json.phone === phone).map((item) => item.json.text));
	}
});

test('Parallel Requests 1 sends one at a time', async () => {
	sandbox.injectFault({ delayMs: 100, count: 3, path: '/w/message/text' });
	const result = await send({ parallelRequests: 1 }, input.slice(0, 3));
	expect(result.error).toBeUndefined();
	const times = sandbox.requests.map((request) => at(request.receivedAt));
	expect(times[1] - times[0]).toBeGreaterThanOrEqual(90);
	expect(times[2] - times[1]).toBeGreaterThanOrEqual(90);
});

test('Max Messages per Second spreads the sends of all workers: no second holds more than the setting', async () => {
	const result = await send({ parallelRequests: 10, maxMessagesPerSecond: 10 }, input.slice(0, 25));
	expect(result.error).toBeUndefined();
	expect(sandbox.messages).toHaveLength(25);
	const times = sandbox.requests.map((request) => at(request.receivedAt)).sort((a, b) => a - b);
	// 25 sends at 10 per second go out over 2.4 s from the first to the last; their arrivals jitter on a busy
	// machine (2232 ms once beside the e2e suites), unpaced they all come within a few tens of ms.
	expect(times[24] - times[0]).toBeGreaterThanOrEqual(2000);
	for (const start of times) {
		expect(times.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(11);
	}
	for (const phone of recipients) {
		const sent = sandbox.messages.filter((m) => m.phone === phone).map((m) => m.body);
		expect(sent).toEqual(input.slice(0, 25).filter((item) => item.json.phone === phone).map((item) => item.json.text));
	}
});

test('a 429 makes every worker wait out the Retry-After, and nothing is lost', async () => {
	// Faults apply in the order they were added: the third request is refused, the rest are slowed.
	sandbox.injectFault({ delayMs: 50, count: 2, path: '/w/message/text' });
	sandbox.injectFault({ status: 429, retryAfter: 2, count: 1, path: '/w/message/text' });
	sandbox.injectFault({ delayMs: 50, count: 30, path: '/w/message/text' });
	const result = await send({ parallelRequests: 5 });
	expect(result.error).toBeUndefined();
	expect(sandbox.messages).toHaveLength(30);
	const refused = sandbox.requests.find((request) => request.status === 429)!;
	// Requests already on their way may still land: the sandbox shares its process (and, beside other test
	// files, the cores), so one sent before the 429 can be taken in a few hundred ms late.
	const quietFrom = at(refused.receivedAt) + 600;
	const quietUntil = at(refused.receivedAt) + 1900;
	const during = sandbox.requests.filter((r) => at(r.receivedAt) > quietFrom && at(r.receivedAt) < quietUntil);
	expect(during).toHaveLength(0);
});

test('with Continue On Fail a bad item fails alone; without it the run stops with that error', async () => {
	const items = input.slice(0, 6).map((item, i) => (i === 2 ? { json: { ...item.json, phone: 'not-a-phone' } } : item));
	const tolerant = await send({ parallelRequests: 3 }, items, true);
	expect(tolerant.items).toHaveLength(6);
	expect(String(tolerant.items[2].json.error)).toContain('Recipient Phone');
	expect(sandbox.messages).toHaveLength(5);

	sandbox.reset();
	const strict = await send({ parallelRequests: 3 }, items);
	expect(strict.error?.message).toContain('Recipient Phone');
});
