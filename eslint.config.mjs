import { config } from '@n8n/node-cli/eslint';
import { globalIgnores } from 'eslint/config';

// n8n's community-node rules apply to what ships (nodes/, credentials/, package.json). Tests, the
// sandbox, tools and benchmarks run on plain Node, never inside n8n, so those rules don't fit them.
export default [globalIgnores(['test/**', 'tools/**', 'scripts/**', 'bench/**', '.demo/**', '.e2e/**', 'jest.config.js', 'gulpfile.js']), ...config];
