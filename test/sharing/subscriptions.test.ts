/**
 * Where the trigger workflows that receive through the sharing trigger are kept
 * (nodes/BusinessMessagingTrigger/sharing/subscriptions.ts, under the rules of registry.ts): n8n loads the
 * sharing trigger's static data afresh for each request and saves it whole afterwards, last write winning.
 * These tests play requests that overlap as they do in n8n and check what each workflow then receives.
 */
import type { IDataObject } from 'n8n-workflow';

import { forgetRegistrations } from '../../nodes/BusinessMessagingTrigger/sharing/registry';
import { Subscriptions } from '../../nodes/BusinessMessagingTrigger/sharing/subscriptions';
import type { SubscriptionRegistration } from '../../nodes/shared/sharing';
import { StaticDataRow } from '../helpers/staticData';

const T0 = Date.UTC(2026, 10, 28, 12);
const SCOPE = 'sharing-workflow/trigger';

function registration(id: string, key = 'orders-wf/node-1', extra: Partial<SubscriptionRegistration> = {}): SubscriptionRegistration {
	return { id, key, url: `http://n8n/webhook/${key}/webhook`, events: ['order.created'], ignoreStatuses: [], workflow: 'Orders', registeredAt: T0, until: 0, ...extra };
}

/** One request: loads, does `what`, writes back, saves. */
function request(db: StaticDataRow, nowMs: number, what: (s: Subscriptions) => void = () => {}): void {
	const copy = db.load();
	const subscriptions = new Subscriptions(SCOPE, copy, nowMs);
	what(subscriptions);
	subscriptions.writeBack();
	db.save(copy);
}

const receivers = (db: StaticDataRow, event: string, data: IDataObject = {}, nowMs = T0 + 5000) => new Subscriptions(SCOPE, db.load(), nowMs).for(event, data).map((s) => s.id);

beforeEach(() => forgetRegistrations());

test('a trigger workflow gets the events its Events select, and not the message statuses it ignores', () => {
	const db = new StaticDataRow();
	request(db, T0, (s) => {
		s.register(registration('sub-orders-1'));
		s.register(registration('sub-all-0001', 'all-wf/node', { events: ['*'], ignoreStatuses: ['sent'] }));
	});
	expect(receivers(db, 'order.created')).toEqual(['sub-orders-1', 'sub-all-0001']);
	expect(receivers(db, 'contact.created')).toEqual(['sub-all-0001']);
	expect(receivers(db, 'message.status.updated', { status: 'sent' })).toEqual([]);
	expect(receivers(db, 'message.status.updated', { status: 'read' })).toEqual(['sub-all-0001']);
	expect(receivers(db, 'some.new.event')).toEqual(['sub-all-0001']);
});

test('a trigger registered again (its workflow activated again) gets each event once, at its new registration', () => {
	const db = new StaticDataRow();
	request(db, T0, (s) => s.register(registration('sub-first-1')));
	request(db, T0 + 1000, (s) => s.register(registration('sub-second-1', undefined, { registeredAt: T0 + 1000, events: ['order.created', 'order.status.updated'] })));
	expect(receivers(db, 'order.created')).toEqual(['sub-second-1']);
	expect(receivers(db, 'order.status.updated')).toEqual(['sub-second-1']);
});

test('a request that loaded before the registration and saves after it puts it back (rule 1), in the process that got it', () => {
	const db = new StaticDataRow();
	const stale = db.load();
	request(db, T0, (s) => s.register(registration('sub-orders-1')));
	new Subscriptions(SCOPE, stale, T0 + 500).writeBack();
	db.save(stale);
	expect(receivers(db, 'order.created')).toEqual(['sub-orders-1']);
});

test('without rule 1 (another process, or after PROTECT_MS) such a save drops it: what the registering trigger’s check catches, registering again', () => {
	const db = new StaticDataRow();
	const stale = db.load();
	request(db, T0, (s) => s.register(registration('sub-orders-1')));
	forgetRegistrations(); // the stale request ran in another process
	new Subscriptions(SCOPE, stale, T0 + 500).writeBack();
	db.save(stale);
	expect(new Subscriptions(SCOPE, db.load(), T0 + 600).saved('sub-orders-1')).toBe(false);
});

test('a deactivated workflow stays ended although a stale save did not know it (rule 2); its next activation is live', () => {
	const db = new StaticDataRow();
	request(db, T0, (s) => s.register(registration('sub-first-1')));
	forgetRegistrations();
	const stale = db.load(); // a request of the sharing trigger that started a run: n8n saves nothing of it
	request(db, T0 + 1000, (s) => s.end('orders-wf/node-1', 'deactivated'));
	new Subscriptions(SCOPE, stale, T0 + 1500).writeBack();
	db.save(stale); // saved over the end
	expect(receivers(db, 'order.created', {}, T0 + 1600)).toEqual([]);
	request(db, T0 + 2000, (s) => s.register(registration('sub-second-1', undefined, { registeredAt: T0 + 2000 })));
	expect(receivers(db, 'order.created', {}, T0 + 2100)).toEqual(['sub-second-1']);
});

test('a test listener goes a minute after it stops listening; a workflow ended for good is dropped after its done mark is kept', () => {
	const db = new StaticDataRow();
	request(db, T0, (s) => s.register(registration('sub-listen-1', 'orders-wf/node-1/test', { until: T0 + 120_000 })));
	expect(receivers(db, 'order.created', {}, T0 + 100_000)).toEqual(['sub-listen-1']);
	expect(receivers(db, 'order.created', {}, T0 + 181_000)).toEqual([]);
	request(db, T0 + 181_000);
	expect(new Subscriptions(SCOPE, db.load(), T0 + 181_000).saved('sub-listen-1')).toBe(false);
});
