/**
 * Where the waits live (nodes/BusinessMessagingTrigger/sharing/waits.ts): n8n loads the trigger's
 * static data afresh for each request and saves the whole of it afterwards, last write winning. These
 * tests play requests that overlap as they do in n8n (each with its own copy, saved in some order) and
 * check that a registration survives a save that did not know it, and that a done wait stays done.
 */
import type { IDataObject } from 'n8n-workflow';

import { forgetRegistrations, PROTECT_MS } from '../../nodes/BusinessMessagingTrigger/sharing/registry';
import { MAX_WAITS, Waits } from '../../nodes/BusinessMessagingTrigger/sharing/waits';
import type { WaitRegistration } from '../../nodes/shared/sharing';
import { StaticDataRow } from '../helpers/staticData';

const T0 = Date.UTC(2026, 10, 1, 12);
const SCOPE = 'workflow/trigger';

function registration(id: string, customer = '+15550001111', extra: Partial<WaitRegistration> = {}): WaitRegistration {
	return { id, customer, sender: '', resumeUrl: `http://n8n/webhook-waiting/${id}/node?wait=${id}`, until: 0, askedAt: T0, ...extra };
}

beforeEach(() => forgetRegistrations());

/** One request of the trigger: loads its copy, does `work`, writes back and saves at once. */
function request(db: StaticDataRow, nowMs: number, work: (waits: Waits) => void = () => {}): void {
	const copy = db.load();
	const waits = new Waits(SCOPE, copy, nowMs);
	work(waits);
	waits.writeBack();
	db.save(copy);
}

test('a registration is saved with the request that registers it', () => {
	const db = new StaticDataRow();
	const copy = db.load();
	const waits = new Waits(SCOPE, copy, T0);
	waits.register(registration('wait-0001'));
	waits.writeBack();
	db.save(copy);
	expect(new Waits(SCOPE, db.load(), T0).saved('wait-0001')).toBe(true);
});

test('a request that loaded before the registration and saves after it puts it back (rule 1), in the process that got it', () => {
	const db = new StaticDataRow();
	const stale = db.load(); // another request of the trigger, loaded earlier
	const copy = db.load();
	const waits = new Waits(SCOPE, copy, T0);
	waits.register(registration('wait-0001'));
	waits.writeBack();
	db.save(copy);
	// The earlier request of this process writes back what it loaded (nothing) plus what this process got.
	new Waits(SCOPE, stale, T0 + 500).writeBack();
	db.save(stale);
	expect(new Waits(SCOPE, db.load(), T0 + 600).saved('wait-0001')).toBe(true);
});

test('without rule 1 (another process, or after PROTECT_MS) such a save drops it: what the asking node’s check catches', () => {
	const db = new StaticDataRow();
	const stale = db.load();
	const copy = db.load();
	const waits = new Waits(SCOPE, copy, T0);
	waits.register(registration('wait-0001'));
	waits.writeBack();
	db.save(copy);
	forgetRegistrations(); // the stale request ran in another process
	stale.marker = 1; // it changed something else, so n8n saves its copy
	db.save(stale);
	expect(new Waits(SCOPE, db.load(), T0 + 600).saved('wait-0001')).toBe(false);
});

test('a process stops putting a registration back after PROTECT_MS', () => {
	const db = new StaticDataRow();
	const copy = db.load();
	new Waits(SCOPE, copy, T0).register(registration('wait-0001'));
	const empty = db.load();
	new Waits(SCOPE, empty, T0 + PROTECT_MS + 1).writeBack();
	expect(new Waits(SCOPE, empty, T0 + PROTECT_MS + 2).saved('wait-0001')).toBe(false);
});

test('a wait marked done stays done: rule 1 of the process that registered it does not bring it back', () => {
	const db = new StaticDataRow();
	request(db, T0, (waits) => waits.register(registration('wait-0001')));
	request(db, T0 + 1000, (byReply) => {
		expect(byReply.for('+15550001111', '+15559990000').map((w) => w.id)).toEqual(['wait-0001']);
		byReply.done('wait-0001');
	});
	// Another request, another process or this one: the wait is not offered again.
	const later = db.load();
	const again = new Waits(SCOPE, later, T0 + 2000);
	expect(again.for('+15550001111', '+15559990000')).toEqual([]);
	again.writeBack();
	db.save(later);
	expect(new Waits(SCOPE, db.load(), T0 + 3000).for('+15550001111', '')).toEqual([]);
});

test('a done mark stays after a request that loaded before it writes back last (a slow hand-over), also once another request saw the mark saved', () => {
	const db = new StaticDataRow();
	request(db, T0, (waits) => waits.register(registration('wait-0001')));
	// The slow request (handing another event over, seconds in n8n) loads while the wait is live.
	const slowCopy = db.load();
	const slow = new Waits(SCOPE, slowCopy, T0 + 900);
	request(db, T0 + 1000, (byReply) => byReply.done('wait-0001', 'delivery-1'));
	// A quick request sees the mark saved.
	request(db, T0 + 1100);
	slow.writeBack();
	db.save(slowCopy);
	const after = new Waits(SCOPE, db.load(), T0 + 2000);
	expect(after.for('+15550001111', '')).toEqual([]);
	// A retry of the reply that resumed the run is known as such (handOver.ts: it starts nothing).
	expect(after.resumedBy('delivery-1')).toBe(true);
});

test('matching: the customer and the sender number as digits, any sender when none was set, the newest question first', () => {
	const copy: IDataObject = {};
	const waits = new Waits(SCOPE, copy, T0);
	waits.register(registration('older-wait', '+1 555 000 1111', { askedAt: T0 - 5000 }));
	waits.register(registration('newer-wait', '15550001111', { askedAt: T0 - 1000, sender: '+15559990000' }));
	waits.register(registration('other-customer', '+15550002222'));
	expect(waits.for('+15550001111', '+1 (555) 999-0000').map((w) => w.id)).toEqual(['newer-wait', 'older-wait']);
	expect(waits.for('+15550001111', '+15559990077').map((w) => w.id)).toEqual(['older-wait']);
	expect(waits.for('+15550003333', '+15559990000')).toEqual([]);
});

test('a wait is dropped ten minutes after its limit, and the oldest questions beyond MAX_WAITS', () => {
	const copy: IDataObject = {};
	const waits = new Waits(SCOPE, copy, T0);
	waits.register(registration('limited-wait', '+15550001111', { until: T0 + 60_000 }));
	waits.writeBack();
	forgetRegistrations();
	expect(new Waits(SCOPE, copy, T0 + 60_000 + 9 * 60_000).for('+15550001111', '').length).toBe(1);
	const late = new Waits(SCOPE, copy, T0 + 60_000 + 11 * 60_000);
	expect(late.for('+15550001111', '')).toEqual([]);
	late.writeBack();
	expect(late.saved('limited-wait')).toBe(false);

	const many: IDataObject = {};
	const full = new Waits(SCOPE, many, T0);
	for (let i = 0; i < MAX_WAITS + 5; i++) full.register(registration(`wait-${String(i).padStart(5, '0')}`, '+15550001111', { askedAt: T0 + i }));
	full.writeBack();
	forgetRegistrations();
	const kept = new Waits(SCOPE, many, T0);
	expect(kept.saved('wait-00004')).toBe(false);
	expect(kept.saved('wait-00005')).toBe(true);
	expect(kept.for('+15550001111', '').length).toBe(MAX_WAITS);
});

test('a request that changes nothing leaves the static data untouched (n8n then saves nothing)', () => {
	const copy: IDataObject = {};
	new Waits(SCOPE, copy, T0).writeBack();
	expect(copy).toEqual({});
});
