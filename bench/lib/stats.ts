/** Small statistics and table printing for the benchmarks. */

export function median(values: number[]): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100) of values that are already sorted ascending. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
	if (sorted.length === 0) return NaN;
	const rank = Math.ceil((p / 100) * sorted.length);
	return sorted[Math.min(Math.max(rank - 1, 0), sorted.length - 1)];
}

/** Fixed decimals, with thousands separators for big numbers. */
export function fmt(value: number, decimals = 1): string {
	if (!Number.isFinite(value)) return '–';
	return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

export function ratio(value: number, decimals = 2): string {
	return Number.isFinite(value) ? `${value.toFixed(decimals)}×` : '–';
}

export const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');

/**
 * A plain-text table: columns padded to their widest cell, numbers (cells starting with a digit,
 * a sign or a dash) right-aligned.
 */
export function table(title: string, header: string[], rows: string[][], notes: string[] = []): string {
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
	const numeric = (cell: string) => /^[-+–]?[0-9.,]/.test(cell) || cell === '–';
	const line = (cells: string[]) =>
		cells.map((c, i) => (numeric(c) && i > 0 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
	const rule = widths.map((w) => '-'.repeat(w)).join('  ');
	return [title, '', line(header), rule, ...rows.map(line), ...(notes.length ? ['', ...notes] : []), ''].join('\n');
}
