/** Heading anchors as GitHub and npm make them (github-slugger): lower case, punctuation dropped, spaces to dashes. */
export function headingAnchors(markdown: string): Set<string> {
	return new Set(
		markdown
			.split('\n')
			.filter((line) => /^#{1,6} /.test(line))
			.map((line) =>
				line
					.replace(/^#+ /, '')
					.trim()
					.toLowerCase()
					.replace(/[^\p{L}\p{N}\s_-]/gu, '')
					.replace(/\s/g, '-'),
			),
	);
}
