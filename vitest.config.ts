import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
    // Capture tests drive a real Chromium; two cores cannot run many of them at once.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Fixture pages are served on 127.0.0.1; the target check forbids loopback unless allowed.
    env: { SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8', SHUTTER_LOG_LEVEL: 'silent' },
  },
});
