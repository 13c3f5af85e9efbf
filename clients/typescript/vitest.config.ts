import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The client's own tests, run alone: npx vitest run --config clients/typescript/vitest.config.ts
// (the repository's vitest.config.ts runs them with everything else). Same settings as the repository's.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // The repository's cache, not a node_modules/ of this package.
  cacheDir: fileURLToPath(new URL('../../node_modules/.vite', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8', SHUTTER_LOG_LEVEL: 'silent' },
  },
});
