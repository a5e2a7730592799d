import type { IExecuteFunctions } from 'n8n-workflow';

import { normalPath } from '../transport';
import { type BinaryFile, fileHash } from './multipart';

/** A value JSON carries: what a message field may hold (a text, coordinates as numbers, a list). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A message request as the service gets it, beside the recipient and sender the pipeline adds. */
export interface SentRequest {
	path: string;
	fields: Record<string, JsonValue>;
	file?: BinaryFile;
}

/** JSON with every object's keys in order, so the same fields give the same text however they were written. */
function canonical(value: JsonValue | undefined): string {
	if (Array.isArray(value)) return `[${value.map((entry) => canonical(entry ?? null)).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort();
		return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
	}
	return JSON.stringify(value ?? null);
}

/**
 * What a message request sends, as one text: the endpoint as it goes out, every field, and the file's
 * bytes (a hash), name and type. The no-double-send guard recognises a message by this (with its
 * recipient), so no operation writes a key: a field cannot be left out of it, nor anything put in it
 * that is not sent.
 */
export async function messageKey(ctx: IExecuteFunctions, itemIndex: number, { path, fields, file }: SentRequest): Promise<string> {
	const sent: JsonValue[] = [normalPath(path), fields];
	if (file) {
		const { fileName, mimeType } = file.binary;
		sent.push({ field: file.field, name: fileName ?? null, type: mimeType ?? null, sha256: await fileHash(ctx, itemIndex, file) });
	}
	return canonical(sent);
}
