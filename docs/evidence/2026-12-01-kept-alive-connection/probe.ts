/**
 * The race the suites' client met on CI: a request, then this process stalls past the server's keep-alive
 * timeout (Node 24's server advertises 5 s and closes the idle socket 1 s later; n8n's server keeps both), then
 * the next request. With undici's agent (fetch's, once undici is loaded) the stalled process can reuse the
 * connection the server has just closed; with tools/n8n/connections.ts (a connection per request) it cannot.
 * Run: node --import tsx docs/evidence/2026-12-01-kept-alive-connection/probe.ts [per-request]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { errorText } from '../../../test/e2e/lib/report';

if (process.argv[2] === 'per-request') require('../../../tools/n8n/connections');
else require('undici'); // loading undici makes its agent fetch's, as in the suites (tools/sandbox/webhooks.ts)

// The server in a process of its own, as n8n is: the stall here does not stop its keep-alive timer.
const server = spawn(process.execPath, ['-e', "const s = require('node:http').createServer((q, r) => r.end('ok')); s.listen(0, '127.0.0.1', () => console.log(s.address().port))"]);
void once(server.stdout, 'data').then(async ([port]: unknown[]) => {
	const url = `http://127.0.0.1:${String(port).trim()}/`;
	let failed = 0;
	for (let i = 1; i <= 5; i++) {
		await (await fetch(url)).text();
		const until = Date.now() + 6_500;
		while (Date.now() < until); // the stalled test process: no timer, no socket event runs here
		try {
			await (await fetch(url)).text();
			console.log(`${i}: the request after a 6.5 s stall: ok`);
		} catch (error) {
			failed++;
			console.log(`${i}: the request after a 6.5 s stall: ${errorText(error).split('\n').filter((l) => !l.startsWith('    at')).join(' / ')}`);
		}
	}
	console.log(`${process.argv[2] ?? 'default agent'}: ${failed} of 5 failed`);
	server.kill();
});
