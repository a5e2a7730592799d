/**
 * What a user sees of the nodes' fields and links in the editor: Order ID starts empty and is required,
 * the message fields explain themselves, every selectable option reads as words (n8n shows an option's
 * name on the chip of a selected multi-option value), and every documentation link leads to the
 * package's npm page (whose README is this README) at a heading that exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Workflow, type INodeProperties, type INodePropertyOptions } from 'n8n-workflow';

import { BASE_URL_CONNECTION_HINT, BusinessMessagingApi } from '../../credentials/BusinessMessagingApi.credentials';
import { BusinessMessaging } from '../../nodes/BusinessMessaging/BusinessMessaging.node';
import { BusinessMessagingTrigger } from '../../nodes/BusinessMessagingTrigger/BusinessMessagingTrigger.node';
import { headingAnchors } from '../helpers/markdown';
import { runAction } from '../helpers/actionNode';
import { startSandbox, type Sandbox } from '../../tools/sandbox';

const ROOT = join(__dirname, '../..');
const NPM_PAGE = 'https://www.npmjs.com/package/n8n-nodes-business-messaging';

const action = new BusinessMessaging().description;
const trigger = new BusinessMessagingTrigger().description;

/** Every property, nested collection options included. */
function allProperties(properties: INodeProperties[]): INodeProperties[] {
	return properties.flatMap((p) => [
		p,
		...allProperties(((p.options ?? []) as Array<INodeProperties | INodePropertyOptions>).filter((o): o is INodeProperties => 'displayName' in o)),
	]);
}
const field = (properties: INodeProperties[], name: string, operation?: string) =>
	allProperties(properties).filter(
		(p) => p.name === name && (!operation || (p.displayOptions?.show?.operation as string[] | undefined)?.includes(operation)),
	);

describe('fields', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox();
	});
	afterAll(async () => {
		await sandbox.stop();
	});

	it('Order ID starts empty and is required: n8n refuses to run the node until it is filled in', async () => {
		const [orderId] = field(action.properties, 'orderId');
		expect(orderId).toMatchObject({ displayName: 'Order ID', default: '', required: true });
		sandbox.reset();
		// No orderId parameter: n8n fills in the field's default, and its workflow check refuses the empty required field.
		await expect(
			runAction(sandbox, { resource: 'order', operation: 'update', updateFields: { status: 'accepted' } }),
		).rejects.toThrow('Parameter "Order ID" is required');
		expect(sandbox.requests).toHaveLength(0);
	});

	it('an Order ID expression that comes out empty stops the item naming the field, before any request', async () => {
		sandbox.reset();
		const result = await runAction(sandbox, {
			resource: 'order',
			operation: 'update',
			orderId: '={{ $json.id }}',
			updateFields: { status: 'accepted' },
		});
		expect(result.error?.message).toBe('Order ID: is empty');
		expect(sandbox.requests.filter((r) => !r.path.startsWith('/_sandbox'))).toHaveLength(0);
	});

	it.each([
		['text', 'sendText'],
		['caption', 'sendMedia'],
		['mediaType', 'sendMedia'],
	])('%s (%s) has a description', (name, operation) => {
		const [property] = field(action.properties, name, operation);
		expect(property).toBeDefined();
		expect(property.description?.length ?? 0).toBeGreaterThan(10);
	});

	it('every option of both nodes has a name made of words, the trigger’s “all events” included', () => {
		const options = [...allProperties(action.properties), ...allProperties(trigger.properties)].flatMap((p) =>
			((p.options ?? []) as Array<INodeProperties | INodePropertyOptions>).filter((o): o is INodePropertyOptions => 'value' in o),
		);
		expect(options.length).toBeGreaterThan(20);
		for (const option of options) expect(String(option.name)).toMatch(/[A-Za-z]{2}/);
		const [events] = field(trigger.properties, 'events');
		expect((events.options as INodePropertyOptions[]).find((o) => o.value === '*')?.name).toBe('All Events');
	});

	it('Base URL carries the hint for the bare connection codes the Test button shows', () => {
		const [baseUrl] = field(new BusinessMessagingApi().properties, 'baseUrl');
		expect(baseUrl.hint).toBe(BASE_URL_CONNECTION_HINT);
		expect(BASE_URL_CONNECTION_HINT).toMatch(/ECONNREFUSED/);
		expect(BASE_URL_CONNECTION_HINT).toMatch(/port/);
		expect(BASE_URL_CONNECTION_HINT).toMatch(/https:\/\/ or http:\/\//);
	});
});

describe('documentation links', () => {
	const anchors = headingAnchors(readFileSync(join(ROOT, 'README.md'), 'utf8'));
	const codex = (file: string) =>
		JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as { resources: Record<string, Array<{ url: string }>> };
	const links: Array<[string, string]> = [
		['credential documentationUrl', new BusinessMessagingApi().documentationUrl],
		...['nodes/BusinessMessaging/BusinessMessaging.node.json', 'nodes/BusinessMessagingTrigger/BusinessMessagingTrigger.node.json'].flatMap(
			(file) =>
				Object.entries(codex(file).resources).flatMap(([kind, urls]) => urls.map((u): [string, string] => [`${file} ${kind}`, u.url])),
		),
	];

	it.each(links)('%s leads to a heading of the README on the npm page', (_where, url) => {
		const [page, anchor] = url.split('#');
		expect(page).toBe(NPM_PAGE);
		expect([...anchors]).toContain(anchor);
	});

	it('package.json: the homepage is the npm page; the repository is one GitHub URL, written once', () => {
		const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { homepage: string; repository?: { url?: string }; bugs?: unknown };
		expect(String(pkg.homepage).split('#')[0]).toBe(NPM_PAGE);
		expect(pkg.repository?.url).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
		// npm derives the issue tracker from the repository; a second copy of the URL could drift.
		expect(pkg.bugs).toBeUndefined();
		expect(JSON.stringify(pkg).split('github.com').length - 1).toBe(1);
	});
});

describe('the node on the canvas and in its panel', () => {
	/** The subtitle as the editor computes it (n8n-workflow's expression, as in the editor's getNodeSubtitle). */
	const subtitle = (resource: string, operation: string): unknown => {
		const node = { id: 'n', name: 'Business Messaging', type: 'n8n-nodes-business-messaging.businessMessaging', typeVersion: 1, position: [0, 0] as [number, number], parameters: { resource, operation } };
		const nodeTypes = { getByName: () => new BusinessMessaging(), getByNameAndVersion: () => new BusinessMessaging(), getKnownTypes: () => ({}) };
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		return workflow.expression.getSimpleParameterValue(node, action.subtitle!, 'internal', {}, undefined, '');
	};

	it.each([
		['message', 'sendAndWait', 'Send a message and wait for the answer'],
		['message', 'sendText', 'Send a text message'],
		['template', 'get', 'Get a message template by ID'],
		['order', 'update', 'Update the status or details of an order'],
	])('the subtitle of %s → %s reads as the action the node creator lists: %s', (resource, operation, expected) => {
		expect(subtitle(resource, operation)).toBe(expected);
	});

	it('every send operation reminds the user to check the credential’s Test Mode, without saying it is on', () => {
		const notices = action.properties.filter((p) => p.type === 'notice' && /Test Mode/.test(p.displayName));
		expect(notices).toHaveLength(1);
		expect(notices[0].displayOptions?.show).toEqual({ resource: ['message'], operation: ['sendText', 'sendMedia', 'sendAndWait'] });
		expect(notices[0].displayName).toMatch(/check it/);
		expect(notices[0].displayName).not.toMatch(/Test Mode is on/i);
	});
});
