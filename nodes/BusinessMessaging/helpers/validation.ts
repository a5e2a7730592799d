import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** Values the spec names. Checked before any request, so a typo fails with the field's name. */
export const ORDER_STATUSES = ['pending', 'accepted', 'shipped', 'delivered', 'completed'] as const;
export const PAYMENT_STATUSES = ['paid', 'unpaid'] as const;
export const MEDIA_TYPES = ['image', 'video', 'audio', 'document'] as const;

type Field = { label: string; itemIndex: number };

function fail(ctx: IExecuteFunctions, { label, itemIndex }: Field, problem: string, description?: string): never {
	throw new NodeOperationError(ctx.getNode(), `${label}: ${problem}`, { itemIndex, description });
}

/** A real calendar date written YYYY-MM-DD (2024-02-30 is rejected). */
export function checkDate(ctx: IExecuteFunctions, field: Field, value: unknown): string {
	const text = String(value ?? '').trim();
	const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
	const date = match ? new Date(Date.UTC(+match[1], +match[2] - 1, +match[3])) : undefined;
	const real =
		date !== undefined &&
		date.getUTCFullYear() === +match![1] &&
		date.getUTCMonth() === +match![2] - 1 &&
		date.getUTCDate() === +match![3];
	if (!real) fail(ctx, field, `"${text}" is not a date in the form YYYY-MM-DD`, 'For example 2025-03-31.');
	return text;
}

export function checkOneOf<T extends string>(
	ctx: IExecuteFunctions,
	field: Field,
	value: unknown,
	allowed: readonly T[],
): T {
	const text = String(value ?? '').trim();
	if (!(allowed as readonly string[]).includes(text)) {
		fail(ctx, field, `"${text}" is not one of ${allowed.join(', ')}`);
	}
	return text as T;
}

export function checkPositiveInteger(ctx: IExecuteFunctions, field: Field, value: unknown): number {
	const text = String(value ?? '').trim();
	if (text === '') fail(ctx, field, 'is empty');
	if (!/^[1-9]\d*$/.test(text) || !Number.isSafeInteger(Number(text))) {
		fail(ctx, field, `"${text}" is not a positive whole number`);
	}
	return Number(text);
}

/** Text to send: refused when empty or only spaces, with what to do next. */
export function checkNotEmpty(ctx: IExecuteFunctions, field: Field, value: unknown): string {
	const text = typeof value === 'string' ? value : String(value ?? '');
	if (text.trim() === '') {
		fail(
			ctx,
			field,
			text === '' ? 'is empty' : 'has only spaces, nothing to send',
			`Type what to send in ${field.label}, or drag a field from the input panel onto it. If ${field.label} is an expression, check that every input item has a value for it.`,
		);
	}
	return text;
}

/**
 * A recipient number: spaces, dashes, dots and brackets are dropped, then 7 to 15 digits with an
 * optional leading "+" remain (the E.164 length; the spec does not show the format).
 */
export function normalizePhone(value: unknown): string {
	return String(value ?? '').replace(/[\s\-.()]/g, '');
}

export function checkPhone(ctx: IExecuteFunctions, field: Field, value: unknown): string {
	const text = String(value ?? '').trim();
	const phone = normalizePhone(text);
	if (!/^\+?[1-9]\d{6,14}$/.test(phone)) {
		fail(ctx, field, `"${text}" is not a phone number`, 'Use the international format, for example +4915112345678.');
	}
	return phone;
}
