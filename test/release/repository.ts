/**
 * Links into GitHub that name this repository, or its owner, use exactly package.json's address (the one
 * place it is written; tools/release/repository.ts), and point into `main`. A link left on an old address,
 * another owner's fork or a branch other than main would break on the npm page or after a move.
 */
import type { Repository } from '../../tools/release/repository';

export function addressProblems(file: string, markdown: string, repo: Repository): string[] {
	const problems: string[] = [];
	for (const [url, owner, name, rest] of markdown.matchAll(/https?:\/\/github\.com\/([\w.-]+)\/([\w.-]+?)(?:\.git)?(\/[^\s)>"'`]*)?(?=[\s)>"'`]|$)/gm)) {
		const ours = owner.toLowerCase() === repo.owner.toLowerCase() || name.toLowerCase() === repo.name.toLowerCase();
		if (!ours) continue;
		if (owner !== repo.owner || name !== repo.name) problems.push(`${file}: ${url} is not package.json's repository ${repo.web}`);
		else if (rest && /^\/(blob|tree)\//.test(rest) && !/^\/(blob|tree)\/main\//.test(rest)) problems.push(`${file}: ${url} points into another branch than main`);
	}
	return problems;
}
