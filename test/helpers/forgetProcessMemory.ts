/**
 * After each test file, the trigger forgets what it keeps in process memory, as a restart does: the limits of
 * status waits it keeps (sharing/statusLimit.ts) tick until then, and would keep the test process alive.
 */
import { forgetRegistrations } from '../../nodes/BusinessMessagingTrigger/sharing/registry';

afterAll(() => forgetRegistrations());
