// Copies what tsc does not: the light and dark icons (n8n resolves `file:` icons relative to the
// compiled files) and each node's codex file (its category and documentation links).
const { src, dest, parallel } = require('gulp');

function buildIcons() {
	return src('icons/*.svg', { encoding: false }).pipe(dest('dist/icons'));
}

function buildCodex() {
	return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

exports['build:assets'] = parallel(buildIcons, buildCodex);
