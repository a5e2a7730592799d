/**
 * HTTP/1.1 over a raw socket, for requests that must leave at an exact moment or break at an exact byte
 * (fetch hides both): the fault suite's hang-ups, and an event sent the moment n8n opens its port.
 */
import { connect, type Socket } from 'node:net';

export interface RawRequest {
	head: string;
	body: Buffer;
}

/** A POST of `body` with `headers`; the connection closes after the answer. */
export function rawPost(url: URL, headers: Record<string, string>, body: string): RawRequest {
	const bytes = Buffer.from(body);
	const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
	return { head: `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n${lines}Content-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`, body: bytes };
}

/** The request's bytes, to send in one write. */
export function bytesOf(request: RawRequest): Buffer {
	return Buffer.concat([Buffer.from(request.head), request.body]);
}

export function open(url: URL): Promise<Socket> {
	return new Promise((resolve, reject) => {
		const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
		socket.on('error', reject);
	});
}

/** Writes `data` and waits until it has left this process. */
export function write(socket: Socket, data: string | Buffer): Promise<void> {
	return new Promise((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
}

/** Reads the whole answer (the connection closes after it): its status code (0 when there was none) and body. */
export function readAnswer(socket: Socket): Promise<{ status: number; body: string }> {
	return new Promise((resolve) => {
		let text = '';
		socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
		socket.on('close', () => {
			const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
			const body = Buffer.from(text.slice(text.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8');
			resolve({ status, body: status ? body : '' });
		});
		socket.on('error', () => undefined);
	});
}
