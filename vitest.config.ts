import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Three files at a time on two cores: with two, a fifth of the cores stayed idle (the files
    // wait on daemons, browsers and tools); with three they are busy (98%). Measured on a clean
    // clone, back to back, 2026-12-05: 1,093 s against 1,148-1,193 s with two, every test passing,
    // CPU time alike. (Three had been tried before and left at two, when a connection cut under
    // the load failed a test: none since.)
    maxWorkers: 3,
  },
});
