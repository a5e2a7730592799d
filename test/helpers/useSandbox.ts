/** One sandbox per test file: started before the file's tests, reset before each, stopped after. */
import { startSandbox, type Sandbox } from '../../tools/sandbox';

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
