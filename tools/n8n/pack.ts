/**
 * `node --import tsx tools/n8n/pack.ts <dir>`: builds and packs the package into <dir> and prints the tarball's
 * path. npm test runs it once before the suites it runs side by side, and hands them the path (PACKED_TARBALL).
 */
import { buildAndPack } from './n8n';

const dir = process.argv[2];
if (!dir) throw new Error('usage: tools/n8n/pack.ts <dir>');
buildAndPack(dir).then(
	(tarball) => process.stdout.write(`${tarball}\n`),
	(error: Error) => {
		process.stderr.write(`${error.message}\n`);
		process.exit(1);
	},
);
