/**
 * Queue mode's race for a status wait (docs/conversations.md, issue 52's open question 1): two n8n processes
 * take the last two statuses of one wait at the same moment. Each loads the trigger's static data before the
 * other saved, counts its own status, finds the wait incomplete and saves over the other (last write wins).
 * Each process here is the real Business Messaging Trigger through n8n-core's WebhookContext
 * (test/helpers/webhook.ts) in a module registry of its own (its own process memory), all three sharing one
 * database row. The run must still be handed its summary once, and the service answered 2xx for both; with the
 * trigger's Also Start This Workflow for Statuses on too, each status also starting the trigger's workflow (n8n
 * then saves no static data for the status's request at all).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { signatureHeaders } from '../../credentials/webhookSignature';
import { STATUS_SUMMARY_TYPE, WAITS_MESSAGE_TYPE, WAITS_PATH } from '../../nodes/shared/sharing';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { messageStatusUpdated } from '../trigger/requests';
import type * as Webhook from '../helpers/webhook';
import type * as Registry from '../../nodes/BusinessMessagingTrigger/sharing/registry';

type HarnessModule = typeof Webhook;

/** How each n8n process started below forgets what it keeps in memory, as when it ends. */
const endings: Array<() => void> = [];

/** A fresh copy of the trigger and everything it keeps in memory: one n8n process. */
function n8nProcess(): HarnessModule {
	let module!: HarnessModule;
	jest.isolateModules(() => {
		module = jest.requireActual<HarnessModule>('../helpers/webhook');
		// Its own copy: the limits of status waits it keeps tick until forgotten (sharing/statusLimit.ts).
		endings.push(jest.requireActual<typeof Registry>('../../nodes/BusinessMessagingTrigger/sharing/registry').forgetRegistrations);
	});
	return module;
}

const SECRET = n8nProcess().TEST_WEBHOOK_SECRET;
/** n8n's database answers with I/O: requests at the same moment load before the others saved (test/helpers/webhook.ts). */
const DATABASE_LATENCY_MS = 20;
const WAIT_ID = 'status-wait-race-1';

interface Call {
	method: string;
	body: string;
	status: number;
}

let server: Server;
let url = '';
let database: { saved: string; saves?: number };
/** The trigger's waits webhook answers 503 (n8n cannot take the request) while set. */
let waitsDown: boolean;
/** How long n8n takes to answer the run's resume address (a busy n8n). */
let resumeDelayMs: number;
/** n8n's answer to a summary once the run was resumed: 409, or, in queue mode at the same moment, 500. */
let secondResumeStatus: number;
let processes: Webhook.TriggerHarness[];
/** Over how many of the processes the waits webhook's requests are spread (a load balancer's turns). */
let waitsProcesses: number;
/** What reached the run's resume address, with n8n's answer. */
let resumes: Call[];
/** How many recounts reached the trigger's waits webhook. */
let recounts: number;
/** Called with each action the trigger's waits webhook answered (after the process saved). */
let afterWaitsRequest: ((action: unknown) => void) | undefined;

async function readAll(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

beforeEach(async () => {
	resumes = [];
	recounts = 0;
	afterWaitsRequest = undefined;
	database = { saved: '{}' };
	waitsDown = false;
	resumeDelayMs = 0;
	secondResumeStatus = 409;
	/** The runs resumed (their resume addresses). */
	const resumed = new Set<string>();
	// The waits webhook's requests go to any process (a load balancer): here to those that take the statuses, in
	// turn, so recounts at the same moment run at different processes, each saving over the others.
	waitsProcesses = 2;
	let turn = 0;
	const waitsProcess = () => processes[turn++ % waitsProcesses];
	server = createServer((req, res) => {
		void (async () => {
			const body = await readAll(req);
			const path = (req.url ?? '').split('?')[0];
			if (path === `/webhook/${WAITS_PATH}` && waitsDown) {
				res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'unavailable' }));
				return;
			}
			if (path === `/webhook/${WAITS_PATH}`) {
				if ((JSON.parse(body) as IDataObject).action === 'recount') recounts++;
				const outcome = await waitsProcess().send({ headers: req.headers as Record<string, string>, body, path });
				afterWaitsRequest?.((JSON.parse(body) as IDataObject).action);
				res.writeHead(outcome.statusCode, { 'content-type': 'application/json' }).end(JSON.stringify(outcome.body));
				return;
			}
			// n8n's resume address: the first summary resumes its run; after that the run waits no more (409).
			await new Promise((resolve) => setTimeout(resolve, resumeDelayMs));
			const status = req.method === 'POST' && !resumed.has(req.url ?? '') ? 200 : req.method === 'POST' ? secondResumeStatus : 409;
			if (req.method === 'POST') resumes.push({ method: 'POST', body, status });
			if (status === 200) resumed.add(req.url ?? '');
			res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(status === 200 ? { outcome: 'resumed' } : { message: 'running already' }));
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	startProcesses();
});
afterEach(async () => {
	for (const end of endings.splice(0)) end();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Three fresh n8n processes of the trigger with these parameters (Share With Other Workflows on), sharing the database row. */
function startProcesses(parameters: INodeParameters = {}) {
	processes = [0, 1, 2].map(() => new (n8nProcess().TriggerHarness)({ parameters: { resumeWaitingRuns: true, ...parameters }, workflowId: 'trigger-workflow', baseUrl: url, database, databaseLatencyMs: DATABASE_LATENCY_MS }));
}

/** A signed request of the waiting node to the trigger's waits webhook; its answer. */
async function tellTrigger(request: object): Promise<IDataObject> {
	const body = JSON.stringify({ type: WAITS_MESSAGE_TYPE, ...request });
	const outcome = await processes[2].send({ headers: { 'content-type': 'application/json', ...signatureHeaders(SECRET, body) }, body, path: `/webhook/${WAITS_PATH}` });
	expect(outcome.statusCode).toBe(200);
	return outcome.body as IDataObject;
}

/** The service reports a status to one process. */
async function report(process: Webhook.TriggerHarness, messageId: string, status: string) {
	const body = messageStatusUpdated(messageId, status);
	return await process.send({ headers: { 'content-type': 'application/json', ...signatureHeaders(SECRET, body) }, body });
}

async function waitFor(messages: string[]) {
	const now = Date.now();
	await tellTrigger({ action: 'registerStatusWait', wait: { id: WAIT_ID, resumeUrl: `${url}/webhook-waiting/7/node-1?wait=${WAIT_ID}`, until: now + 3_600_000, wanted: 'delivered', askedAt: now } });
	await tellTrigger({ action: 'watch', watch: { id: 'status-watch-race-1', wait: WAIT_ID, messages } });
}

/** The run was handed one summary, with both messages delivered; any later hand-over found it no longer waiting (409). */
function expectHandedOnce() {
	const handed = resumes.filter((r) => r.status === 200);
	expect(handed).toHaveLength(1);
	expect(resumes.slice(1).map((r) => r.status)).toEqual(resumes.slice(1).map(() => 409));
	expect(JSON.parse(handed[0].body)).toMatchObject({
		type: STATUS_SUMMARY_TYPE,
		wait: WAIT_ID,
		statuses: { 'wamid.race-1': { status: 'delivered' }, 'wamid.race-2': { status: 'delivered' } },
	});
}

test('the last two statuses of a wait taken by two processes at once, each saving over the other: the run is handed its summary (once: a second hand-over finds it no longer waiting), and both are answered 200', async () => {
	await waitFor(['wamid.race-1', 'wamid.race-2']);
	const answers = await Promise.all([report(processes[0], 'wamid.race-1', 'delivered'), report(processes[1], 'wamid.race-2', 'delivered')]);
	expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
	// Both may find the wait complete by then: the second summary finds the run no longer waiting, and is done.
	expectHandedOnce();
});

test('the same race where n8n answers the second summary 500 ("already being resumed by another process", queue mode): both answered 200, the run handed its summary once', async () => {
	secondResumeStatus = 500;
	await waitFor(['wamid.race-1', 'wamid.race-2']);
	const answers = await Promise.all([report(processes[0], 'wamid.race-1', 'delivered'), report(processes[1], 'wamid.race-2', 'delivered')]);
	expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
	expect(resumes.filter((r) => r.status === 200)).toHaveLength(1);
});

test('a status that leaves its wait incomplete with nobody else counting: no summary, answered 200', async () => {
	await waitFor(['wamid.race-1', 'wamid.race-2']);
	const answer = await report(processes[0], 'wamid.race-1', 'read');
	expect(answer.statusCode).toBe(200);
	expect(resumes).toEqual([]);
});

test('a registration a process takes while one of its status requests hands a run over (slowly) stays in the saved copy after that request saves', async () => {
	await waitFor(['wamid.race-1']);
	resumeDelayMs = 1500;
	const status = report(processes[0], 'wamid.race-1', 'delivered');
	await new Promise((resolve) => setTimeout(resolve, 300));
	// A chat-reply wait registered at the same process meanwhile, saved with its own request.
	const wait = { id: 'wait-during-hand-over', customer: '+15550001111', sender: '', resumeUrl: `${url}/webhook-waiting/8/node-1?wait=wait-during-hand-over`, until: Date.now() + 3_600_000, askedAt: Date.now() };
	const body = JSON.stringify({ type: WAITS_MESSAGE_TYPE, action: 'register', wait });
	expect((await processes[0].send({ headers: { 'content-type': 'application/json', ...signatureHeaders(SECRET, body) }, body, path: `/webhook/${WAITS_PATH}` })).statusCode).toBe(200);
	const replyWaits = () => Object.keys(((processes[0].savedStaticData() as Record<string, IDataObject>)['node:Business Messaging Trigger']?.replyWaits ?? {}) as IDataObject);
	expect(replyWaits()).toContain('wait-during-hand-over');
	expect((await status).statusCode).toBe(200);
	expect(resumes.map((r) => r.status)).toEqual([200]);
	expect(replyWaits()).toContain('wait-during-hand-over');
});

test('a status a process counts while another of its status requests hands a run over (slowly) stays in the saved copy after that request saves: after a restart, the wait it left incomplete is handed it', async () => {
	await waitFor(['wamid.race-1']);
	const now = Date.now();
	const other = { id: 'status-wait-race-2', resumeUrl: `${url}/webhook-waiting/9/node-1?wait=status-wait-race-2`, until: now + 3_600_000, wanted: 'delivered', askedAt: now };
	await tellTrigger({ action: 'registerStatusWait', wait: other });
	await tellTrigger({ action: 'watch', watch: { id: 'status-watch-race-2', wait: other.id, messages: ['wamid.race-2', 'wamid.race-3'] } });
	resumeDelayMs = 2500;
	// The `read`-like status that completes the first wait loads the static data now and saves after its slow hand-over.
	const completing = report(processes[0], 'wamid.race-1', 'delivered');
	await new Promise((resolve) => setTimeout(resolve, 300));
	expect((await report(processes[0], 'wamid.race-2', 'delivered')).statusCode).toBe(200);
	expect((await completing).statusCode).toBe(200);
	resumeDelayMs = 0;
	// A restart: what the processes kept in memory is gone; only the saved copy holds the count answered 200.
	for (const end of endings.splice(0)) end();
	startProcesses();
	expect((await report(processes[1], 'wamid.race-3', 'delivered')).statusCode).toBe(200);
	const handed = resumes.filter((r) => r.status === 200).map((r) => JSON.parse(r.body) as { wait: string; statuses: IDataObject });
	expect(handed.map((h) => h.wait)).toEqual([WAIT_ID, other.id]);
	expect(handed[1].statuses).toMatchObject({ 'wamid.race-2': { status: 'delivered' }, 'wamid.race-3': { status: 'delivered' } });
});

test('three processes each take the last statuses of one wait at the same moment, their recounts at all three in turn (each saving over the others in both rounds): every status answered 200, and the run handed its summary once, with every status, by a later count of one of them', async () => {
	waitsProcesses = 3;
	const messages = Array.from({ length: 6 }, (_, i) => `wamid.three-${i}`);
	await waitFor(messages);
	const answers = await Promise.all(messages.map((id, i) => report(processes[i % 3], id, 'delivered')));
	expect(answers.map((a) => a.statusCode)).toEqual(messages.map(() => 200));
	// The counts after the answers come within 8 s (statusHandOver.ts, FOLLOW_UP_PAUSES_MS).
	const until = Date.now() + 12_000;
	while (resumes.every((r) => r.status !== 200) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
	const handed = resumes.filter((r) => r.status === 200);
	expect(handed).toHaveLength(1);
	const summary = JSON.parse(handed[0].body) as { statuses: Record<string, { status: string }> };
	expect(Object.entries(summary.statuses).map(([id, s]) => [id, s.status]).sort()).toEqual(messages.map((id) => [id, 'delivered']).sort());
}, 30_000);

test('a burst: 40 statuses of one wait at two processes at once are counted with a few recounts and saves, not one each; the run is handed all 40 once, and every status answered 200', async () => {
	const messages = Array.from({ length: 40 }, (_, i) => `wamid.burst-${i}`);
	const now = Date.now();
	await tellTrigger({ action: 'registerStatusWait', wait: { id: WAIT_ID, resumeUrl: `${url}/webhook-waiting/7/node-1?wait=${WAIT_ID}`, until: now + 3_600_000, wanted: 'delivered', askedAt: now } });
	await tellTrigger({ action: 'watch', watch: { id: 'status-watch-burst-1', wait: WAIT_ID, messages } });
	const savesBefore = database.saves ?? 0;
	const answers = await Promise.all(messages.map((id, i) => report(processes[i % 2], id, 'delivered')));
	expect(answers.map((a) => a.statusCode)).toEqual(messages.map(() => 200));
	const handed = resumes.filter((r) => r.status === 200);
	expect(handed).toHaveLength(1);
	const summary = JSON.parse(handed[0].body) as { statuses: Record<string, { status: string }> };
	expect(Object.keys(summary.statuses).sort()).toEqual([...messages].sort());
	expect(Object.values(summary.statuses).every((s) => s.status === 'delivered')).toBe(true);
	// Each status's own save, and one recount (another save) per status, were a thousand writes for 500 (docs/status-waits.md).
	expect(recounts).toBeLessThan(messages.length / 4);
	expect((database.saves ?? 0) - savesBefore).toBeLessThan(messages.length / 4);
});

test('a status its run went on without (answered 503 at first, its retry after the run was resumed; a delivered after the read that satisfied the wait): answered 200, no workflow started; a read after a wait for delivered starts it as before', async () => {
	await waitFor(['wamid.race-1', 'wamid.race-2']);
	waitsDown = true;
	expect((await report(processes[0], 'wamid.race-1', 'read')).statusCode).toBe(503);
	waitsDown = false;
	expect((await report(processes[1], 'wamid.race-2', 'delivered')).statusCode).toBe(200);
	expect(resumes.map((r) => r.status)).toEqual([200]);
	// The service sends the first status again; then the first message's delivered comes, late.
	for (const [process, status] of [[processes[0], 'read'], [processes[2], 'delivered']] as const) {
		const late = await report(process, 'wamid.race-1', status);
		expect([late.statusCode, late.workflowStarted, late.body]).toEqual([200, false, { received: true, statusForWaitingRun: true }]);
	}
	// The second message's read is more than the wait asked for: a status nobody waits for, as before.
	expect((await report(processes[1], 'wamid.race-2', 'read')).workflowStarted).toBe(true);
	expect(resumes.map((r) => r.status)).toEqual([200]);
});

describe('a fast service: statuses that come before the node names its messages, at another process than the naming', () => {
	const registerWait = async () => {
		const now = Date.now();
		await tellTrigger({ action: 'registerStatusWait', wait: { id: WAIT_ID, resumeUrl: `${url}/webhook-waiting/7/node-1?wait=${WAIT_ID}`, until: now + 3_600_000, wanted: 'read', askedAt: now } });
	};
	const watch = async (messages: string[]) => await tellTrigger({ action: 'watch', watch: { id: 'status-watch-early-1', wait: WAIT_ID, messages } });

	test('each is answered 200 and starts the trigger’s workflow (nobody waits for it yet), and the naming, at a process that never took one, finds them all: the wait is complete there', async () => {
		await registerWait();
		// Their requests start a run: n8n saves no static data for them (as in queue mode, where the naming's process loads only the saved copy).
		const early = await Promise.all([report(processes[0], 'wamid.early-1', 'delivered'), report(processes[0], 'wamid.early-1', 'read'), report(processes[1], 'wamid.early-2', 'read')]);
		expect(early.map((a) => [a.statusCode, a.workflowStarted])).toEqual([
			[200, true],
			[200, true],
			[200, true],
		]);
		const named = await watch(['wamid.early-1', 'wamid.early-2']);
		expect(named).toMatchObject({ watching: true, complete: true, statuses: { 'wamid.early-1': { status: 'read' }, 'wamid.early-2': { status: 'read' } } });
	});

	test('one of two before the naming: the naming has it, and the other’s read at a third process hands the run both', async () => {
		await registerWait();
		expect((await report(processes[0], 'wamid.early-1', 'read')).statusCode).toBe(200);
		expect(await watch(['wamid.early-1', 'wamid.early-2'])).toMatchObject({ complete: false, statuses: { 'wamid.early-1': { status: 'read' }, 'wamid.early-2': { status: null } } });
		expect((await report(processes[1], 'wamid.early-2', 'read')).statusCode).toBe(200);
		const handed = resumes.filter((r) => r.status === 200).map((r) => JSON.parse(r.body) as IDataObject);
		expect(handed).toMatchObject([{ wait: WAIT_ID, statuses: { 'wamid.early-1': { status: 'read' }, 'wamid.early-2': { status: 'read' } } }]);
	});

	test('a naming that another process loaded before the status was kept and saved after it (leaving it out): the status is kept again, and the naming finds it', async () => {
		await registerWait();
		const before = database.saved;
		let overwritten = false;
		afterWaitsRequest = (action) => {
			if (action !== 'keepStatuses' || overwritten) return;
			overwritten = true;
			database.saved = before;
		};
		expect((await report(processes[0], 'wamid.early-1', 'read')).statusCode).toBe(200);
		expect(overwritten).toBe(true);
		expect(await watch(['wamid.early-1', 'wamid.early-2'])).toMatchObject({ statuses: { 'wamid.early-1': { status: 'read' } } });
	});

	test('a naming that saved over the status and answered without it (the wait incomplete there): the status kept again completes the wait, and the run is handed its summary', async () => {
		await registerWait();
		const before = database.saved;
		let naming: Promise<IDataObject> | undefined;
		afterWaitsRequest = (action) => {
			if (action !== 'keepStatuses' || naming) return;
			// The naming's process loaded the saved copy before the status was kept there, and saves after.
			database.saved = before;
			naming = watch(['wamid.early-1']);
		};
		expect((await report(processes[0], 'wamid.early-1', 'read')).statusCode).toBe(200);
		expect(await naming).toMatchObject({ watching: true, complete: false });
		const handed = resumes.filter((r) => r.status === 200).map((r) => JSON.parse(r.body) as IDataObject);
		expect(handed).toMatchObject([{ wait: WAIT_ID, statuses: { 'wamid.early-1': { status: 'read' } } }]);
	});

	test('three processes each keep a status at the same moment, their keepings at all three in turn (each saving over the others), and the naming comes right after those first keepings: the naming, or a keeping again after it, completes the wait with all three; every status answered 200', async () => {
		waitsProcesses = 3;
		await registerWait();
		const messages = ['wamid.early-a', 'wamid.early-b', 'wamid.early-c'];
		let keepings = 0;
		let firstKept!: () => void;
		const firstKeepings = new Promise<void>((resolve) => (firstKept = resolve));
		afterWaitsRequest = (action) => {
			if (action === 'keepStatuses' && ++keepings === messages.length) firstKept();
		};
		const answers = Promise.all(messages.map((id, i) => report(processes[i], id, 'read')));
		await firstKeepings;
		const named = await watch(messages);
		expect((await answers).map((a) => a.statusCode)).toEqual([200, 200, 200]);
		const every = Object.fromEntries(messages.map((id) => [id, { status: 'read' }]));
		const handed = resumes.filter((r) => r.status === 200).map((r) => JSON.parse(r.body) as IDataObject);
		// Complete at the naming: the node goes on at once with what it answered, and nothing is handed over.
		if (named.complete === true) expect([named.statuses, handed]).toMatchObject([every, []]);
		else expect(handed).toMatchObject([{ wait: WAIT_ID, statuses: every }]);
	}, 30_000);

	test('when the trigger cannot ask its waits webhook: answered 503 (the service sends it again), no workflow started', async () => {
		await registerWait();
		waitsDown = true;
		const answer = await report(processes[0], 'wamid.early-1', 'read');
		expect([answer.statusCode, answer.workflowStarted]).toEqual([503, false]);
	});
});

describe('Also Start This Workflow for Statuses', () => {
	beforeEach(() => startProcesses({ alsoStartForStatuses: true }));

	/** What each answer did: its status code, whether it started the trigger's workflow, and the item's mark. */
	const started = (answers: Webhook.WebhookOutcome[]) => answers.map((a) => [a.statusCode, a.workflowStarted, (a.items[0]?.json as IDataObject | undefined)?.statusForWaitingRun]);

	test('the last two statuses of a wait taken by two processes at once: the run is handed its summary once, and both start the trigger’s workflow, marked', async () => {
		await waitFor(['wamid.race-1', 'wamid.race-2']);
		const answers = await Promise.all([report(processes[0], 'wamid.race-1', 'delivered'), report(processes[1], 'wamid.race-2', 'delivered')]);
		expect(started(answers)).toEqual([
			[200, true, true],
			[200, true, true],
		]);
		expectHandedOnce();
	});

	test('a status that leaves its wait incomplete with nobody else counting: its count saved, no summary, the trigger’s workflow started, marked', async () => {
		await waitFor(['wamid.race-1', 'wamid.race-2']);
		const answer = await report(processes[0], 'wamid.race-1', 'read');
		expect(started([answer])).toEqual([[200, true, true]]);
		expect(resumes).toEqual([]);
		// n8n saves no static data for a request that starts a run: the count is in the database through the waits webhook.
		const saved = (processes[0].savedStaticData() as Record<string, IDataObject>)['node:Business Messaging Trigger'];
		expect(Object.keys((saved.messageStatuses ?? {}) as IDataObject)).toEqual(['wamid.race-1']);
	});

	test('the status that completes a wait ends it in the saved copy: a later status of the message, at another process, hands nothing over again and is answered 200', async () => {
		await waitFor(['wamid.race-1']);
		expect(started([await report(processes[0], 'wamid.race-1', 'delivered')])).toEqual([[200, true, true]]);
		// Another process (no memory of the hand-over) takes the message's read: the wait it completed is over, so the
		// read starts the trigger's workflow as a status nobody waits for (unmarked).
		expect(started([await report(processes[1], 'wamid.race-1', 'read')])).toEqual([[200, true, undefined]]);
		expect(resumes.map((r) => r.status)).toEqual([200]);
	});

	test('a status that leaves its wait incomplete when the trigger cannot ask its waits webhook: answered 503 (the retry counts again), no workflow started', async () => {
		await waitFor(['wamid.race-1', 'wamid.race-2']);
		waitsDown = true;
		const answer = await report(processes[0], 'wamid.race-1', 'delivered');
		expect([answer.statusCode, answer.workflowStarted]).toEqual([503, false]);
		expect(resumes).toEqual([]);
	});
});
