// Copies the light and dark icons next to the compiled nodes and credentials (n8n resolves `file:` icons
// relative to the compiled files).
const { src, dest } = require('gulp');

function buildIcons() {
	return src('icons/*.svg', { encoding: false }).pipe(dest('dist/icons'));
}

exports['build:icons'] = buildIcons;
