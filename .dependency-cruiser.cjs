/**
 * The import rules of this package (ARCHITECTURE.md, "Layers"), checked by test/tools/architecture.test.ts:
 * `npx depcruise nodes credentials tools` prints any breach.
 */
const NODE = '^nodes/BusinessMessaging/';
module.exports = {
	forbidden: [
		{ name: 'no-cycle', severity: 'error', comment: 'No module imports itself through others.', from: {}, to: { circular: true } },
		{
			name: 'transport-imports-nothing-above-it',
			severity: 'error',
			comment: 'transport/ is the lowest layer of the action node: it knows the credential, never the helpers, actions or node.',
			from: { path: `${NODE}transport/` },
			to: { path: `${NODE}(helpers|actions|methods)/|${NODE}BusinessMessaging\\.node\\.ts$` },
		},
		{
			name: 'helpers-import-no-action',
			severity: 'error',
			comment: 'helpers/ serve the actions and use the transport, never the other way.',
			from: { path: `${NODE}helpers/` },
			to: { path: `${NODE}(actions|methods)/|${NODE}BusinessMessaging\\.node\\.ts$` },
		},
		{
			name: 'actions-import-no-node',
			severity: 'error',
			from: { path: `${NODE}(actions|methods)/` },
			to: { path: `${NODE}BusinessMessaging\\.node\\.ts$` },
		},
		{
			name: 'node-imports-the-router',
			severity: 'error',
			comment: 'The node file reaches the operations through the router only.',
			from: { path: `${NODE}BusinessMessaging\\.node\\.ts$` },
			to: { path: `${NODE}(actions/(?!router\\.ts$)|helpers/|transport/)` },
		},
		{
			name: 'messages-only-through-the-send-pipeline',
			severity: 'error',
			comment: 'Only the send pipeline may post a message, so no operation can skip Test Mode, Allowed Recipients, pacing or the guard.',
			from: { pathNot: `^${NODE.slice(1)}actions/send\\.ts$` },
			to: { path: `${NODE}transport/message\\.ts$` },
		},
		{
			name: 'request-internals-stay-in-transport',
			severity: 'error',
			from: { pathNot: `${NODE}transport/` },
			to: { path: `${NODE}transport/request\\.ts$` },
		},
		{
			name: 'tools-stand-on-their-own',
			severity: 'error',
			comment: 'tools/ (the n8n driver, the sandbox) never imports from test/.',
			from: { path: '^tools/' },
			to: { path: '^test/' },
		},
		{
			name: 'shipped-code-imports-no-dev-code',
			severity: 'error',
			from: { path: '^(nodes|credentials)/' },
			to: { path: '^(test|tools|bench|scripts)/' },
		},
	],
	options: {
		doNotFollow: { path: 'node_modules' },
		exclude: { path: '(^|/)node_modules/|^dist/' },
		tsPreCompilationDeps: true,
		tsConfig: { fileName: 'test/tsconfig.json' },
		enhancedResolveOptions: { extensions: ['.ts', '.js', '.cjs', '.json'] },
	},
};
