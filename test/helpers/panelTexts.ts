/**
 * What two notices in the node panel must say, checked the same way on the node's description (jest) and
 * on the text the editor shows (test:ui).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INodePropertyOptions } from 'n8n-workflow';

const ROOT = join(__dirname, '../..');

/** A statement that a mode is in some state ("is set", "is on", "was off"): the panel cannot know it. */
const STATE_CLAIM = /\b(?:is|was|are|were)\s+(?:now\s+|currently\s+)?(?:on|off|set|enabled|disabled|active|inactive)\b/i;

/** The names of the settings of a credential type's Test Mode field. */
export function testModeSettings(properties: Array<{ name: string; options?: unknown[] }>): string[] {
	const field = properties.find((p) => p.name === 'testMode');
	return ((field?.options ?? []) as INodePropertyOptions[]).map((o) => o.name);
}

/**
 * The send operations' Test Mode notice: it says Test Mode lives in the credential, names each setting of
 * the credential's Test Mode field ("Off: …", "Dry Run: …") with what it does, and claims no state.
 */
export function testModeNoticeProblems(text: string, settings: string[]): string[] {
	const problems: string[] = [];
	if (settings.length === 0) problems.push('the credential has no Test Mode settings');
	if (!/\bcredential\b/i.test(text)) problems.push('does not say that Test Mode is set in the credential');
	for (const setting of settings) {
		if (!text.includes(`${setting}: `)) problems.push(`does not say what "${setting}" does ("${setting}: …")`);
	}
	const claim = STATE_CLAIM.exec(text);
	if (claim) problems.push(`states a Test Mode it cannot read: "${claim[0]}"`);
	return problems;
}

/** Where "Test URL" and "Production URL" first come in a text: the order a set-up takes them in. */
function urlOrder(text: string): string[] {
	return ['Test URL', 'Production URL']
		.map((url) => [url, text.indexOf(url)] as const)
		.filter(([, at]) => at >= 0)
		.sort((a, b) => a[1] - b[1])
		.map(([url]) => url);
}

/** The README's trigger set-up, in its own words. */
export function readmeSetup(): string {
	const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
	const start = readme.indexOf('### Set-up');
	return readme.slice(start, readme.indexOf('\n### ', start + 1));
}

/** The trigger's notice takes the Test URL and the Production URL in the README's order. */
export function setupNoticeProblems(notice: string): string[] {
	const readme = urlOrder(readmeSetup());
	const said = urlOrder(notice);
	if (readme.length < 2) return [`the README's set-up does not name both URLs: ${readme.join(', ')}`];
	return said.join(' → ') === readme.join(' → ') ? [] : [`the notice takes ${said.join(' → ') || 'neither URL'}; the README's set-up ${readme.join(' → ')}`];
}
