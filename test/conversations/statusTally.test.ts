/**
 * Where the statuses of awaited messages live (nodes/BusinessMessagingTrigger/sharing/statusWaits.ts and
 * messageStatuses.ts): requests that overlap as they do in n8n (each with its own copy of the trigger's static
 * data, saved in some order, last write winning), each taking in one status. Every status must survive a save
 * that did not know it, in the process that took it in, and the tally must not depend on order or repeats.
 */
import { KEEP_UNWATCHED_MS, MAX_MESSAGE_STATUSES } from '../../nodes/BusinessMessagingTrigger/sharing/messageStatuses';
import { forgetRegistrations } from '../../nodes/BusinessMessagingTrigger/sharing/registry';
import { StatusBook } from '../../nodes/BusinessMessagingTrigger/sharing/statusWaits';
import { StaticDataRow } from '../helpers/staticData';

const T0 = Date.UTC(2026, 10, 1, 12);
const SCOPE = 'workflow/trigger';
const WAIT = { id: 'status-wait-1', resumeUrl: 'http://n8n/webhook-waiting/1/node?wait=status-wait-1', until: T0 + 3_600_000, wanted: 'delivered' as const, askedAt: T0 };

beforeEach(() => forgetRegistrations());

/** One request of the trigger: loads, does `work`, writes back; the caller saves when it likes. */
function request(db: StaticDataRow, nowMs: number, work: (book: StatusBook) => void = () => {}) {
	const copy = db.load();
	const book = new StatusBook(SCOPE, copy, nowMs);
	work(book);
	book.writeBack();
	return copy;
}

function watched(db: StaticDataRow, messages: string[]): void {
	db.save(request(db, T0, (book) => book.waits.register(WAIT)));
	db.save(request(db, T0 + 10, (book) => book.watches.watch({ id: 'watch-0001', wait: WAIT.id, messages }, book.waits.get(WAIT.id)!)));
}

const tally = (db: StaticDataRow, nowMs: number) => {
	const book = new StatusBook(SCOPE, db.load(), nowMs);
	const watch = book.watches.get('watch-0001')!;
	return book.tally(watch, book.waits.get(WAIT.id)!);
};

test('two overlapping requests, each taking in a status, saved in either order: both statuses are in the saved copy (rule 1)', () => {
	for (const order of [[0, 1], [1, 0]]) {
		forgetRegistrations();
		const db = new StaticDataRow();
		watched(db, ['wamid.1', 'wamid.2']);
		const copies = [
			request(db, T0 + 100, (book) => book.statuses.take('wamid.1', 'delivered', T0 + 90)),
			request(db, T0 + 101, (book) => book.statuses.take('wamid.2', 'delivered', T0 + 91)),
		];
		for (const i of order) db.save(copies[i]);
		expect(tally(db, T0 + 200)).toMatchObject({ complete: true, statuses: { 'wamid.1': { status: 'delivered' }, 'wamid.2': { status: 'delivered' } } });
	}
});

test('a request that loaded before another took a status in, and writes back after it (a slow hand-over): its save keeps that status, and so does every later save of the process', () => {
	for (const order of [[0, 1], [1, 0]]) {
		forgetRegistrations();
		const db = new StaticDataRow();
		watched(db, ['wamid.1', 'wamid.2']);
		const beforeCopy = db.load();
		// The slow request (a `read` handing its run over, seconds in n8n) loads first and writes back last.
		const slowCopy = db.load();
		const slow = new StatusBook(SCOPE, slowCopy, T0 + 100);
		slow.statuses.take('wamid.2', 'read', T0 + 95);
		const quickCopy = request(db, T0 + 101, (book) => book.statuses.take('wamid.1', 'delivered', T0 + 90));
		slow.writeBack();
		const copies = [quickCopy, slowCopy];
		for (const i of order) db.save(copies[i]);
		expect(tally(db, T0 + 200).statuses['wamid.1']).toMatchObject({ status: 'delivered', deliveredAt: new Date(T0 + 90).toISOString() });
		// The process still puts it back: a later save from a copy loaded before any of this holds it too.
		const later = new StatusBook(SCOPE, beforeCopy, T0 + 300);
		later.writeBack();
		db.save(beforeCopy);
		expect(tally(db, T0 + 400).statuses['wamid.1'].status).toBe('delivered');
	}
});

test('a request of the process that does not know the watch (registered at another process, loaded before that save) does not make the process forget a status it took in: its next save that knows the watch puts it back', () => {
	const db = new StaticDataRow();
	const beforeTheWait = db.load();
	watched(db, ['wamid.1', 'wamid.2']);
	forgetRegistrations(); // the wait and its watch were registered at another process
	// This process takes the status in; its save is overwritten by the other process (which did not know it).
	const withStatus = request(db, T0 + 100, (book) => book.statuses.take('wamid.1', 'delivered', T0 + 90));
	expect(withStatus.messageStatuses).toHaveProperty(['wamid.1']);
	// A request of this process that loaded before the wait was saved: it knows neither the wait nor the watch.
	new StatusBook(SCOPE, beforeTheWait, T0 + 101).writeBack();
	// The process's next request, from the saved copy without the status, puts it back.
	db.save(request(db, T0 + 102));
	expect(tally(db, T0 + 200).statuses['wamid.1']).toMatchObject({ status: 'delivered', deliveredAt: new Date(T0 + 90).toISOString() });
});

test('without rule 1 (another process took the other status in) such a save drops it: queue mode’s race, which the recount after the pause closes (statusRace.test.ts)', () => {
	const db = new StaticDataRow();
	watched(db, ['wamid.1', 'wamid.2']);
	const stale = db.load();
	db.save(request(db, T0 + 100, (book) => book.statuses.take('wamid.1', 'delivered', T0 + 90)));
	forgetRegistrations(); // the stale request ran in another process
	const other = new StatusBook(SCOPE, stale, T0 + 101);
	other.statuses.take('wamid.2', 'delivered', T0 + 91);
	other.writeBack();
	db.save(stale);
	expect(tally(db, T0 + 200).statuses['wamid.1'].status).toBeNull();
});

test('out of order and twice: the furthest status, and each status’s earliest time', () => {
	const db = new StaticDataRow();
	watched(db, ['wamid.1']);
	db.save(request(db, T0 + 100, (book) => book.statuses.take('wamid.1', 'read', T0 + 80)));
	db.save(request(db, T0 + 101, (book) => book.statuses.take('wamid.1', 'delivered', T0 + 50)));
	db.save(request(db, T0 + 102, (book) => book.statuses.take('wamid.1', 'delivered', T0 + 70)));
	db.save(request(db, T0 + 103, (book) => book.statuses.take('wamid.1', 'sent', T0 + 10)));
	expect(tally(db, T0 + 200).statuses['wamid.1']).toEqual({ status: 'read', deliveredAt: new Date(T0 + 50).toISOString(), readAt: new Date(T0 + 80).toISOString() });
});

test('a status before the watch is kept while a wait names its messages, and counts once it does', () => {
	const db = new StaticDataRow();
	db.save(request(db, T0, (book) => book.waits.register(WAIT)));
	db.save(request(db, T0 + 5, (book) => book.statuses.take('wamid.1', 'delivered', T0 + 5)));
	forgetRegistrations(); // a restart in between: the saved copy holds it
	db.save(request(db, T0 + 10, (book) => book.watches.watch({ id: 'watch-0001', wait: WAIT.id, messages: ['wamid.1'] }, book.waits.get(WAIT.id)!)));
	expect(tally(db, T0 + 20).complete).toBe(true);
});

test('a status nobody waits for, with no wait naming its messages, is not kept', () => {
	const db = new StaticDataRow();
	db.save(request(db, T0, (book) => book.statuses.take('wamid.9', 'delivered', T0)));
	expect(db.saved.messageStatuses ?? {}).toEqual({});
});

test('kept statuses are bounded: at most MAX_MESSAGE_STATUSES, and those a wait may still name only for a while', () => {
	const db = new StaticDataRow();
	db.save(request(db, T0, (book) => book.waits.register(WAIT)));
	db.save(
		request(db, T0 + 1, (book) => {
			for (let n = 0; n < MAX_MESSAGE_STATUSES + 10; n++) book.statuses.take(`wamid.${n}`, 'sent', T0);
		}),
	);
	expect(Object.keys(db.saved.messageStatuses as object)).toHaveLength(MAX_MESSAGE_STATUSES);
	forgetRegistrations();
	db.save(request(db, T0 + 1 + KEEP_UNWATCHED_MS + 1));
	expect(db.saved.messageStatuses).toEqual({});
});
