/**
 * Where the time of an `npm test` run went, from its output with a timestamp before every line (unix seconds,
 * as `scripts/timestamps.sh` writes it): per step, the n8n installs, the stack starts (each suite's `timings`
 * and set-up lines) and each check (the time from the line before it). Prints one table per step.
 * node --import tsx tools/timing/table.ts <timestamped log>
 */
import { readFileSync } from 'node:fs';

interface Line {
	at: number;
	text: string;
}

const [file] = process.argv.slice(2);
if (!file) {
	process.stderr.write('usage: node --import tsx tools/timing/table.ts <timestamped log>\n');
	process.exit(2);
}

const lines: Line[] = readFileSync(file, 'utf8')
	.split('\n')
	.map((raw) => /^(\d+\.\d+) (.*)$/.exec(raw))
	.filter((m): m is RegExpExecArray => m !== null)
	.map((m) => ({ at: Number(m[1]), text: m[2] }));

const seconds = (s: number) => `${s.toFixed(0).padStart(5)} s`;
const short = (text: string, width = 110) => (text.length > width ? `${text.slice(0, width - 1)}…` : text);

interface Step {
	name: string;
	start: number;
	end: number;
	lines: Line[];
}

const steps: Step[] = [];
for (const line of lines) {
	const begin = /^== (.*?)$/.exec(line.text);
	if (!begin || /: (passed|FAILED)/.test(line.text)) {
		steps[steps.length - 1]?.lines.push(line);
		if (/^== .*: (passed|FAILED)/.test(line.text) && steps.length) steps[steps.length - 1].end = line.at;
		continue;
	}
	steps.push({ name: begin[1], start: line.at, end: line.at, lines: [] });
}

const first = lines[0]?.at ?? 0;
const last = lines[lines.length - 1]?.at ?? 0;
process.stdout.write(`Whole run: ${seconds(last - first)} (${((last - first) / 60).toFixed(1)} min), from the first line to the last\n\n`);
process.stdout.write('Steps\n');
for (const step of steps) process.stdout.write(`${seconds(step.end - step.start)}  ${short(step.name, 100)}\n`);
const before = steps.length ? steps[0].start - first : 0;
process.stdout.write(`${seconds(before)}  before the first step (npm ci)\n`);

for (const step of steps) {
	const rows: Array<[number, string]> = [];
	let previous = step.start;
	for (const line of step.lines) {
		const install = /n8n install: ([\d.]+) s/.exec(line.text);
		const timing = /^# (.*?)(?:: )?(package install|import credential|import workflows|publish|n8n start|activate|login and API key|build and pack|sandbox start)(?:[^:]*)?: ([\d.]+) s$/.exec(line.text);
		if (install) rows.push([Number(install[1]), `[install] ${short(line.text.replace(/^# /, ''), 100)}`]);
		else if (timing) rows.push([Number(timing[3]), `[stack start] ${short(line.text.replace(/^# /, ''), 100)}`]);
		if (/^(ok|not ok) - /.test(line.text)) {
			rows.push([line.at - previous, `[case] ${short(line.text, 110)}`]);
			previous = line.at;
		} else if (/^# .*: \d+ min \d+ s$|^# n8n .*: [\d.]+ s$/.test(line.text)) {
			rows.push([0, `[total] ${short(line.text.replace(/^# /, ''), 100)}`]);
			previous = line.at;
		}
	}
	if (rows.length === 0) continue;
	const installs = rows.filter(([, t]) => t.startsWith('[install]')).reduce((a, [s]) => a + s, 0);
	const starts = rows.filter(([, t]) => t.startsWith('[stack start]')).reduce((a, [s]) => a + s, 0);
	process.stdout.write(`\n== ${short(step.name, 100)}: ${seconds(step.end - step.start)} (n8n installs ${installs.toFixed(0)} s, stack-start steps ${starts.toFixed(0)} s; a case's time is from the line before it, so it includes the waits and set-up before it)\n`);
	for (const [s, text] of rows) process.stdout.write(`${text.startsWith('[total]') ? '       ' : seconds(s)}  ${text}\n`);
}
