/**
 * The lock check (lockfile.ts): the committed lock passes; each way a lock and package.json drift apart, or a
 * lock written on one platform only, fails it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Lock, lockProblems, type Manifest, resolveInLock } from './lockfile';

const ROOT = join(__dirname, '../..');
const read = <T>(file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as T;
const manifest = () => read<Manifest>('package.json');
const lock = () => read<Lock>('package-lock.json');

it('the committed lock agrees with package.json and holds every platform’s optional packages', () => {
	expect(lockProblems(manifest(), lock())).toEqual([]);
	expect(lockProblems(read<Manifest>('tools/npm-tools/package.json'), read<Lock>('tools/npm-tools/package-lock.json'))).toEqual([]);
});

it('a devDependency pinned to another version in package.json only', () => {
	const m = manifest();
	m.devDependencies!.typescript = '5.9.2';
	expect(lockProblems(m, lock()).join('\n')).toMatch(/devDependencies .* differ|typescript 5\.9\.3, package\.json pins 5\.9\.2/);
});

it('a dependency added to package.json only', () => {
	const m = manifest();
	m.devDependencies!['left-pad'] = '1.3.0';
	expect(lockProblems(m, lock()).join('\n')).toMatch(/no left-pad/);
});

it('a dependency removed from package.json only', () => {
	const m = manifest();
	delete m.devDependencies!.undici;
	expect(lockProblems(m, lock()).join('\n')).toMatch(/devDependencies .* differ/);
});

it('package.json’s version moved without the lock', () => {
	const m = manifest();
	m.version = '9.9.9';
	expect(lockProblems(m, lock()).join('\n')).toMatch(/package\.json says n8n-nodes-business-messaging@9\.9\.9/);
});

it('another platform’s optional binary missing (a lock written by an npm that left it out)', () => {
	const l = lock();
	const [path, entry] = Object.entries(l.packages).find(([, e]) => Object.keys(e.optionalDependencies ?? {}).some((n) => /darwin/.test(n)))!;
	const darwin = Object.keys(entry.optionalDependencies!).find((n) => /darwin/.test(n))!;
	delete l.packages[resolveInLock(l, path, darwin)!];
	expect(lockProblems(manifest(), l).join('\n')).toMatch(new RegExp(`lists the optional ${darwin.replace('/', '\\/')}, which the lock lacks`));
});

it('resolves as Node does: the nearest node_modules up the path', () => {
	const l: Lock = { packages: { '': {}, 'node_modules/a': {}, 'node_modules/b': {}, 'node_modules/b/node_modules/a': {} } };
	expect(resolveInLock(l, 'node_modules/b', 'a')).toBe('node_modules/b/node_modules/a');
	expect(resolveInLock(l, 'node_modules/c', 'a')).toBe('node_modules/a');
	expect(resolveInLock(l, '', 'z')).toBeUndefined();
});
