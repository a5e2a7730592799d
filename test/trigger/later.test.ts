/**
 * The trigger's work done later (sharing/later.ts: a status wait's limit, the follow-up counts of a burst): run
 * when due, once; what it throws logged and the process going on (nothing awaits it, and a rejection nobody
 * catches ends n8n's process); forgotten on a restart.
 */
import type { Logger } from 'n8n-workflow';
import { doLater, isPending } from '../../nodes/BusinessMessagingTrigger/sharing/later';
import { forgetRegistrations } from '../../nodes/BusinessMessagingTrigger/sharing/registry';

const pause = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

function recordingLogger(): { logger: Logger; warnings: string[] } {
	const warnings: string[] = [];
	const ignore = () => undefined;
	return { warnings, logger: { error: ignore, warn: (message: string) => warnings.push(message), info: ignore, debug: ignore } };
}

afterEach(() => forgetRegistrations());

test('work runs once, at its time and not before; the one asked for last under a key replaces the one before', async () => {
	const { logger } = recordingLogger();
	const ran: string[] = [];
	const at = Date.now() + 300;
	doLater('a', { at, logger, what: 'test', run: async () => void ran.push(`a at +${Date.now() - at} ms`) });
	doLater('b', { at: at + 100, logger, what: 'test', run: async () => void ran.push('b, replaced') });
	doLater('b', { at: at + 100, logger, what: 'test', run: async () => void ran.push('b') });
	await pause(150);
	expect(ran).toEqual([]);
	expect(isPending('a')).toBe(true);
	await pause(1500);
	expect(ran.map((r) => r.replace(/ at .*/, ''))).toEqual(['a', 'b']);
	// Due sooner than the loop's longest sleep (1 s): on time, not at the next whole second (700 ms late; 600 leaves room for a busy machine).
	expect(Number(/\+(\d+) ms/.exec(ran[0])![1])).toBeLessThan(600);
	expect(isPending('a') || isPending('b')).toBe(false);
});

test('work that throws (after its request ended, so nothing awaits it) is logged as a warning saying what failed, and later work still runs', async () => {
	const { logger, warnings } = recordingLogger();
	const unhandled: unknown[] = [];
	const onUnhandled = (reason: unknown) => unhandled.push(reason);
	process.on('unhandledRejection', onUnhandled);
	try {
		const ran: string[] = [];
		doLater('fails', { at: Date.now() + 50, logger, what: 'count a status wait again', run: async () => { throw new Error('the credential could not be read'); } });
		doLater('after', { at: Date.now() + 400, logger, what: 'test', run: async () => void ran.push('after') });
		await pause(1200);
		expect(warnings).toEqual(['Business Messaging Trigger: could not count a status wait again (the credential could not be read)']);
		expect(ran).toEqual(['after']);
		expect(unhandled).toEqual([]);
	} finally {
		process.off('unhandledRejection', onUnhandled);
	}
});

test('a restart forgets work not yet done (tests: forgetRegistrations)', async () => {
	const { logger } = recordingLogger();
	const ran: string[] = [];
	doLater('forgotten', { at: Date.now() + 100, logger, what: 'test', run: async () => void ran.push('forgotten') });
	forgetRegistrations();
	expect(isPending('forgotten')).toBe(false);
	await pause(1200);
	expect(ran).toEqual([]);
	// New work after it still runs.
	doLater('new', { at: Date.now() + 50, logger, what: 'test', run: async () => void ran.push('new') });
	await pause(1200);
	expect(ran).toEqual(['new']);
});
