/**
 * Brings the release image's npm into npm's cache (pinned-npm.ts), before npm test runs the release checks and
 * jest side by side: both use it, and two `npm exec` fetching it into the same folder at once would clash.
 */
import { REPO_ROOT } from '../../tools/n8n/n8n';
import { releaseImageNpm } from './pinned-npm';

process.stdout.write(`the release image's npm: ${releaseImageNpm(REPO_ROOT).version}\n`);
