#!/usr/bin/env node
// Runs the built CLI; `make start` (or `npm run build`) builds it.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('shutter: not built yet; run `make start` or `npm run build` first');
  process.exit(1);
}
await import(entry.href);
