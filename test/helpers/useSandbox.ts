/** One sandbox per test file: started before the file's tests, reset before each, stopped after. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SandboxProcess } from '../../tools/n8n/sandbox';
import { startSandbox, type Sandbox } from '../../tools/sandbox';

/**
 * The sandbox in its own process for the test file: it notes each request when it arrives, whatever
 * this process's thread (n8n's) is doing.
 */
export function useSandboxProcess(): SandboxProcess {
	const dir = mkdtempSync(join(tmpdir(), 'bm-sandbox-'));
	const service = new SandboxProcess(join(dir, 'sandbox.log'));
	beforeAll(() => service.start(), 60_000);
	afterAll(async () => {
		await service.stop();
		rmSync(dir, { recursive: true, force: true });
	});
	return service;
}

export function useSandbox(set: (sandbox: Sandbox) => void): void {
	let started: Sandbox | undefined;
	beforeAll(async () => {
		started = await startSandbox();
		set(started);
	});
	afterAll(async () => {
		await started?.stop();
	});
	beforeEach(() => started?.reset());
}
