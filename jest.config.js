/** Unit and in-process workflow tests. The end-to-end suite (test/e2e) runs separately: npm run test:e2e. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/'],
	transform: { '^.+\\.ts$': ['@swc/jest'] },
	testTimeout: 30000,
	setupFilesAfterEnv: ['<rootDir>/test/helpers/forgetProcessMemory.ts'],
	reporters: ['default', '<rootDir>/test/helpers/totals-reporter.js'],
};
