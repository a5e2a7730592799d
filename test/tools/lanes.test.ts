/**
 * tools/n8n/lanes.ts: the fault suite's deployments and the version smoke's runs go side by side, as many as
 * FAULTS_LANES / VERSIONS_LANES say, each lane taking the next run when it finishes one.
 */
import { inLanes, lanesFromEnv } from '../../tools/n8n/lanes';

describe('runs side by side', () => {
	it('runs every item once, never more than the lanes at a time, starting them in order', async () => {
		const started: number[] = [];
		let running = 0;
		let most = 0;
		await inLanes([30, 5, 20, 5, 10], 2, async (ms, index) => {
			started.push(index);
			most = Math.max(most, ++running);
			await new Promise((resolve) => setTimeout(resolve, ms));
			running--;
		});
		expect(started).toEqual([0, 1, 2, 3, 4]);
		expect(most).toBe(2);
	});

	it('one lane runs them one after another; more lanes than items start every item at once', async () => {
		for (const [lanes, expected] of [[1, 1], [9, 3]] as const) {
			let running = 0;
			let most = 0;
			await inLanes(['a', 'b', 'c'], lanes, async () => {
				most = Math.max(most, ++running);
				await new Promise((resolve) => setTimeout(resolve, 5));
				running--;
			});
			expect(most).toBe(expected);
		}
	});

	it('reads the lanes from the environment: the default when unset, 1 for 0, less or not a number', () => {
		const name = 'BM_TEST_LANES';
		const cases: Array<[string | undefined, number]> = [[undefined, 2], ['3', 3], ['1', 1], ['0', 1], ['-4', 1], ['two', 1]];
		for (const [value, expected] of cases) {
			if (value === undefined) delete process.env[name];
			else process.env[name] = value;
			expect(lanesFromEnv(name, 2)).toBe(expected);
		}
		delete process.env[name];
	});
});
