// The service as `make start`, the Docker image and the deploy files run it: tsc's output
// (dist/src/) bundled by esbuild into dist/bundle/, with code splitting so that what the code imports
// on use (CLI commands, S3, Redis, the dashboard's admin …) still loads on use.
//
// Why: on Node 20, which has no compile cache, loading ~550 ES module files was most of the cold start
// (docs/performance.md, "Cold start"); a few chunks load in about half the time. dist/bundle/ sits two
// levels below the package root like dist/src/*.js, so the paths the code finds from import.meta.url
// (package.json, src/dashboard/static, packages through createRequire) resolve the same.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;

/**
 * Left to node_modules: native addons (better-sqlite3, sharp, pg's optional pg-native), packages that
 * read their own files at run time (playwright-core's browser scripts, BullMQ's Lua commands,
 * swagger-ui-dist's assets, autoconsent's and the ad blocker's rules, pino's worker transports),
 * ioredis because BullMQ, left out, requires its own copy and both must be one, and the AWS SDK,
 * which is large and only loaded when storage is configured.
 */
const EXTERNAL = [
  'better-sqlite3',
  'sharp',
  'pg',
  'playwright-core',
  'bullmq',
  'ioredis',
  'swagger-ui-dist',
  '@duckduckgo/autoconsent',
  '@ghostery/adblocker',
  'pino',
  '@aws-sdk/*',
];

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [`${root}dist/src/cli/main.js`],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Bundled CommonJS packages (fastify, prom-client …) call require(); an ES module has none.
  banner: { js: "import { createRequire as __shutterRequire } from 'node:module'; const require = __shutterRequire(import.meta.url);" },
  logLevel: 'warning',
});
