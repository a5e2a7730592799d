import { assertNoSecrets, SENTINEL_CLIENT_SECRET, SENTINEL_WEBHOOK_SECRET } from './secrets';

test('the check fires on a sentinel anywhere, including inside an error’s message', () => {
	expect(() => assertNoSecrets('x', { items: [{ json: { note: `k=${SENTINEL_CLIENT_SECRET}` } }] })).toThrow(
		'A sentinel secret appeared in x',
	);
	expect(() => assertNoSecrets('x', { error: new Error(`bad ${SENTINEL_WEBHOOK_SECRET}`) })).toThrow();
	expect(() => assertNoSecrets('x', { logs: ['warn request rejected (invalid signature)'] })).not.toThrow();
});
