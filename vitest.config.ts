import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration tests start real servers; two cores, so keep the pool small.
    maxWorkers: 2,
  },
});
