/**
 * Whether a chat reply is one of the expected answers, the way people type them: case, accents, spaces
 * and punctuation or emoji around the words do not matter ("yes", " Yes! ", "YES 👍" and "Yés." all
 * match "YES"); the words themselves must be the same ("y" or "yeah" do not match "YES").
 */

/** The reply as compared: NFKC, accents dropped, lower case, only letters and digits kept, one space between words. */
export function comparable(text: string): string {
	return text
		.normalize('NFKD')
		.replace(/\p{M}/gu, '')
		.normalize('NFKC')
		.toLowerCase()
		.replace(/[^\p{L}\p{N}]+/gu, ' ')
		.trim();
}

/** The expected answer (as the user wrote it) that the reply matches, or undefined. */
export function matchingAnswer(reply: string, expected: readonly string[]): string | undefined {
	const said = comparable(reply);
	if (said === '') return undefined;
	return expected.find((answer) => comparable(answer) === said);
}

/** The expected answers as given: trimmed, empty ones and repeats (as compared) left out. */
export function expectedAnswers(values: unknown[]): string[] {
	const seen = new Set<string>();
	const answers: string[] = [];
	for (const value of values) {
		const answer = String(value ?? '').trim();
		const key = comparable(answer);
		if (key === '' || seen.has(key)) continue;
		seen.add(key);
		answers.push(answer);
	}
	return answers;
}
