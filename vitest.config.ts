import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/setup/global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time on two cores, where Vitest's default gives one: a file spends much of its
    // time waiting on the servers, databases and browsers it starts, and one at a time left a core
    // idle (docs/development.md, "Tests").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', './tests/setup/summary-reporter.ts'],
  },
});
