/**
 * WCAG 2.2 contrast of a page as the browser draws it: every visible text against the colour behind it
 * (backgrounds composited from the page down), and every form control's edge (its border, or for a
 * borderless button its fill) against the colour around it, and a border also against the control's fill. Computed from the browser's computed
 * styles, not read off the CSS.
 */
import type { Page } from 'playwright-core';

/** AA: 4.5:1 for text (1.4.3), 3:1 for what identifies a control (1.4.11). */
export const TEXT_MIN = 4.5;
export const CONTROL_MIN = 3;

export interface ContrastPair {
	what: string;
	ratio: number;
	min: number;
}

// Runs in the page (a string: the test project compiles without the DOM's types).
const MEASURE = `(() => {
	const parse = (c) => {
		const m = /rgba?\\(([^)]+)\\)/.exec(c);
		if (!m) return null;
		const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
		return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
	};
	const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });
	const lum = (c) => {
		const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
		return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
	};
	const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
	const behind = (el) => {
		const chain = [];
		for (let e = el; e; e = e.parentElement) chain.unshift(e);
		let colour = { r: 255, g: 255, b: 255, a: 1 };
		for (const e of chain) { const bg = parse(getComputedStyle(e).backgroundColor); if (bg && bg.a > 0) colour = over(bg, colour); }
		return colour;
	};
	const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el); return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
	const name = (el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '');
	const pairs = [];
	for (const el of Array.from(document.body.querySelectorAll('*'))) {
		if (!visible(el)) continue;
		const text = Array.from(el.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent.trim()).join(' ').trim();
		if (text) {
			const bg = behind(el);
			pairs.push({ what: 'text ' + name(el) + ' "' + text.slice(0, 30) + '"', ratio: ratio(over(parse(getComputedStyle(el).color), bg), bg), min: ${TEXT_MIN} });
		}
		if (el.matches('button, textarea, input, select')) {
			const s = getComputedStyle(el);
			const around = behind(el.parentElement);
			const border = parseFloat(s.borderTopWidth) > 0 && s.borderTopStyle !== 'none' ? parse(s.borderTopColor) : null;
			const edge = border && border.a > 0 ? over(border, around) : behind(el);
			pairs.push({ what: (border ? 'border of ' : 'fill of ') + name(el) + ' against the page', ratio: ratio(edge, around), min: ${CONTROL_MIN} });
			// A border also against the control's own fill (the answer box is lighter than the page in dark mode).
			if (border) pairs.push({ what: 'border of ' + name(el) + ' against its fill', ratio: ratio(edge, behind(el)), min: ${CONTROL_MIN} });
		}
	}
	return pairs;
})()`;

export async function contrastPairs(page: Page): Promise<ContrastPair[]> {
	return (await page.evaluate(MEASURE)) as ContrastPair[];
}

/** The lowest text and control ratios, and every pair below its minimum. */
export async function contrastOf(page: Page): Promise<{ text: number; control: number; failing: string[] }> {
	const pairs = await contrastPairs(page);
	const lowest = (min: number) => Math.min(...pairs.filter((p) => p.min === min).map((p) => p.ratio));
	return {
		text: lowest(TEXT_MIN),
		control: lowest(CONTROL_MIN),
		failing: pairs.filter((p) => p.ratio < p.min).map((p) => `${p.what}: ${p.ratio.toFixed(2)}:1 (needs ${p.min}:1)`),
	};
}
