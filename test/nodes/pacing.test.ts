/** The pacing of option Max Messages per Second, shared by all requests of a node run. */
import { newGate, waitForSlot } from '../../nodes/BusinessMessaging/helpers/pacing';
import { runAction } from '../helpers/actionNode';
import { useSandboxProcess } from '../helpers/useSandbox';

test('requests of one run start one interval apart, however many wait at once', async () => {
	const run = newGate();
	const started: number[] = [];
	await Promise.all(Array.from({ length: 6 }, async () => {
		await waitForSlot(run, 20);
		started.push(Date.now());
	}));
	started.sort((a, b) => a - b);
	started.slice(1).forEach((at, i) => expect(at - started[i]).toBeGreaterThanOrEqual(48)); // recorded a moment after the turn
});

test('separate runs do not share a schedule, and 0 means no limit', async () => {
	const t0 = Date.now();
	// One request every 10 s: had the runs shared a gate, the second would wait 10 s.
	await Promise.all([waitForSlot(newGate(), 0.1), waitForSlot(newGate(), 0.1), waitForSlot(newGate(), 0), waitForSlot(newGate(), 0)]);
	expect(Date.now() - t0).toBeLessThan(5000);
});

/** The most arrivals that fall within any one second. */
function mostInOneSecond(arrivals: number[]): number {
	const sorted = [...arrivals].sort((a, b) => a - b);
	let most = 0;
	for (let first = 0, last = 0; last < sorted.length; last++) {
		while (sorted[last] - sorted[first] >= 1000) first++;
		most = Math.max(most, last - first + 1);
	}
	return most;
}

describe('Max Messages per Second when n8n was busy', () => {
	// The service in its own process, so it counts arrivals while this process (n8n) is blocked.
	const service = useSandboxProcess();

	test('a stalled event loop does not make the missed requests go out at once', async () => {
		const rate = 10;
		const input = Array.from({ length: 30 }, (_, i) => ({ json: { phone: `+1555300${String(i).padStart(4, '0')}`, text: `paced ${i}` } }));
		const since = await service.mark();
		// Another workflow holds n8n's only thread for 700 ms, 1.2 s into the send.
		const stall = setTimeout(() => {
			const until = Date.now() + 700;
			while (Date.now() < until);
		}, 1200);
		const result = await runAction(
			service,
			{
				resource: 'message',
				operation: 'sendText',
				phone: '={{ $json.phone }}',
				text: '={{ $json.text }}',
				options: { maxMessagesPerSecond: rate },
			},
			{ input },
		);
		clearTimeout(stall);
		expect(result.error).toBeUndefined();
		const arrivals = (await service.requests(since)).filter((r) => r.path === '/w/message/text').map((r) => Date.parse(r.receivedAt));
		expect(arrivals).toHaveLength(30);
		// The setting, plus the one request that was on its way when the stall began.
		expect(mostInOneSecond(arrivals)).toBeLessThanOrEqual(rate + 1);
	}, 60_000);
});
