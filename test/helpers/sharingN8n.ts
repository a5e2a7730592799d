/**
 * A stand-in for one n8n instance holding several Business Messaging Trigger workflows, for in-process tests
 * of sharing: an HTTP server that routes as n8n does, each trigger run by the real node through n8n-core
 * (test/helpers/webhook.ts). `/webhook/<webhook id>/webhook` reaches a trigger while its workflow is active,
 * `/webhook-test/<webhook id>/webhook` while the editor listens (once, as n8n's test webhook), and
 * `/webhook/business-messaging-replies` the active trigger that shares; anything else gets n8n's 404. Each
 * trigger keeps its static data across requests as n8n's database would. Real n8n: test/e2e/checks/sharing.ts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import { forgetInProcessDeliveries } from '../../nodes/BusinessMessagingTrigger/deliveryStore';
import { forgetRegistrations } from '../../nodes/BusinessMessagingTrigger/sharing/registry';
import { sharingPath } from '../../nodes/shared/sharing';
import { sharesAs } from '../../nodes/BusinessMessagingTrigger/sharing/endpoint';
import { forgetWebhookSecrets } from '../../nodes/shared/webhookSecret';
import { TriggerHarness, type WebhookOutcome, type WebhookRequest } from './webhook';

export interface StandInTrigger {
	name: string;
	webhookId: string;
	/** The harness serving its Production URL (the active workflow). */
	harness: TriggerHarness;
	active: boolean;
	/** Its answers to the requests that reached its Production URL, in order. */
	answers: WebhookOutcome[];
	/** The items of the runs it started at its Production URL. */
	runs: unknown[];
	/** While the editor listens: the harness in manual mode, and what it got. */
	listening?: TriggerHarness;
	heard: WebhookOutcome[];
	/** Activates the workflow as n8n does (the webhook's lifecycle `create`), resolving with what it logged. */
	activate(): Promise<string[]>;
	/** Deactivates it (`delete`, then n8n serves its webhook no more). */
	deactivate(): Promise<void>;
	/** Click on Execute step: n8n registers the test webhook and runs `create` in manual mode (rejects with the node's error). */
	listen(): Promise<void>;
}

export interface StandInN8n {
	url: string;
	/** A trigger workflow on this n8n, inactive until `activate()`. */
	trigger(name: string, parameters: INodeParameters, credentials?: ICredentialDataDecryptedObject): StandInTrigger;
	/** Sends a request to one of its addresses, as the service would. */
	post(path: string, request: Omit<WebhookRequest, 'path'>): Promise<{ status: number; body: unknown }>;
	/** n8n restarted: every trigger's process memory forgotten, static data kept. */
	restart(): void;
	stop(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

const notRegistered = (method: string, path: string) => ({ code: 404, message: `The requested webhook "${method} ${path}" is not registered.` });

export async function startSharingN8n(): Promise<StandInN8n> {
	forgetRegistrations();
	forgetInProcessDeliveries();
	forgetWebhookSecrets();
	const triggers: StandInTrigger[] = [];
	let url = '';
	const harness = (t: { name: string; webhookId: string; parameters: INodeParameters; credentials?: ICredentialDataDecryptedObject }, mode: 'webhook' | 'manual', staticData?: object) =>
		new TriggerHarness({
			parameters: { events: ['*'], ...t.parameters },
			credentials: t.credentials,
			typeVersion: 2,
			webhookId: t.webhookId,
			workflowId: `wf-${t.webhookId}`,
			workflowName: t.name,
			baseUrl: url,
			mode,
			staticData: staticData as never,
		});

	const route = async (method: string, path: string, request: WebhookRequest): Promise<{ status: number; body: unknown }> => {
		const [, endpoint, webhookId] = path.split('/');
		// The sharing trigger of the account whose path this is (Share As).
		const sharing = triggers.find((t) => t.active && t.harness.sharesEvents() && path === `/webhook/${sharingPath(sharesAs(t.harness.parameters()))}`);
		let outcome: WebhookOutcome | undefined;
		if (method === 'POST' && sharing) {
			outcome = await sharing.harness.send({ ...request, path });
		} else if (method === 'POST' && endpoint === 'webhook') {
			const t = triggers.find((x) => x.active && x.webhookId === webhookId);
			if (t) {
				outcome = await t.harness.send({ ...request, path });
				t.answers.push(outcome);
				if (outcome.workflowStarted) t.runs.push(...outcome.items);
			}
		} else if (method === 'POST' && endpoint === 'webhook-test') {
			const t = triggers.find((x) => x.listening && x.webhookId === webhookId);
			if (t?.listening) {
				// n8n's test webhook takes one request, then stops listening (and runs `delete`).
				const listener = t.listening;
				t.listening = undefined;
				outcome = await listener.send({ ...request, path });
				t.heard.push(outcome);
				await listener.lifecycle('delete');
			}
		}
		if (!outcome) return { status: 404, body: notRegistered(method, path) };
		return { status: outcome.statusCode, body: outcome.body };
	};

	const server: Server = createServer((req, res) => {
		void (async () => {
			const body = await readAll(req);
			const path = (req.url ?? '').split('?')[0];
			const { status, body: answer } = await route(req.method ?? 'GET', path, { headers: req.headers as Record<string, string>, body });
			res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

	return {
		url,
		trigger(name, parameters, credentials) {
			const spec = { name, webhookId: `hook-${triggers.length + 1}-${name.replace(/\W+/g, '-').toLowerCase()}`, parameters, credentials };
			const t: StandInTrigger = {
				name,
				webhookId: spec.webhookId,
				harness: harness(spec, 'webhook'),
				active: false,
				answers: [],
				runs: [],
				heard: [],
				async activate() {
					// n8n serves a webhook from when it is stored, before the lifecycle runs (active-workflow-manager.js, addWebhooks).
					t.active = true;
					try {
						return await t.harness.lifecycle('create');
					} catch (error) {
						t.active = false;
						throw error;
					}
				},
				async deactivate() {
					await t.harness.lifecycle('delete');
					t.active = false;
				},
				async listen() {
					const listener = harness(spec, 'manual');
					await listener.lifecycle('create');
					t.listening = listener;
				},
			};
			const restartable = t as StandInTrigger & { spec: typeof spec };
			restartable.spec = spec;
			triggers.push(t);
			return t;
		},
		post: async (path, request) => await fetch(`${url}${path}`, { method: 'POST', headers: request.headers as Record<string, string>, body: request.body }).then(async (res) => ({ status: res.status, body: await res.json().catch(() => undefined) })),
		restart() {
			forgetRegistrations();
			forgetInProcessDeliveries();
			forgetWebhookSecrets();
			for (const t of triggers) t.harness = harness((t as StandInTrigger & { spec: Parameters<typeof harness>[0] }).spec, 'webhook', t.harness.savedStaticData());
		},
		stop: async () => {
			// Every trigger ever activated, also one made unreachable by hand: its registration loop ends.
			for (const t of triggers) await t.harness.lifecycle('delete').catch(() => undefined);
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
