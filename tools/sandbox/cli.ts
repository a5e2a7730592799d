/**
 * Start a sandbox from the command line:
 *   npm run sandbox -- [--port 8765] [--webhook-url URL] [--time-scale N] [--templates N] [--statuses SENT,DELIVERED,READ|off]
 * The first line printed is always "sandbox listening on <url>"; other programs wait for it.
 */
import { checkStatusPlan, CLI_STATUS_SCHEDULE, startSandbox, type StatusPlan } from './index';

function parseArgs(argv: string[]): Record<string, string> {
	const out: Record<string, string> = {};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (!a.startsWith('--')) throw new Error(`Unexpected argument: ${a}`);
		const eq = a.indexOf('=');
		if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
		else {
			const v = argv[i + 1];
			if (v === undefined || v.startsWith('--')) throw new Error(`Missing value for ${a}`);
			out[a.slice(2)] = v;
			i++;
		}
	}
	return out;
}

function numberArg(value: string | undefined, name: string, check: (n: number) => boolean): number | undefined {
	if (value === undefined) return undefined;
	const n = Number(value);
	if (value.trim() === '' || !check(n)) throw new Error(`Invalid ${name}: ${value}`);
	return n;
}

/** `off`, or ms after sending for sent, delivered and read, `never` for one that does not happen: `0,2000,never`. */
function statusesArg(value: string | undefined): StatusPlan {
	if (value === undefined) return CLI_STATUS_SCHEDULE;
	if (value === 'off') return false;
	const parts = value.split(',').map((x) => x.trim());
	const ms = (x: string | undefined) => (x === 'never' ? null : x === undefined || x === '' ? NaN : Number(x));
	if (parts.length !== 3) throw new Error(`Invalid statuses: ${value} (expected off, or SENT,DELIVERED,READ in ms, e.g. 0,2000,never)`);
	try {
		return checkStatusPlan({ sentMs: ms(parts[0]), deliveredMs: ms(parts[1]), readMs: ms(parts[2]) });
	} catch (err) {
		throw new Error(`Invalid statuses: ${value} (${(err as Error).message})`);
	}
}

function describeStatuses(plan: StatusPlan): string {
	if (plan === false) return 'off';
	const at = (ms: number | null) => (ms === null ? 'never' : `after ${ms / 1000} s`);
	return `sent ${at(plan.sentMs)}, delivered ${at(plan.deliveredMs)}, read ${at(plan.readMs)}`;
}

async function main(): Promise<void> {
	const known = ['port', 'webhook-url', 'time-scale', 'templates', 'statuses'];
	const args = parseArgs(process.argv.slice(2));
	for (const k of Object.keys(args)) if (!known.includes(k)) throw new Error(`Unknown option --${k} (known: ${known.map((x) => '--' + x).join(', ')})`);
	const port = numberArg(args.port ?? process.env.SANDBOX_PORT ?? '8765', 'port', (n) => Number.isInteger(n) && n >= 0 && n < 65536);
	const timeScale = numberArg(args['time-scale'], 'time scale', (n) => n > 0 && Number.isFinite(n));
	const templateCount = numberArg(args.templates, 'template count', (n) => Number.isInteger(n) && n >= 0);
	const statuses = statusesArg(args.statuses);

	const sandbox = await startSandbox({
		port,
		webhookUrl: args['webhook-url'],
		timeScale,
		templateCount,
		statuses,
		log: (line) => console.log(`[sandbox] ${line}`),
	});
	// Before the banner: whoever reads it may stop the sandbox at once (a pipe's write reaches them before the next line runs).
	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		console.log(`[sandbox] ${signal}: stopping`);
		sandbox.stop().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));

	const c = sandbox.credentials;
	console.log(`sandbox listening on ${sandbox.url}`);
	// The sandbox's own credentials, printed on purpose so a newcomer can paste them into n8n.
	console.log(`
Credentials for n8n (Business Messaging API):
  Base URL:        ${c.baseUrl}
  Client ID:       ${c.clientId}
  Client Secret:   ${c.clientSecret}
  Domain:          ${c.domain}
  Webhook Secret:  ${c.webhookSecret}
  Phone Number ID: ${c.phoneNumberId}
Webhook URL: ${sandbox.webhookUrl ?? '(none; set one with the control API)'}${timeScale ? `\nRetry and status delays divided by ${timeScale}` : ''}
Message statuses (message.status.updated): ${describeStatuses(statuses)}

Control API (unsigned):
  curl ${c.baseUrl}/_sandbox/requests?bytes=0
  curl ${c.baseUrl}/_sandbox/messages
  curl ${c.baseUrl}/_sandbox/orders/1
  curl -X POST ${c.baseUrl}/_sandbox/faults -d '{"status":429,"retryAfter":1,"count":2}'
  curl -X DELETE ${c.baseUrl}/_sandbox/faults
  curl -X POST ${c.baseUrl}/_sandbox/webhook-url -d '{"url":"http://127.0.0.1:5678/webhook/..."}'
  curl -X POST ${c.baseUrl}/_sandbox/verify -d '{}'
  curl -X POST ${c.baseUrl}/_sandbox/deliver -d '{"event":"order.status.updated"}'
  curl -X POST ${c.baseUrl}/_sandbox/customer-message -d '{"from":"+15551234567","body":"YES"}'
  curl -X POST ${c.baseUrl}/_sandbox/statuses -d '{"phone":"+15551234567","schedule":{"sentMs":0,"deliveredMs":1000,"readMs":null}}'
  curl -X POST ${c.baseUrl}/_sandbox/messages/wamid.1/status -d '{"status":"read"}'
  curl ${c.baseUrl}/_sandbox/deliveries
  curl -X POST ${c.baseUrl}/_sandbox/reset
`);
}

main().catch((err: Error) => {
	console.error(`sandbox: ${err.message}`);
	process.exit(1);
});
