// Self time of one CPU profile's samples by where the code lives: an npm package (the innermost node_modules folder), Node's own module, or a V8/native entry in parentheses.
const fs = require('fs');
const f = process.argv[2];
const p = JSON.parse(fs.readFileSync(f));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
p.samples.forEach((id, i) => self.set(id, (self.get(id) || 0) + (p.timeDeltas[i] || 0)));
const by = new Map();
let busy = 0;
for (const [id, us] of self) {
	const { url, functionName } = byId.get(id).callFrame;
	const m = (url || '').match(/node_modules\/((?:@[^/]+\/)?[^/]+)/g);
	const key = m ? m[m.length - 1].replace('node_modules/', '') : url ? url.replace(/^file:\/\//, '').slice(0, 60) : `(${functionName})`;
	by.set(key, (by.get(key) || 0) + us);
	if (key !== '((idle))') busy += us;
}
console.log(`busy (all but idle): ${Math.round(busy / 1000)} ms`);
for (const [k, v] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${String(Math.round(v / 1000)).padStart(6)} ms  ${k}`);
