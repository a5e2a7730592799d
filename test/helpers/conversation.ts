/**
 * A stand-in for the n8n instance around Ask and Wait for Chat Reply in process tests: an HTTP server
 * whose `/webhook/business-messaging-replies` runs the real Business Messaging Trigger (through
 * n8n-core's WebhookContext, test/helpers/webhook.ts) with Resume Waiting Runs on, one static data store
 * kept across requests as n8n's database would. `/webhook-waiting/...` records what reaches a run's
 * resume address and answers as the test says. Real n8n resuming real runs: test/e2e/checks/conversations.ts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import { forgetRegistrations } from '../../nodes/BusinessMessagingTrigger/sharing/registry';
import { forgetWebhookSecrets } from '../../nodes/shared/webhookSecret';
import { WAITS_PATH } from '../../nodes/shared/sharing';
import { TriggerHarness, type WebhookOutcome } from './webhook';
import type { Sandbox } from '../../tools/sandbox';
import { N8N_STARTING_UP_ANSWER } from '../../tools/n8n/n8n';

export interface ResumeCall {
	method: string;
	url: string;
	headers: IncomingMessage['headers'];
	body: string;
}

export interface TriggerStandIn {
	url: string;
	trigger: TriggerHarness;
	/** What the trigger answered, per request to its waits webhook. */
	answers: WebhookOutcome[];
	/** What the trigger answered, per event the service delivered to its Production URL (`<url>/webhook/service`). */
	events: WebhookOutcome[];
	/** Requests that reached a resume address. */
	resumes: ResumeCall[];
	/** How the resume address answers (default 200 `{"outcome":"resumed"}`, then 409 to n8n's probe). */
	answerResume: (call: ResumeCall) => { status: number; body: unknown };
	/**
	 * Turns the trigger off (n8n then answers 404), gives it other credentials, or other parameters (static data
	 * kept); `startingUp`: its waits webhook gets what n8n answers while its database is not ready (200 "n8n is
	 * starting up. Please wait"), until turned off; `sharedBy: 'another'`: its workflow is off and another one
	 * that shares (workflow ANOTHER_SHARER, static data of its own) takes its URLs, until `'this'` again;
	 * `'another for waits'`: the moment of that switch, the service's events still reaching this trigger and its
	 * waits webhook already the other one.
	 */
	set(options: {
		active?: boolean;
		credentials?: ICredentialDataDecryptedObject;
		parameters?: INodeParameters;
		startingUp?: boolean;
		sharedBy?: 'this' | 'another' | 'another for waits';
	}): void;
	/** How many requests of the waits webhook got n8n's "starting up" answer. */
	startingUpAnswers: number;
	stop(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

/** The workflow of the other sharing trigger that `set({ sharedBy: 'another' })` puts in place. */
export const ANOTHER_SHARER = 'another-sharing-workflow';

/** A fresh n8n: the trigger's process memory (waits it received, secrets it read) starts empty. */
export async function startTriggerStandIn(credentials?: ICredentialDataDecryptedObject): Promise<TriggerStandIn> {
	forgetRegistrations();
	forgetWebhookSecrets();
	let active = true;
	let startingUp = false;
	// Made once the server listens: the trigger also calls its own waits webhook (a status wait's recount).
	let trigger!: TriggerHarness;
	let another: TriggerHarness | undefined;
	let eventsToThis = false;
	const sharer = () => another ?? trigger;
	const answers: WebhookOutcome[] = [];
	const events: WebhookOutcome[] = [];
	let parameters: INodeParameters = { resumeWaitingRuns: true };
	const resumes: ResumeCall[] = [];
	let resumed = false;
	const standIn: TriggerStandIn = {
		url: '',
		get trigger() {
			return trigger;
		},
		answers,
		events,
		resumes,
		startingUpAnswers: 0,
		answerResume: (call) => {
			if (call.method === 'GET') return resumed ? { status: 409, body: { message: 'running already' } } : { status: 200, body: { outcome: 'waiting' } };
			resumed = true;
			return { status: 200, body: { outcome: 'resumed' } };
		},
		set(options) {
			if (options.active !== undefined) active = options.active;
			if (options.startingUp !== undefined) startingUp = options.startingUp;
			if (options.sharedBy !== undefined) {
				another = options.sharedBy === 'this' ? undefined : new TriggerHarness({ parameters: { resumeWaitingRuns: true }, credentials, workflowId: ANOTHER_SHARER, baseUrl: standIn.url });
				eventsToThis = options.sharedBy === 'another for waits';
			}
			if (options.credentials || options.parameters) {
				forgetWebhookSecrets();
				parameters = { ...parameters, ...options.parameters };
				credentials = options.credentials ?? credentials;
				trigger = new TriggerHarness({ parameters, credentials, workflowId: 'trigger-workflow', baseUrl: standIn.url, staticData: trigger.savedStaticData() });
			}
		},
		stop: async () => {
			await new Promise<void>((resolve) => server.close(() => resolve()));
			forgetRegistrations(); // the limits this n8n kept go with it
		},
	};
	const server: Server = createServer((req, res) => {
		void (async () => {
			const body = await readAll(req);
			const path = (req.url ?? '').split('?')[0];
			if (path === `/webhook/${WAITS_PATH}` && startingUp) {
				standIn.startingUpAnswers++;
				res.writeHead(200, { 'content-type': 'text/html' }).end(N8N_STARTING_UP_ANSWER);
				return;
			}
			if (path === `/webhook/${WAITS_PATH}` && req.method === 'POST' && active) {
				const outcome = await sharer().send({ headers: req.headers as Record<string, string>, body, path });
				answers.push(outcome);
				res.writeHead(outcome.statusCode, { 'content-type': 'application/json' }).end(JSON.stringify(outcome.body));
				return;
			}
			if (path === '/webhook/service' && req.method === 'POST' && active) {
				const outcome = await (eventsToThis ? trigger : sharer()).send({ headers: req.headers as Record<string, string>, body });
				events.push(outcome);
				res.writeHead(outcome.statusCode, { 'content-type': 'application/json' }).end(JSON.stringify(outcome.body));
				return;
			}
			if (path.startsWith('/webhook-waiting/')) {
				const call = { method: req.method ?? 'GET', url: req.url ?? '', headers: req.headers, body: body.toString('utf8') };
				resumes.push(call);
				const { status, body: answer } = standIn.answerResume(call);
				res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
				return;
			}
			res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 404, message: `The requested webhook "${req.method} ${path}" is not registered.` }));
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	trigger = new TriggerHarness({ parameters: { resumeWaitingRuns: true }, credentials, workflowId: 'trigger-workflow', baseUrl: standIn.url });
	return standIn;
}

/**
 * A fresh stand-in for each test of the file, the sandbox's events going to its trigger's Production URL
 * (`<url>/webhook/service`): for the files that run status waits against it.
 */
export function useStatusStandIn(sandbox: () => Sandbox): () => TriggerStandIn {
	let standIn: TriggerStandIn;
	beforeEach(async () => {
		standIn = await startTriggerStandIn();
		sandbox().setWebhookUrl(`${standIn.url}/webhook/service`);
	});
	afterEach(async () => await standIn.stop());
	return () => standIn;
}

/** The service reports a status of a message; resolves with the trigger's first answer (the sandbox retries after a minute). */
export async function reportStatus(sandbox: Sandbox, messageId: string, status: 'sent' | 'delivered' | 'read'): Promise<number | null> {
	const delivery = sandbox.reportStatus(messageId, status)!;
	while (delivery.attempts.length === 0 || delivery.attempts[0].status === null) await new Promise((r) => setTimeout(r, 5));
	return delivery.attempts[0].status;
}
