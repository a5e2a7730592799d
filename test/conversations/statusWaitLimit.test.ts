/**
 * A send's Wait for Status at its Limit Wait Time, in process (test/helpers/statusWait.ts): the trigger keeps the
 * limit itself and hands the run what it counted by then, also across a restart, n8n starting up, another workflow
 * sharing, and a run that could not take the summary. The rest of the wait: statusWait.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

// First: it loads n8n-core's engine once its user folder is set (helpers/engine.ts).
import { useStatusWait } from '../helpers/statusWait';
import { ANOTHER_SHARER, type ResumeCall, type TriggerStandIn } from '../helpers/conversation';
import type { Sandbox } from '../../tools/sandbox';
import { LIMIT_FALLBACK_MS } from '../../nodes/shared/sharing';
import { forgetRegistrations } from '../../nodes/BusinessMessagingTrigger/sharing/registry';

const statusWait = useStatusWait();
const { send, report, ids, posted, resumeWith, atLimit } = statusWait;
let sandbox: Sandbox;
let standIn: TriggerStandIn;
beforeEach(() => ({ sandbox, standIn } = statusWait.current()));

/** Resolves once `done` holds, or after `withinMs`. */
async function until(done: () => boolean, withinMs = 15_000): Promise<void> {
	for (const giveUpAt = Date.now() + withinMs; !done() && Date.now() < giveUpAt; ) await new Promise((r) => setTimeout(r, 50));
}

/** Resolves once the trigger posted `count` summaries to resume addresses (it keeps Limit Wait Time itself). */
async function postedSoon(count: number, withinMs = 15_000): Promise<ResumeCall[]> {
	await until(() => posted().length >= count, withinMs);
	return posted();
}

test('at Limit Wait Time the trigger hands the run what it counted by then: reached: false, with the delivered that came during the wait', async () => {
	const before = Date.now();
	const run = await send({ statusWaitLimit: 0.1, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	const [id] = ids();
	// n8n's own resume is only the fallback, LIMIT_FALLBACK_MS after the limit (6 s after the node began).
	const fallbackAfter = run.run.waitTill!.getTime() - 6_000 - LIMIT_FALLBACK_MS;
	expect([fallbackAfter >= before, fallbackAfter <= Date.now()]).toEqual([true, true]);
	expect(atLimit(run)).toEqual([expect.objectContaining({ status: null })]);
	expect(await report(id, 'delivered')).toBe(200);
	const [call] = await postedSoon(1);
	const outcome = await resumeWith(run, call);
	expect(outcome.resumedWith).toMatchObject({ message_id: id, wanted: 'read', reached: false, status: 'delivered', deliveredAt: sandbox.messages[0].statuses[0].at, readAt: null });
	// The run went on (the trigger answered its own request at the limit once the wait's end was saved): a read
	// after that is news to nobody waiting, and flows to the trigger's workflow.
	await until(() => standIn.answers.some((a) => (a.body as IDataObject)?.handed === true));
	expect(await report(id, 'read')).toBe(200);
	expect(standIn.events.map((e) => e.workflowStarted)).toEqual([false, true]);
	expect(posted()).toHaveLength(1);
});

test('after a restart during the wait, the next request of the trigger keeps the limit again: the run still gets what was counted', async () => {
	const run = await send({ statusWaitLimit: 0.1, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	forgetRegistrations(); // n8n restarted: the limits this process kept are gone
	expect(await report(ids()[0], 'delivered')).toBe(200);
	const [call] = await postedSoon(1);
	expect((await resumeWith(run, call)).resumedWith).toMatchObject({ reached: false, status: 'delivered' });
});

test('after a restart during the wait, a customer’s message to the trigger (no status, no request of the waits webhook) keeps the limit again: at the limit the run gets the delivered counted before the restart', async () => {
	const run = await send({ statusWaitLimit: 0.1, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	expect(await report(ids()[0], 'delivered')).toBe(200);
	forgetRegistrations(); // n8n restarted: the limits this process kept are gone
	const waitsRequests = standIn.answers.length;
	const message = sandbox.customerMessage({ from: '+4915100000042', body: 'Where is my order?' });
	await until(() => message.attempts.length > 0 && message.attempts[0].status !== null);
	expect(message.attempts[0].status).toBe(200);
	const [call] = await postedSoon(1);
	// The waits webhook answers the hand-over once the run's resume call is made: wait for that answer too.
	await until(() => standIn.answers.slice(waitsRequests).some((a) => (a.body as IDataObject)?.handed === true));
	// Nothing but the limit asked the waits webhook after the restart: the message alone kept the limit.
	expect(standIn.answers.slice(waitsRequests).map((a) => (a.body as IDataObject)?.handed)).toEqual([true]);
	expect((await resumeWith(run, call)).resumedWith).toMatchObject({ reached: false, status: 'delivered' });
});

test('at Limit Wait Time, n8n answering 200 "n8n is starting up" (its database not ready) is no hand-over: the trigger asks again and the run is handed its summary', async () => {
	const run = await send({ statusWaitLimit: 0.05, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	const limit = Date.now() + 3000;
	standIn.set({ startingUp: true });
	// Past the limit, with the limit's hand-over answered so (nothing else asks: no status comes).
	await until(() => Date.now() > limit && standIn.startingUpAnswers > 0, 15_000);
	standIn.set({ startingUp: false });
	const [call] = await postedSoon(1, 20_000);
	expect((await resumeWith(run, call)).resumedWith).toMatchObject({ reached: false });
	// The waits webhook answers the hand-over once the run took it: after the POST above.
	const handed = () => standIn.answers.filter((a) => (a.body as IDataObject)?.handed === true);
	await until(() => handed().length > 0);
	expect(handed()).toHaveLength(1);
});

test('a status whose count n8n itself answers 200 "n8n is starting up" (a webhook process whose database is not ready) is answered 503, not 200, so the service sends it again; the retry is counted', async () => {
	const run = await send({ statusWaitLimit: 0.15, statusWaitUnit: 'minutes' });
	standIn.set({ startingUp: true });
	expect(await report(ids()[0], 'delivered')).toBe(503);
	standIn.set({ startingUp: false });
	expect(await report(ids()[0], 'delivered')).toBe(200);
	const [call] = await postedSoon(1, 20_000);
	expect((await resumeWith(run, call)).resumedWith).toMatchObject({ reached: false, status: 'delivered' });
});

test('at Limit Wait Time while another workflow shares (this trigger’s workflow off, the other on its URL): the other one’s answer is no hand-over; once this one is back, the run is handed the delivered it counted', async () => {
	const run = await send({ statusWaitLimit: 0.1, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	expect(await report(ids()[0], 'delivered')).toBe(200);
	standIn.set({ sharedBy: 'another' });
	// The other trigger's answer to the hand-over at the limit: it knows no such wait.
	const limitAnsweredByAnother = () =>
		standIn.answers.some((a) => 'handed' in (a.body as IDataObject) && ((a.body as IDataObject).workflow as IDataObject)?.id === ANOTHER_SHARER);
	await until(limitAnsweredByAnother, 20_000);
	expect([limitAnsweredByAnother(), posted().length]).toEqual([true, 0]);
	standIn.set({ sharedBy: 'this' });
	const calls = await postedSoon(1, 20_000);
	expect(calls).toHaveLength(1);
	expect((await resumeWith(run, calls[0])).resumedWith).toMatchObject({ reached: false, status: 'delivered' });
});

test('a status whose count another sharing workflow answers (the moment this trigger’s workflow is switched off and the other on) is answered 503, not 200, so the service sends it again; the retry is counted', async () => {
	const run = await send({ statusWaitLimit: 0.15, statusWaitUnit: 'minutes' });
	standIn.set({ sharedBy: 'another for waits' });
	expect(await report(ids()[0], 'delivered')).toBe(503);
	// The other trigger was asked to count it, and knows no such wait.
	expect(standIn.answers.some((a) => ((a.body as IDataObject).workflow as IDataObject)?.id === ANOTHER_SHARER)).toBe(true);
	standIn.set({ sharedBy: 'this' });
	expect(await report(ids()[0], 'delivered')).toBe(200);
	const [call] = await postedSoon(1, 20_000);
	expect((await resumeWith(run, call)).resumedWith).toMatchObject({ reached: false, status: 'delivered' });
});

test('at Limit Wait Time, a run n8n could not take the summary for (500) is handed it again', async () => {
	let refused = 0;
	const answer = standIn.answerResume;
	standIn.answerResume = (call) => (call.method === 'POST' && refused++ === 0 ? { status: 500, body: { message: 'busy' } } : answer(call));
	const run = await send({ statusWaitLimit: 0.05, statusWaitUnit: 'minutes' });
	expect(run.run.status).toBe('waiting');
	const calls = await postedSoon(2, 20_000);
	expect(calls).toHaveLength(2);
	expect(JSON.parse(calls[1].body)).toEqual(JSON.parse(calls[0].body));
	expect((await resumeWith(run, calls[1])).resumedWith).toMatchObject({ reached: false, status: null });
});
