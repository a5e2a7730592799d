/**
 * Replays the trigger's adversarial cases (test/trigger/adversarial-cases.ts) over HTTP against a bare
 * trigger workflow's production URL in the running n8n, counting the executions each case starts.
 *
 * Over HTTP n8n's clock cannot be set: cases whose `prior` delivery lies further back than the 300 s
 * signature window (it would be refused today, so the case would test something else) are skipped, and
 * clock-sensitive cases (exactly on the 300 s edge) are sent just after a second boundary.
 */
import { randomBytes } from 'node:crypto';
import {
	ADVERSARIAL_CASES,
	type AdversarialCase,
	buildCaseRequests,
	type CaseResult,
	expectedBody,
	tally,
	type WireRequest,
} from '../../trigger/adversarial-cases';
import type { N8n } from '../../../tools/n8n/n8n';
import { sleep, waitFor } from '../../../tools/n8n/proc';
import { assert } from '../lib/report';
import type { Stack } from '../../../tools/n8n/stack';

const SIGNATURE_WINDOW_SECONDS = 300;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

async function countExecutions(n8n: N8n, workflowId: string): Promise<number> {
	const res = await n8n.api<{ data: unknown[]; nextCursor: string | null }>(
		'GET',
		`/executions?workflowId=${encodeURIComponent(workflowId)}&limit=250`,
	);
	return res.body.data.length;
}

async function send(url: string, request: WireRequest): Promise<{ status: number; text: string }> {
	const res = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
	return { status: res.status, text: await res.text() };
}

/** Waits until the execution count reaches `atLeast`, or `quietMs` passes without it. */
async function settleCount(n8n: N8n, workflowId: string, atLeast: number, quietMs: number): Promise<number> {
	try {
		return await waitFor(
			'executions',
			async () => {
				const n = await countExecutions(n8n, workflowId);
				return n >= atLeast ? n : undefined;
			},
			quietMs,
			150,
		);
	} catch {
		return await countExecutions(n8n, workflowId);
	}
}

async function untilNextSecond(): Promise<void> {
	await sleep(1000 - (Date.now() % 1000) + 5);
}

export function replayable(testCase: AdversarialCase): string | undefined {
	if (testCase.prior && testCase.prior.secondsEarlier > SIGNATURE_WINDOW_SECONDS && testCase.expect.started === false && testCase.origin === 'genuine') {
		return `its prior delivery is ${testCase.prior.secondsEarlier} s old; n8n's clock cannot be set over HTTP`;
	}
	return undefined;
}

export async function replayAdversarialCases(stack: Stack, url: string, workflowId: string): Promise<void> {
	const { n8n, sandbox } = stack;
	const runId = randomBytes(4).toString('hex');
	const results: CaseResult[] = [];
	const bodies: string[] = [];
	const skipped: string[] = [];
	let expectedTotal = await countExecutions(n8n, workflowId);

	for (const testCase of ADVERSARIAL_CASES) {
		const reason = replayable(testCase);
		if (reason) {
			skipped.push(`${testCase.id} (${reason})`);
			continue;
		}
		if (testCase.clockSensitive) await untilNextSecond();
		const context = {
			nowSeconds: Math.floor(Date.now() / 1000),
			webhookSecret: sandbox.credentials.webhookSecret,
			clientSecret: sandbox.credentials.clientSecret,
			runId,
		};
		const { prior, request } = buildCaseRequests(testCase, context);
		if (!n8n.features.jsonBomAccepted && request.body.subarray(0, 3).equals(UTF8_BOM)) {
			skipped.push(`${testCase.id} (this n8n answers a JSON body that starts with a byte order mark 422 before the trigger runs)`);
			continue;
		}
		let threw = false;
		let status = 0;
		let started = false;
		try {
			if (prior) {
				await send(url, prior.request);
				// The prior delivery may start one execution (it was genuine when it was sent).
				expectedTotal = await settleCount(n8n, workflowId, expectedTotal + 1, 1500);
			}
			const answer = await send(url, request);
			status = answer.status;
			const after = await settleCount(n8n, workflowId, expectedTotal + 1, testCase.expect.started ? 10_000 : 800);
			started = after > expectedTotal;
			expectedTotal = after;
			const wanted = expectedBody(testCase, runId);
			if (wanted !== undefined) {
				let got: unknown;
				try {
					got = JSON.parse(answer.text);
				} catch {
					got = answer.text;
				}
				if (JSON.stringify(got) !== JSON.stringify(wanted)) bodies.push(`${testCase.id}: answer body ${answer.text.slice(0, 200)}`);
			}
		} catch (error) {
			threw = true;
			bodies.push(`${testCase.id}: ${String(error)}`);
		}
		results.push({ testCase, status, started, threw });
	}

	const summary = tally(results);
	const line = `tried ${summary.tried}, forged accepted ${summary.forgedAccepted}, genuine rejected ${summary.genuineRejected}, mismatches ${summary.mismatches.length}; skipped: ${skipped.join(', ') || 'none'}`;
	process.stdout.write(`# adversarial replay: ${line}\n`);
	assert(
		summary.forgedAccepted === 0 && summary.genuineRejected === 0 && summary.mismatches.length === 0 && bodies.length === 0,
		`${line}\n${[...summary.mismatches, ...bodies].join('\n')}`,
	);
}
