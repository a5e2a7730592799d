/**
 * Table-driven adversarial suite: every case of adversarial-cases.ts against the trigger's real
 * `webhook()` (through n8n-core), each on a fresh trigger with the default options, at a fixed clock,
 * for both node versions (n8n hands version 2 the raw body only for content types it parses).
 *
 * Each case is a test (id, origin, expected answer, name); rows pass only when the actual answer
 * equals the expected one. After the run the table of actual answers and the totals are printed.
 */
import { DEFAULT_CREDENTIALS, TEST_WEBHOOK_SECRET, TriggerHarness } from '../helpers/webhook';
import {
	ADVERSARIAL_CASES,
	buildCaseRequests,
	expectedBody,
	tally,
	type AdversarialCase,
	type CaseResult,
} from './adversarial-cases';
import { FIXED_NOW_SECONDS } from './requests';

const RUN_ID = 'jest';
const context = {
	nowSeconds: FIXED_NOW_SECONDS,
	webhookSecret: TEST_WEBHOOK_SECRET,
	clientSecret: String(DEFAULT_CREDENTIALS.clientSecret),
	runId: RUN_ID,
};

function row(testCase: AdversarialCase): string {
	const outcome = `${testCase.expect.status} ${testCase.expect.started ? 'starts  ' : 'no start'}`;
	return `${testCase.id} | ${testCase.origin.padEnd(9)} | ${outcome} | ${testCase.name}`;
}

const VERSIONS = [1, 2];
const resultsByVersion = new Map<number, CaseResult[]>(VERSIONS.map((v) => [v, []]));

afterAll(() => {
	const results = resultsByVersion.get(VERSIONS[VERSIONS.length - 1]) ?? [];
	const summary = tally(results);
	const lines = results.map(
		({ testCase, status, started }) =>
			`${testCase.id} | ${testCase.origin.padEnd(9)} | ${status} ${started ? 'started   ' : 'not started'} | ${testCase.name}`,
	);
	console.log(
		[
			`Trigger adversarial cases (through n8n-core, node version ${VERSIONS[VERSIONS.length - 1]}):`,
			...lines,
			`total: ${summary.tried} cases tried, forged accepted ${summary.forgedAccepted}, genuine rejected ${summary.genuineRejected}`,
		].join('\n'),
	);
});

describe.each(VERSIONS)('adversarial webhook requests, trigger version %i', (typeVersion) => {
	const results = resultsByVersion.get(typeVersion) ?? [];
	it.each(ADVERSARIAL_CASES.map((testCase) => [row(testCase), testCase] as const))(
		'%s',
		async (_row, testCase) => {
			const harness = new TriggerHarness({ typeVersion });
			const { prior, request, atSeconds } = buildCaseRequests(testCase, context);
			if (prior !== undefined) {
				const first = await harness.send(prior.request, prior.atSeconds * 1000);
				expect(first.workflowStarted).toBe(true);
			}
			const outcome = await harness.send(request, atSeconds * 1000);
			results.push({
				testCase,
				status: outcome.statusCode,
				started: outcome.workflowStarted,
				threw: outcome.threw !== undefined,
			});

			expect(outcome.threw).toBeUndefined();
			expect({ status: outcome.statusCode, started: outcome.workflowStarted }).toEqual({
				status: testCase.expect.status,
				started: testCase.expect.started,
			});
			const body = expectedBody(testCase, RUN_ID);
			if (body !== undefined) expect(outcome.body).toEqual(body);
			if (outcome.workflowStarted) expect(outcome.items).toHaveLength(1);
		},
	);

	it(`total: ${ADVERSARIAL_CASES.length} cases tried, forged accepted 0, genuine rejected 0`, () => {
		const summary = tally(results);
		expect(summary.tried).toBe(ADVERSARIAL_CASES.length);
		expect(summary.tried).toBeGreaterThanOrEqual(40);
		expect(summary).toEqual({
			tried: ADVERSARIAL_CASES.length,
			forgedAccepted: 0,
			genuineRejected: 0,
			mismatches: [],
		});
	});

	it('has unique case ids and covers every origin', () => {
		const ids = ADVERSARIAL_CASES.map((testCase) => testCase.id);
		expect(new Set(ids).size).toBe(ids.length);
		expect(new Set(ADVERSARIAL_CASES.map((testCase) => testCase.origin))).toEqual(
			new Set(['genuine', 'forged', 'handshake']),
		);
	});
});
