/**
 * Preloaded into n8n by the receiving benchmark (NODE_OPTIONS=--require …): counts the expression
 * isolates n8n creates (isolated-vm's Isolate constructor, which its "vm" expression engine uses), one
 * byte per isolate appended to `$BENCH_ISOLATE_DIR/<pid>`. Counting is exact however loaded the machine is.
 */
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');
const Module = require('node:module');

const dir = process.env.BENCH_ISOLATE_DIR;
if (dir) {
	const file = join(dir, String(process.pid));
	const originalLoad = Module._load;
	let counting;
	Module._load = function (request, ...rest) {
		const loaded = originalLoad.call(this, request, ...rest);
		if (request !== 'isolated-vm') return loaded;
		if (!counting) {
			const Isolate = loaded.Isolate;
			class CountedIsolate extends Isolate {
				constructor(...args) {
					super(...args);
					appendFileSync(file, '.');
				}
			}
			// isolated-vm's exports are frozen: hand out an object that inherits them with Isolate replaced.
			counting = Object.create(loaded, { Isolate: { value: CountedIsolate } });
		}
		return counting;
	};
}
