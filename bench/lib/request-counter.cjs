/**
 * Preloaded into n8n by the sharing benchmark (NODE_OPTIONS=--require …): counts the HTTP requests n8n's
 * servers receive (the service's deliveries and the ones n8n sends itself, such as a sharing trigger's hand-over
 * to another workflow's webhook), one byte per request appended to `$BENCH_REQUEST_DIR/<pid>`.
 */
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');
const http = require('node:http');

const dir = process.env.BENCH_REQUEST_DIR;
if (dir) {
	const file = join(dir, String(process.pid));
	const { emit } = http.Server.prototype;
	http.Server.prototype.emit = function (event, ...args) {
		if (event === 'request') appendFileSync(file, '.');
		return emit.call(this, event, ...args);
	};
}
