#!/usr/bin/env node
// Runs the built CLI; `make start` (or `npm run build`) builds it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const MINIMUM_MAJOR = 22;

const entry = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('shutter: not built yet; run `make start` or `npm run build` first');
  process.exit(1);
}

// `npx shutter` starts whichever `node` is on PATH. On a machine whose Node is older than Shutter
// supports, `make start` set up Node 24 inside the project (scripts/ensure-node.sh): hand over to it.
if (Number(process.versions.node.split('.')[0]) < MINIMUM_MAJOR) {
  const projectNode = new URL('../.cache/node-24/runtime/bin/node', import.meta.url);
  if (!existsSync(projectNode)) {
    console.error(`shutter: Node.js ${process.version} is too old (need ${MINIMUM_MAJOR}+); run \`make start\` once to set one up`);
    process.exit(1);
  }
  const run = spawnSync(projectNode.pathname, [entry.pathname, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (run.signal) process.kill(process.pid, run.signal);
  process.exit(run.status ?? 1);
}

await import(entry.href);
