/**
 * What a user sees of the nodes' fields and links in the editor: Order ID starts empty and is required,
 * the message fields explain themselves, every selectable option reads as words (n8n shows an option's
 * name on the chip of a selected multi-option value), and every documentation link leads to the
 * package's npm page (whose README is this README) at a heading that exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { NodeHelpers, Workflow, type INode, type INodeParameters, type INodeProperties, type INodePropertyOptions, type INodeType } from 'n8n-workflow';

import { BusinessMessagingApi } from '../../credentials/BusinessMessagingApi.credentials';
import { BusinessMessaging } from '../../nodes/BusinessMessaging/BusinessMessaging.node';
import { BusinessMessagingTrigger } from '../../nodes/BusinessMessagingTrigger/BusinessMessagingTrigger.node';
import { headingAnchors } from '../helpers/markdown';
import { setupNoticeProblems, testModeNoticeProblems, testModeSettings } from '../helpers/panelTexts';
import { runAction } from '../helpers/actionNode';
import { allOperations } from '../helpers/operationSamples';
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

	it('Text of only spaces stops the item naming the field and saying what to do, before any request', async () => {
		sandbox.reset();
		const result = await runAction(sandbox, { resource: 'message', operation: 'sendText', phone: '+4915112345678', text: ' \n  ' });
		expect(result.error?.message).toBe('Text: has only spaces, nothing to send');
		expect(result.error?.description).toMatch(/^Type what to send in Text, or drag a field from the input panel onto it\. If Text is an expression, check that every input item has a value for it\.$/);
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

	it('Business Name is an optional credential field that says where it shows and that Asked By overrides it', () => {
		const [businessName] = field(new BusinessMessagingApi().properties, 'businessName');
		expect(businessName).toMatchObject({ displayName: 'Business Name', type: 'string', default: '' });
		expect(businessName.required).toBeFalsy();
		expect(businessName.description).toMatch(/answer page/);
		expect(businessName.description).toMatch(/Asked By/);
		const [askedBy] = field(action.properties, 'askedBy');
		expect(askedBy.description).toMatch(/Empty: the credential’s Business Name/);
	});

	it('both nodes test the credential with the package’s own method, so its messages reach the user', () => {
		expect(new BusinessMessagingApi()).not.toHaveProperty('test');
		for (const node of [new BusinessMessaging(), new BusinessMessagingTrigger()] as INodeType[]) {
			const [entry] = node.description.credentials!;
			expect(typeof entry.testedBy).toBe('string');
			expect(typeof node.methods?.credentialTest?.[entry.testedBy as string]).toBe('function');
		}
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
		['message', 'askAndWaitForReply', 'Ask a question and wait for the chat reply'],
		['message', 'sendText', 'Send a text message'],
		['template', 'get', 'Get a message template by ID'],
		['order', 'update', 'Update the status or details of an order'],
	])('the subtitle of %s → %s reads as the action the node creator lists: %s', (resource, operation, expected) => {
		expect(subtitle(resource, operation)).toBe(expected);
	});

	const settings = testModeSettings(new BusinessMessagingApi().properties);

	/** Whether the panel shows a property for these parameters, as the editor decides it. */
	const shownIn = (property: INodeProperties, parameters: INodeParameters) => {
		const node = { name: 'n', type: action.name, typeVersion: 1, parameters } as unknown as INode;
		const values = NodeHelpers.getNodeParameters(action.properties, parameters, true, false, node, action) ?? {};
		return NodeHelpers.displayParameter(values, property, node, action);
	};

	it('every send operation of the router’s table, and only those, says where Test Mode is set and what each setting does, never which one is on', () => {
		expect(settings).toEqual(['Off', 'Send to Test Recipient', 'Dry Run']);
		const notices = action.properties.filter((p) => p.type === 'notice' && /Test Mode/.test(p.displayName));
		expect(notices).toHaveLength(1);
		const showingIt = allOperations.filter(([name]) => {
			const [resource, operation] = name.split('.');
			return shownIn(notices[0], { resource, operation });
		});
		const sends = allOperations.filter(([, operation]) => operation.kind !== 'request');
		// What a failing diff says: which operations show it, and where the list comes from.
		const SHOWN_ON = 'operations showing the Test Mode notice (every send: show it for the sends of the resource’s operations table, as actions/message/index.ts does)';
		expect({ [SHOWN_ON]: showingIt.map(([name]) => name) }).toEqual({ [SHOWN_ON]: sends.map(([name]) => name) });
		expect(sends.length).toBeGreaterThan(0);
		expect(testModeNoticeProblems(notices[0].displayName, settings)).toEqual([]);
	});

	it('the Test Mode check would catch a notice that states a mode', () => {
		expect(testModeNoticeProblems('Test Mode is set in the credential. Off: real. Send to Test Recipient: yours. Dry Run: none.', settings)).toEqual([
			'states a Test Mode it cannot read: "is set"',
		]);
	});

	it('the trigger’s notice takes the Test URL first, then the Production URL, as the README’s set-up does', () => {
		const notice = trigger.properties.find((p) => p.type === 'notice')!;
		expect(setupNoticeProblems(notice.displayName)).toEqual([]);
		expect(setupNoticeProblems('Put the Production URL into the dashboard; the Test URL only listens while you test.')).toHaveLength(1);
	});

	/** The trigger's subtitle as the editor computes it. */
	const triggerSubtitle = (events: string[]): unknown => {
		const node = { id: 't', name: 'Trigger', type: 'n8n-nodes-business-messaging.businessMessagingTrigger', typeVersion: 2, position: [0, 0] as [number, number], parameters: { events } };
		const nodeTypes = { getByName: () => new BusinessMessagingTrigger(), getByNameAndVersion: () => new BusinessMessagingTrigger(), getKnownTypes: () => ({}) };
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		return workflow.expression.getSimpleParameterValue(node, trigger.subtitle!, 'internal', {}, undefined, '');
	};

	it.each([
		[['*'], 'All Events'],
		[['message.received'], 'Message Received'],
		[['message.received', 'order.status.updated'], 'Message Received, Order Status Updated'],
		[['*', 'message.received'], 'All Events'],
		[['some.future.event'], 'some.future.event'],
	])('the trigger’s canvas subtitle for %j reads %s', (events, expected) => {
		expect(triggerSubtitle(events)).toBe(expected);
	});

	it('the node creator shows one entry for both nodes, with the trigger’s description: it starts with what the action node does', () => {
		// n8n's useActionsGeneration: the merged entry takes the trigger's description (docs/compatibility.md).
		expect(trigger.description.startsWith(action.description)).toBe(true);
		expect(trigger.description).toMatch(/start workflows from its events$/);
	});
});
