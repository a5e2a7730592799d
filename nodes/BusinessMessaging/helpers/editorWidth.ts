/**
 * How wide n8n's editor draws a text, for the few texts the package writes that n8n cuts at a fixed width
 * without a tooltip of the package's own (docs/action-node.md, "Templates"): a Values label and the chosen
 * template's name. Widths of n8n's font (Inter) as Chromium draws it, rounded up.
 */

/** Advance widths in px at 12 px of the characters 32 (space) to 126 (~). */
const ASCII_PX = [
	3.1, 3.5, 5.6, 7.6, 7.7, 11.8, 7.8, 3.6, 4.4, 4.4, 6.1, 8.0, 3.5, 5.6, 3.5, 4.4, 7.6, 4.9, 7.4, 7.5, 7.8, 7.2, 7.5, 7.0,
	7.5, 7.5, 3.5, 3.7, 8.0, 8.0, 8.0, 6.2, 11.6, 8.5, 7.9, 8.8, 8.7, 7.3, 7.1, 9.0, 9.0, 3.3, 6.9, 8.1, 6.8, 10.9, 9.1, 9.2,
	7.7, 9.2, 7.8, 7.7, 7.8, 9.0, 8.5, 12.1, 8.2, 8.2, 7.6, 4.4, 3.8, 4.4, 5.7, 5.5, 3.9, 6.8, 7.4, 6.9, 7.4, 7.0, 4.1, 7.4,
	7.1, 3.0, 3.0, 6.6, 3.0, 10.6, 7.1, 7.2, 7.4, 7.4, 4.7, 6.4, 4.0, 7.1, 6.8, 9.9, 6.6, 6.8, 6.7, 5.2, 4.0, 5.2, 8.0,
];
/** Any other character: as wide as the widest letter (accented letters are narrower, CJK about this). */
const OTHER_PX = 12.1;

/** The width of `text` at `fontPx` (n8n's labels: 12 px; its inputs: 13 px). */
export function drawnWidth(text: string, fontPx = 12): number {
	let px = 0;
	for (const char of text) {
		const code = char.codePointAt(0) ?? 0;
		px += code >= 32 && code <= 126 ? ASCII_PX[code - 32] : OTHER_PX;
	}
	return (px * fontPx) / 12;
}

/**
 * `whole` when it fits `maxPx`; else `shortened(part)` with the longest beginning of `part` that fits
 * (ending in "…"), or undefined when fewer than `minChars` of it would.
 */
export function fitWidth(
	whole: string,
	part: string,
	shortened: (beginning: string) => string,
	maxPx: number,
	minChars = 3,
): string | undefined {
	if (drawnWidth(whole) <= maxPx) return whole;
	for (let chars = part.length - 1; chars >= minChars; chars--) {
		const text = shortened(`${[...part].slice(0, chars).join('').trimEnd()}…`);
		if (drawnWidth(text) <= maxPx) return text;
	}
	return undefined;
}
