import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Three files at a time on two cores: much of an end-to-end file's time is waiting (for a
    // daemon to start, a lease to run out, a bound to pass), which a third file fills. Measured
    // on a clean clone: 2 workers 23.2 min, 3 workers: see docs/development.md.
    maxWorkers: 3,
  },
});
