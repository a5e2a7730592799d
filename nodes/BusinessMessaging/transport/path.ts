/** The service's message endpoints: only the send pipeline reaches them (transport/message.ts). */
export const MESSAGE_PATH_PREFIX = '/w/message/';
export type MessagePath = `${typeof MESSAGE_PATH_PREFIX}${string}`;

/** Characters whose escape keeps the path's parts apart: decoded, they would start a query or fragment. */
const KEPT_ESCAPED = '?#%';

/**
 * The path as the request really goes out: ASCII escapes decoded (`%2e`, `%2f`, `%77`), backslashes and
 * repeated slashes as one slash, and dot segments resolved as n8n's HTTP client resolves them. The
 * transport decides on this form and sends this form, so a path cannot be one endpoint to the guard and
 * another on the wire.
 */
export function normalPath(path: string): string {
	const decoded = path.replace(/%([0-7][0-9a-f])/gi, (escape, hex: string) => {
		const char = String.fromCharCode(parseInt(hex, 16));
		return KEPT_ESCAPED.includes(char) || char < ' ' ? escape : char;
	});
	const url = new URL(`http://service.invalid/${decoded.replace(/[\\/]+/g, '/').replace(/^\//, '')}`);
	return `${url.pathname}${url.search}`;
}

/** Whether a request to `path` would reach a message endpoint. */
export function isMessagePath(path: string): boolean {
	return normalPath(path).toLowerCase().startsWith(MESSAGE_PATH_PREFIX);
}
