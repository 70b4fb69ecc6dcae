import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: resolve(import.meta.dirname, '..'),
  test: {
    globalSetup: ['test/run-folder.ts'],
    pool: 'forks',
    // Two files at a time on two cores: much of a file's time is spent waiting on the processes it
    // drives (ardesk serve, Chromium, SMTP and IMAP peers), so the second worker fills those gaps.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A poll waits on a server round trip or a render; with two files sharing the cores, one
    // second (vitest's default) is too short, and a poll still ends as soon as it passes.
    expect: { poll: { timeout: 10_000 } },
    // CI reads the JSON report to print its own "N passed, N failed" line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-output/vitest.json' },
    projects: [
      {
        // In-process files (the core over a temp SQLite file, the API through app.request()) keep
        // nothing in modules between files, so a worker reuses its loaded modules for the next
        // file instead of importing the core and the HTTP app again (about a second a file).
        extends: true,
        test: { name: 'in-process', include: ['test/unit/**/*.test.ts', 'test/api/**/*.test.ts'], isolate: false },
      },
      {
        // These files drive child processes (ardesk serve, Chromium, the CLI) and keep their state
        // in them, not in modules: a worker reuses its loaded modules here too. A fresh worker per
        // file cost 2-9 s before each of about a hundred files, while the other worker ran alone.
        extends: true,
        test: { name: 'processes', isolate: false, include: ['test/cli/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/browser/**/*.test.ts'] },
      },
    ],
  },
});
