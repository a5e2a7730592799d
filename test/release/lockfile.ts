/**
 * The committed lock and package.json agree, and the lock holds every platform's optional packages, so that
 * `npm ci` installs exactly it on any machine (CONTRIBUTING.md, "Installs"). Checked offline from the two
 * files; test:release also lets npm itself re-resolve the lock (`npm install --package-lock-only`) and
 * expects no change.
 */
type Deps = Record<string, string>;
interface LockEntry {
	version?: string;
	dependencies?: Deps;
	devDependencies?: Deps;
	peerDependencies?: Deps;
	optionalDependencies?: Deps;
	link?: boolean;
}
export interface Lock {
	name?: string;
	version?: string;
	lockfileVersion?: number;
	packages: Record<string, LockEntry>;
}
export interface Manifest {
	name: string;
	version: string;
	dependencies?: Deps;
	devDependencies?: Deps;
	peerDependencies?: Deps;
	optionalDependencies?: Deps;
}

const KINDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;
const json = (v: unknown) => JSON.stringify(v ?? {}, Object.keys((v as object) ?? {}).sort());

/** The lock entry a package at `from` gets for `name`, found as Node does: nearest node_modules up the path. */
export function resolveInLock(lock: Lock, from: string, name: string): string | undefined {
	let base = from;
	for (;;) {
		const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
		if (lock.packages[candidate]) return candidate;
		if (!base) return undefined;
		const cut = base.lastIndexOf('/node_modules/');
		base = cut < 0 ? '' : base.slice(0, cut);
	}
}

export function lockProblems(manifest: Manifest, lock: Lock, label = 'package-lock.json'): string[] {
	const problems: string[] = [];
	if (lock.lockfileVersion !== 3) problems.push(`${label}: lockfileVersion ${lock.lockfileVersion}, npm 11 writes 3`);
	if (lock.name !== manifest.name || lock.version !== manifest.version) problems.push(`${label}: ${lock.name}@${lock.version}, package.json says ${manifest.name}@${manifest.version}`);
	const root = lock.packages[''] ?? {};
	for (const kind of KINDS) {
		if (json(root[kind]) !== json(manifest[kind])) problems.push(`${label}: its ${kind} ${JSON.stringify(root[kind] ?? {})} differ from package.json's ${JSON.stringify(manifest[kind] ?? {})}`);
	}
	for (const kind of ['dependencies', 'devDependencies', 'optionalDependencies'] as const) {
		for (const [name, spec] of Object.entries(manifest[kind] ?? {})) {
			const at = resolveInLock(lock, '', name);
			const version = at && lock.packages[at].version;
			if (!at) problems.push(`${label}: no ${name} (package.json ${kind}: ${spec})`);
			else if (/^\d+\.\d+\.\d+$/.test(spec) && version !== spec) problems.push(`${label}: ${name} ${version}, package.json pins ${spec}`);
		}
	}
	// Every optional dependency of every package, whatever its platform: npm ci refuses a lock that lacks one.
	for (const [path, entry] of Object.entries(lock.packages)) {
		for (const name of Object.keys(entry.optionalDependencies ?? {})) {
			if (!resolveInLock(lock, path, name)) problems.push(`${label}: ${path || 'the package'} lists the optional ${name}, which the lock lacks (written on one platform only?)`);
		}
	}
	return problems;
}
