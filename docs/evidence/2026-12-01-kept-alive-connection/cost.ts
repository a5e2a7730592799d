/**
 * What a connection per request costs: 3000 sequential requests to a Node server in its own process, with undici's
 * agent (kept alive) and with tools/n8n/connections.ts; CPU of both processes (user + system).
 * Run: node --import tsx docs/evidence/2026-12-01-kept-alive-connection/cost.ts [per-request]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

if (process.argv[2] === 'per-request') require('../../../tools/n8n/connections');
else require('undici');

const REQUESTS = 3000;
const server = spawn(process.execPath, [
	'-e',
	"const s = require('node:http').createServer((q, r) => r.end(q.url === '/cpu' ? JSON.stringify(process.cpuUsage()) : 'ok')); s.listen(0, '127.0.0.1', () => console.log(s.address().port))",
]);
const cpuMs = (u: { user: number; system: number }) => (u.user + u.system) / 1000;
void once(server.stdout, 'data').then(async ([port]: unknown[]) => {
	const url = `http://127.0.0.1:${String(port).trim()}`;
	const serverBefore = cpuMs(JSON.parse(await (await fetch(`${url}/cpu`)).text()));
	const clientBefore = process.cpuUsage();
	const t0 = Date.now();
	for (let i = 0; i < REQUESTS; i++) await (await fetch(`${url}/`)).text();
	const wall = Date.now() - t0;
	const client = cpuMs(process.cpuUsage(clientBefore));
	const serverCpu = cpuMs(JSON.parse(await (await fetch(`${url}/cpu`)).text())) - serverBefore;
	console.log(`${process.argv[2] ?? 'kept alive'}: ${REQUESTS} requests in ${wall} ms; CPU: client ${client.toFixed(0)} ms, server ${serverCpu.toFixed(0)} ms; per request ${((client + serverCpu) / REQUESTS).toFixed(3)} ms`);
	server.kill();
});
