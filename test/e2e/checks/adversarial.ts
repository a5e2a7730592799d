/**
 * Replays the trigger's adversarial cases (test/trigger/adversarial-cases.ts) over HTTP against a bare
 * trigger workflow's production URL in the running n8n, finding the executions each case starts.
 *
 * Over HTTP n8n's clock cannot be set: cases whose `prior` delivery lies further back than the 300 s
 * signature window (it would be refused today, so the case would test something else) are skipped, and
 * clock-sensitive cases (on the 300 s edge or a second from it) are sent just after a second boundary, and sent again when the
 * second ticked before the answer came (on a loaded machine).
 */
import { randomBytes } from 'node:crypto';
import {
	ADVERSARIAL_CASES,
	type AdversarialCase,
	buildCaseRequests,
	type CaseContext,
	type CaseResult,
	expectedBody,
	tally,
	type WireRequest,
} from '../../trigger/adversarial-cases';
import { type ExecutionSummary, type N8n, underWay } from '../../../tools/n8n/n8n';
import { sleep, waitFor } from '../../../tools/n8n/proc';
import { assert } from '../lib/report';
import { startedExecutionId } from './trigger';
import type { Stack } from '../../../tools/n8n/stack';

const SIGNATURE_WINDOW_SECONDS = 300;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

async function send(url: string, request: WireRequest): Promise<{ status: number; text: string }> {
	const res = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
	return { status: res.status, text: await res.text() };
}

/** How long the runs are left to come after the last one expected: a forgery that started would show by then. */
const QUIET_MS = 2000;

/**
 * The workflow's runs since `before`, finished (a running one may not hold its data yet): once `expected` are
 * there (or 30 s passed), and again QUIET_MS after that, so a run nobody expected has time to show.
 */
async function newRuns(n8n: N8n, workflowId: string, before: Set<string>, expected: number): Promise<ExecutionSummary[]> {
	const finished = async (atLeast: number) => {
		const list = (await n8n.executions(workflowId, 250)).filter((e) => !before.has(e.id));
		return list.length >= atLeast && !list.some((e) => underWay(e.status)) ? list : undefined;
	};
	await waitFor('the runs the cases start', async () => await finished(expected), 30_000, 300).catch(() => undefined);
	await sleep(QUIET_MS);
	return await waitFor('the runs to finish', async () => await finished(0), 30_000, 300);
}

async function untilNextSecond(): Promise<void> {
	await sleep(1000 - (Date.now() % 1000) + 5);
}

/** How often a case on or near the 300 s edge is sent before its answer counts even if the second ticked. */
const CLOCK_SENSITIVE_ATTEMPTS = 3;

/** The message id a case's event carries in one run of the replay. */
function caseMarker(testCase: AdversarialCase, runId: string): string {
	return `adv-${testCase.id}-${runId}`;
}

interface Sent {
	status: number;
	threw: boolean;
	/** Runs the case's prior delivery started (it is the case's set-up). */
	priorRuns: number;
	/** What was wrong with the answer's body, or the error the request threw. */
	problem?: string;
}

/** Sends a case's prior delivery (if any) and its request; `skipped` when this n8n cannot take its body. */
async function sendCase(url: string, testCase: AdversarialCase, context: CaseContext, jsonBomAccepted: boolean): Promise<Sent | 'skipped'> {
	const { prior, request } = buildCaseRequests(testCase, context);
	if (!jsonBomAccepted && request.body.subarray(0, 3).equals(UTF8_BOM)) return 'skipped';
	let priorRuns = 0;
	try {
		if (prior) priorRuns = startedExecutionId((await send(url, prior.request)).text) ? 1 : 0;
		const answer = await send(url, request);
		const wanted = expectedBody(testCase, context.runId ?? '');
		let problem: string | undefined;
		if (wanted !== undefined) {
			let got: unknown;
			try {
				got = JSON.parse(answer.text);
			} catch {
				got = answer.text;
			}
			if (JSON.stringify(got) !== JSON.stringify(wanted)) problem = `answer body ${answer.text.slice(0, 200)}`;
		}
		return { status: answer.status, threw: false, priorRuns, problem };
	} catch (error) {
		return { status: 0, threw: true, priorRuns, problem: String(error) };
	}
}

export function replayable(testCase: AdversarialCase): string | undefined {
	if (testCase.prior && testCase.prior.secondsEarlier > SIGNATURE_WINDOW_SECONDS && testCase.expect.started === false && testCase.origin === 'genuine') {
		return `its prior delivery is ${testCase.prior.secondsEarlier} s old; n8n's clock cannot be set over HTTP`;
	}
	return undefined;
}

/**
 * Every case sent in turn, each answer checked as it comes; then the runs are counted once for all: each case's
 * event carries its own message id (`adv-<case>-<run id>`), so a run belongs to the case whose id it holds, and a
 * run that holds none (an unsigned body that is not an event, a handshake) is a forgery that started.
 */
export async function replayAdversarialCases(stack: Stack, url: string, workflowId: string): Promise<void> {
	const { n8n, sandbox } = stack;
	const runId = randomBytes(4).toString('hex');
	const { webhookSecret, clientSecret } = sandbox.credentials;
	const sent: Array<Omit<Sent, 'problem'> & { testCase: AdversarialCase; runId: string }> = [];
	const unsettled: string[] = [];
	const bodies: string[] = [];
	const skipped: string[] = [];
	const before = new Set((await n8n.executions(workflowId, 250)).map((e) => e.id));

	for (const testCase of ADVERSARIAL_CASES) {
		const reason = replayable(testCase);
		if (reason) {
			skipped.push(`${testCase.id} (${reason})`);
			continue;
		}
		for (let attempt = 1; ; attempt++) {
			// A second ticking while a case on or near the 300 s edge is under way leaves its right answer unknown: it is sent
			// again, with a body of its own (the prefix keeps each attempt's marker out of the others'), and what the
			// unsettled attempt started is left out.
			const attemptRunId = attempt === 1 ? runId : `${attempt}x${runId}`;
			if (testCase.clockSensitive) await untilNextSecond();
			const nowSeconds = Math.floor(Date.now() / 1000);
			const outcome = await sendCase(url, testCase, { nowSeconds, webhookSecret, clientSecret, runId: attemptRunId }, n8n.features.jsonBomAccepted);
			if (outcome === 'skipped') {
				skipped.push(`${testCase.id} (this n8n answers a JSON body that starts with a byte order mark 422 before the trigger runs)`);
				break;
			}
			const ticked = testCase.clockSensitive && Math.floor(Date.now() / 1000) !== nowSeconds;
			if (ticked && attempt < CLOCK_SENSITIVE_ATTEMPTS) {
				unsettled.push(caseMarker(testCase, attemptRunId));
				process.stdout.write(`# adversarial replay: ${testCase.id} answered ${outcome.status} after the second ticked; sent again\n`);
				continue;
			}
			if (outcome.problem) bodies.push(`${testCase.id}: ${outcome.problem}`);
			sent.push({ testCase, runId: attemptRunId, status: outcome.status, threw: outcome.threw, priorRuns: outcome.priorRuns });
			break;
		}
	}

	const expected = sent.reduce((n, s) => n + s.priorRuns + (s.testCase.expect.started ? 1 : 0), 0);
	const runs = (await newRuns(n8n, workflowId, before, expected)).map((e) => ({ id: e.id, data: JSON.stringify(e.data ?? {}) }));
	const holds = (run: { data: string }, marker: string) => run.data.includes(marker);
	const caseOf = (run: { data: string }) => sent.find((s) => holds(run, caseMarker(s.testCase, s.runId)));
	const results: CaseResult[] = sent.map(({ testCase, status, threw, priorRuns }) => ({
		testCase,
		status,
		threw,
		started: runs.filter((run) => caseOf(run)?.testCase === testCase).length > priorRuns,
	}));
	const ofNoCase = runs.filter((r) => !caseOf(r) && !unsettled.some((marker) => holds(r, marker)));
	for (const run of ofNoCase) bodies.push(`run ${run.id} holds no case's message id: ${run.data.slice(0, 200)}`);

	const summary = tally(results);
	const line = `tried ${summary.tried}, forged accepted ${summary.forgedAccepted}, genuine rejected ${summary.genuineRejected}, mismatches ${summary.mismatches.length}, runs ${runs.length} (${expected} expected, ${ofNoCase.length} of no case); sent again after the second ticked: ${unsettled.length}; skipped: ${skipped.join(', ') || 'none'}`;
	process.stdout.write(`# adversarial replay: ${line}\n`);
	assert(
		summary.forgedAccepted === 0 && summary.genuineRejected === 0 && summary.mismatches.length === 0 && bodies.length === 0,
		`${line}\n${[...summary.mismatches, ...bodies].join('\n')}`,
	);
}
