/**
 * What a user sees during long steps of the demo and the e2e suite (tools/n8n/proc.ts): the installer's
 * own lines reach them as they come, and a step that takes long says what it is doing and for how long.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatElapsed, run, withProgress } from '../../tools/n8n/proc';

describe('progress of long steps', () => {
	it('passes each line a command writes to stderr on as it comes, while stdout stays the result', async () => {
		// The command goes on only once its first line has reached us (it waits for a file we write when that
		// line arrives), so it reports whether the line came while it still ran, not at its end.
		const arrived = join(mkdtempSync(join(tmpdir(), 'progress-')), 'first-line-arrived');
		const seen: string[] = [];
		const { stdout } = await run(
			'bash',
			[
				'-c',
				'echo "downloading n8n..." >&2; for _ in $(seq 100); do [ -e "$1" ] && break; sleep 0.1; done; ' +
					'[ -e "$1" ] && streamed=yes || streamed=no; printf "building native modules...\\npartial" >&2; echo "/the/folder $streamed"',
				'_',
				arrived,
			],
			{
				onStderrLine: (line) => {
					seen.push(line);
					if (line === 'downloading n8n...') writeFileSync(arrived, '');
				},
			},
		);
		expect(seen).toEqual(['downloading n8n...', 'building native modules...', 'partial']);
		expect(stdout.trim()).toBe('/the/folder yes');
	});

	it('says what a long step is doing and the time so far, with its latest state, and stops when it ends', async () => {
		const lines: string[] = [];
		let doing = 'downloading n8n';
		const result = await withProgress(
			() => doing,
			async () => {
				await new Promise((resolve) => setTimeout(resolve, 350));
				doing = 'building native modules';
				await new Promise((resolve) => setTimeout(resolve, 350));
				return 'done';
			},
			(line) => lines.push(line),
			100,
		);
		expect(result).toBe('done');
		expect(lines.length).toBeGreaterThanOrEqual(2);
		for (const line of lines) expect(line).toMatch(/^… still (downloading n8n|building native modules) \(\d+ s so far\)$/);
		expect(lines[0]).toContain('downloading n8n');
		expect(lines[lines.length - 1]).toContain('building native modules');
		const count = lines.length;
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(lines.length).toBe(count);
	});

	it('says nothing for a step that ends quickly, and passes its failure on', async () => {
		const lines: string[] = [];
		await expect(
			withProgress('failing', async () => Promise.reject(new Error('npm install failed')), (l) => lines.push(l), 100),
		).rejects.toThrow('npm install failed');
		await new Promise((resolve) => setTimeout(resolve, 250));
		expect(lines).toEqual([]);
	});

	it('writes elapsed time as a person reads it', () => {
		expect(formatElapsed(4_400)).toBe('4 s');
		expect(formatElapsed(75_000)).toBe('1 min 15 s');
		expect(formatElapsed(300_000)).toBe('5 min 0 s');
	});
});
