/**
 * The import rules (.dependency-cruiser.cjs, ARCHITECTURE.md "Layers"), checked with dependency-cruiser
 * over the shipped code and tools/: no cycle; the node → router → actions → helpers → transport, never
 * back up; messages only through the send pipeline; tools/ never reaching into test/. And, read with
 * TypeScript, that nothing in the action node outside transport/ makes a request of its own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import * as ts from 'typescript';

const ROOT = join(__dirname, '../..');

interface CruiseResult {
	summary: { violations: Array<{ rule: { name: string }; from: string; to: string; cycle?: Array<{ name: string }> }>; totalCruised: number };
	modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
}

const cruise = (): CruiseResult => {
	const result = spawnSync(
		process.execPath,
		[join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'), '--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'nodes', 'credentials', 'tools'],
		{ cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
	);
	if (!result.stdout) throw new Error(`dependency-cruiser printed nothing: ${result.stderr}`);
	return JSON.parse(result.stdout) as CruiseResult;
};

let cruised: CruiseResult | undefined;
const cruiseOnce = () => (cruised ??= cruise());

test('no import cycle, no arrow up the layers or from tools/ into test/, messages only through the send pipeline', () => {
	const { summary, modules } = cruiseOnce();
	const breaches = summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' → ')})` : ''}`);
	expect(breaches).toEqual([]);
	// It looked at the code it guards: the pipeline's one arrow to the message transport is among what it read.
	const pipeline = modules.find((m) => m.source === 'nodes/BusinessMessaging/actions/send.ts');
	expect(pipeline?.dependencies.map((d) => d.resolved)).toContain('nodes/BusinessMessaging/transport/message.ts');
	expect(summary.totalCruised).toBeGreaterThan(50);
}, 60_000);

/** The files ARCHITECTURE.md and .dependency-cruiser.cjs name, as paths from the repository's root. */
function filesNamed(text: string): string[] {
	const underNode: Record<string, string> = { actions: 'nodes/BusinessMessaging/', helpers: 'nodes/BusinessMessaging/', transport: 'nodes/BusinessMessaging/', methods: 'nodes/BusinessMessaging/', conversations: 'nodes/BusinessMessagingTrigger/' };
	return [...text.matchAll(/(?<![\w/.-])(test|tools|nodes|credentials|actions|helpers|transport|methods|conversations)\/[\w./-]*\.(?:ts|cjs)\b/g)].map(
		([path, top]) => `${underNode[top] ?? ''}${path}`,
	);
}

test('ARCHITECTURE.md and .dependency-cruiser.cjs name files that exist, and every file outside it the transport imports', () => {
	const missing = ['ARCHITECTURE.md', '.dependency-cruiser.cjs'].flatMap((doc) =>
		filesNamed(readFileSync(join(ROOT, doc), 'utf8'))
			.filter((file) => !existsSync(join(ROOT, file)))
			.map((file) => `${doc} names ${file}, which does not exist`),
	);
	expect(missing).toEqual([]);
	const architecture = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
	const layers = architecture.slice(architecture.indexOf('## Layers'), architecture.indexOf('## The send contract'));
	const transport = 'nodes/BusinessMessaging/transport/';
	const importedFromOutside = new Set(
		cruiseOnce()
			.modules.filter((m) => m.source.startsWith(transport))
			.flatMap((m) => m.dependencies.map((d) => d.resolved))
			.filter((file) => !file.startsWith(transport) && !file.includes('node_modules')),
	);
	expect(importedFromOutside.size).toBeGreaterThan(0);
	for (const file of importedFromOutside) expect({ file, namedInLayers: layers.includes(`\`${file}\``) }).toEqual({ file, namedInLayers: true });
}, 60_000);

/**
 * n8n's HTTP helpers are the transport's alone in the action node: an operation that made its own request
 * would skip Test Mode, Allowed Recipients, pacing and the no-double-send guard. Found with TypeScript's
 * own reading of the code, so a helper renamed or destructured is found too.
 */
const ACTION_NODE = 'nodes/BusinessMessaging/';

/** n8n-workflow's RequestHelperFunctions that send a request. */
const HTTP_HELPERS = ['httpRequest', 'httpRequestWithAuthentication', 'requestWithAuthenticationPaginated', 'request', 'requestWithAuthentication', 'requestOAuth1', 'requestOAuth2'];
/** Names nothing else in the node uses: found even on an untyped (`any`) context. */
const UNMISTAKABLE = /^(httpRequest|requestWithAuthentication|requestOAuth)/;

/** Action-node files outside transport/ that reach n8n's HTTP helpers, with why it is not the service they reach. */
const NOT_THE_SERVICE: Record<string, string> = {
	'nodes/BusinessMessaging/helpers/triggerLink.ts': 'registers a wait with the Business Messaging Trigger at n8n’s own webhook address',
};

/** The shipped code as TypeScript reads it, with extra files (the check's own probes) at the given paths. */
function shippedProgram(extra: Record<string, string>): ts.Program {
	const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
	const virtual = new Map(Object.entries(extra).map(([file, text]) => [join(ROOT, file), text]));
	const host = ts.createCompilerHost(config.options);
	const { getSourceFile, fileExists, readFile } = host;
	host.getSourceFile = (name, language, ...rest) =>
		virtual.has(name) ? ts.createSourceFile(name, virtual.get(name)!, language) : getSourceFile.call(host, name, language, ...rest);
	host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
	host.readFile = (name) => virtual.get(name) ?? readFile.call(host, name);
	return ts.createProgram([...config.fileNames, ...virtual.keys()], config.options, host);
}

const isRequestHelper = (symbol: ts.Symbol | undefined) =>
	Boolean(symbol?.declarations?.some((d) => ts.isInterfaceDeclaration(d.parent) && d.parent.name.text === 'RequestHelperFunctions'));

/** The HTTP helper a node reaches: `helpers.httpRequest`, `helpers['request']`, `{ httpRequest } = helpers`, or the global fetch. */
function httpHelperAt(checker: ts.TypeChecker, node: ts.Node): string | undefined {
	if (ts.isIdentifier(node) && node.text === 'fetch' && !ts.isPropertyAccessExpression(node.parent)) {
		const declarations = checker.getSymbolAtLocation(node)?.declarations ?? [];
		return declarations.length > 0 && declarations.every((d) => d.getSourceFile().isDeclarationFile) ? 'fetch' : undefined;
	}
	let name: ts.Identifier | ts.StringLiteralLike | undefined;
	let owner: ts.Node | undefined;
	let symbol: ts.Symbol | undefined;
	if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.name)) [name, owner] = [node.name, node.expression];
	else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) [name, owner] = [node.argumentExpression, node.expression];
	else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
		const property = node.propertyName ?? node.name;
		if (ts.isIdentifier(property) || ts.isStringLiteralLike(property)) {
			name = property;
			symbol = checker.getTypeAtLocation(node.parent).getProperty(property.text);
		}
	}
	if (!name || !HTTP_HELPERS.includes(name.text)) return undefined;
	symbol ??= checker.getSymbolAtLocation(name);
	if (isRequestHelper(symbol) || UNMISTAKABLE.test(name.text) || (owner && /\bhelpers\)?$/.test(owner.getText()))) return name.text;
	return undefined;
}

/** Every place in the action node outside transport/ that reaches an HTTP helper, as `file:line helper`. */
function httpHelperUses(program: ts.Program): string[] {
	const checker = program.getTypeChecker();
	const uses: string[] = [];
	for (const source of program.getSourceFiles()) {
		const file = relative(ROOT, source.fileName);
		if (!file.startsWith(ACTION_NODE) || file.startsWith(`${ACTION_NODE}transport/`)) continue;
		const visit = (node: ts.Node) => {
			const helper = httpHelperAt(checker, node);
			if (helper) uses.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${helper}`);
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return uses;
}

const WHAT_TO_DO =
	'reaches n8n’s HTTP helpers outside the transport, past Test Mode, Allowed Recipients, pacing and the no-double-send guard. ' +
	'To send a message, declare the operation kind \'send\' and let the send pipeline send it (ARCHITECTURE.md, "How to add a send"); ' +
	'for a request that sends nothing to a customer, call apiRequest (transport/index.ts).';

const PROBE = `${ACTION_NODE}actions/message/probe.operation.ts`;
const PROBE_TEXT = `import type { IExecuteFunctions } from 'n8n-workflow';
import type { RunState } from '../../helpers/runState';
export async function probe(run: RunState, ctx: IExecuteFunctions) {
	await run.ctx.helpers.httpRequestWithAuthentication.call(run.ctx, 'x', { url: '/w/message/text' });
	const { httpRequest } = ctx.helpers;
	const helpers = ctx.helpers; await helpers.request('x');
	await ctx.helpers['requestWithAuthentication'].call(ctx, 'x', {});
	await (ctx as any).helpers.requestOAuth2('x', {});
	await (ctx as any).helpers.request('x');
	await fetch('https://service.example/w/message/text');
	const question = { request: { path: '/w/message/text' } }; const { request } = question;
	return [httpRequest, question.request, request];
}
`;

// Built once for the checks below: the shipped code and the probes.
let program: ts.Program;
beforeAll(() => (program = shippedProgram({ [PROBE]: PROBE_TEXT, [STATE_PROBE]: STATE_PROBE_TEXT })), 60_000);

describe('n8n’s HTTP helpers only in the transport', () => {
	let uses: string[];
	beforeAll(() => (uses = httpHelperUses(program)));

	test('no operation, helper or method of the action node makes a request of its own', () => {
		const breaches = uses.filter((use) => !use.startsWith(PROBE) && !Object.hasOwn(NOT_THE_SERVICE, use.split(':')[0]));
		expect(breaches.map((use) => `${use} ${WHAT_TO_DO}`)).toEqual([]);
		// Each exception is still needed (it would otherwise outlive its reason).
		for (const file of Object.keys(NOT_THE_SERVICE)) expect(uses.some((use) => use.startsWith(`${file}:`))).toBe(true);
	});

	test('the check finds a hand-built request however it is written, and nothing else', () => {
		expect(uses.filter((use) => use.startsWith(PROBE)).map((use) => use.slice(PROBE.length + 1))).toEqual([
			'4 httpRequestWithAuthentication',
			'5 httpRequest',
			'6 request',
			'7 requestWithAuthentication',
			'8 requestOAuth2',
			'9 request',
			'10 fetch',
		]);
	});
});

/**
 * No state of the action node outlives an execution or is shared between two: what one execution shares
 * lives in its RunState (helpers/runState.ts), which the router creates for each execution and webhook
 * request. Module-level state would carry one execution's values into the next, on every worker.
 */
function moduleState(program: ts.Program): string[] {
	const found: string[] = [];
	for (const source of program.getSourceFiles()) {
		const file = relative(ROOT, source.fileName);
		if (!file.startsWith(ACTION_NODE)) continue;
		for (const statement of source.statements) {
			if (!ts.isVariableStatement(statement)) continue;
			const mutable = (statement.declarationList.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) !== ts.NodeFlags.Const;
			for (const declaration of statement.declarationList.declarations) {
				const made = declaration.initializer && ts.isNewExpression(declaration.initializer) ? declaration.initializer.expression.getText(source) : '';
				if (mutable || /^(Weak)?(Map|Set)$/.test(made)) {
					const line = source.getLineAndCharacterOfPosition(declaration.getStart(source)).line + 1;
					found.push(`${file}:${line} ${declaration.name.getText(source)}`);
				}
			}
		}
	}
	return found;
}

const STATE_PROBE = `${ACTION_NODE}helpers/stateProbe.ts`;
const STATE_PROBE_TEXT = `const byRun = new WeakMap<object, string>();
let count = 0;
const LIMIT = 3;
export const seen = new Set<string>();
export function f(key: object) {
	const local = new Map<string, number>();
	return [byRun.get(key), count++, LIMIT, local];
}
`;

describe('what one execution shares lives in its RunState', () => {
	let state: string[];
	beforeAll(() => (state = moduleState(program)));

	test('the action node keeps no module-level Map, Set, WeakMap, WeakSet or variable', () => {
		expect(state.filter((found) => !found.startsWith(STATE_PROBE)).map((found) => `${found}: ${KEEP_IN_RUN_STATE}`)).toEqual([]);
	});

	test('the check finds module-level state and leaves constants and a function’s own state alone', () => {
		expect(state.filter((found) => found.startsWith(STATE_PROBE)).map((found) => found.slice(STATE_PROBE.length + 1))).toEqual([
			'1 byRun',
			'2 count',
			'4 seen',
		]);
	});
});

const KEEP_IN_RUN_STATE =
	'module-level state outlives the execution and is shared with every other. Keep it in the RunState (helpers/runState.ts), ' +
	'which the router creates for each execution and webhook request, and read it from the run the operation is given.';
