import { closingLine, createReporter } from '../e2e/lib/report';

/** What a suite prints at its end, and its exit code. */
function close(...results: boolean[][]): { lines: string[]; code: number } {
	const lines: string[] = [];
	const reporters = results.map((oks) => {
		const r = createReporter((line) => lines.push(line));
		for (const [i, ok] of oks.entries()) r.result(`check ${i}`, ok);
		return r;
	});
	const write = jest.spyOn(process.stdout, 'write').mockImplementation((text) => lines.push(String(text).trimEnd()) > 0);
	try {
		return { lines, code: closingLine(...reporters) };
	} finally {
		write.mockRestore();
	}
}

describe("a suite's closing line", () => {
	test('sums its reporters (one per lane) and passes when every check passed', () => {
		const { lines, code } = close([true, true], [true]);
		expect([lines.at(-1), code]).toEqual(['3 passed, 0 failed', 0]);
	});

	test('fails when one check failed', () => {
		const { lines, code } = close([true], [true, false]);
		expect([lines.at(-1), code]).toEqual(['2 passed, 1 failed', 1]);
	});

	test('names each failed check again, with its error’s first line, just before it (a long output is seen by its end)', () => {
		const lines: string[] = [];
		const lanes = [createReporter((line) => lines.push(line)), createReporter((line) => lines.push(line))];
		lanes[0].result('sends a text', false, 'Error: 401 invalid signature\n    at stack');
		lanes[1].result('replays the cases', true);
		lanes[1].result('answers the challenge', false);
		const write = jest.spyOn(process.stdout, 'write').mockImplementation((text) => lines.push(String(text).trimEnd()) > 0);
		try {
			closingLine(...lanes);
		} finally {
			write.mockRestore();
		}
		expect(lines.slice(-3)).toEqual(['# failed: sends a text: Error: 401 invalid signature', '# failed: answers the challenge', '1 passed, 2 failed']);
	});

	test('fails when no check ran (a filter that matched nothing proves nothing)', () => {
		const { lines, code } = close([], []);
		expect(lines.slice(-2)).toEqual(['not ok - no check ran', '0 passed, 1 failed']);
		expect(code).toBe(1);
	});
});

describe('each check', () => {
	test('a check that took long is followed by a line with its time and name; a quick one is not', async () => {
		const lines: string[] = [];
		const report = createReporter((line) => lines.push(line), 50);
		await report.run({ name: 'quick', fn: async () => undefined });
		await report.run({ name: 'slow', fn: async () => await new Promise((resolve) => setTimeout(resolve, 80)) });
		expect(lines[0]).toBe('ok - quick');
		expect(lines[1]).toBe('ok - slow');
		expect(lines[2]).toMatch(/^# {3}took 0\.\d s: slow$/);
		expect(lines).toHaveLength(3);
	});
});
