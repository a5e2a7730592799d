// n8n-workflow's safeRegex (what n8n 2.41.1's publish uses for a parameter's regex validation) checking the
// Template field's By ID regex in a loop for 20 s; run.sh stops this process for 0.4 s twenty times meanwhile.
const cache = process.env.N8N_CACHE ?? `${process.env.HOME}/.cache/n8n-nodes-business-messaging/n8n-2.41.1`;
const { safeRegex } = require(`${cache}/node_modules/n8n-workflow/dist/cjs/safe-regex.js`);
const end = Date.now() + 20_000;
let checks = 0, timedOut = 0, longestMs = 0;
const messages = new Set();
while (Date.now() < end) {
	const start = Date.now();
	try {
		safeRegex.test('^^\\s*[1-9][0-9]*\\s*$$', '99999');
	} catch (error) {
		timedOut++;
		messages.add(error.message);
	}
	longestMs = Math.max(longestMs, Date.now() - start);
	checks++;
}
console.log(JSON.stringify({ checks, timedOut, longestMs, messages: [...messages] }));
