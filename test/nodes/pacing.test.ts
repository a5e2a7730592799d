/** The pacing schedule of option Max Messages per Second, shared by all requests of a node run. */
import { waitForSlot } from '../../nodes/BusinessMessaging/helpers/pacing';

test('requests of one run start one interval apart, however many wait at once', async () => {
	const run = {};
	const started: number[] = [];
	const t0 = Date.now();
	await Promise.all(Array.from({ length: 6 }, async () => {
		await waitForSlot(run, 20);
		started.push(Date.now() - t0);
	}));
	started.sort((a, b) => a - b);
	// Slots at 0, 50, …, 250 ms: each start is at or after its slot.
	started.forEach((at, i) => expect(at).toBeGreaterThanOrEqual(i * 50 - 2));
});

test('separate runs do not share a schedule, and 0 means no limit', async () => {
	const t0 = Date.now();
	await Promise.all([waitForSlot({}, 1), waitForSlot({}, 1), waitForSlot({}, 0), waitForSlot({}, 0)]);
	expect(Date.now() - t0).toBeLessThan(900);
});
