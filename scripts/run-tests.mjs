#!/usr/bin/env node
// Runs the vitest suite and ends with a plain "N passed, N failed, N skipped" line that CI can read.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const report = join(mkdtempSync(join(tmpdir(), 'shutter-tests-')), 'report.json');
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
let summary;
try {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  summary = { passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + r.numTodoTests, total: r.numTotalTests };
} catch {
  console.error('no test report was written');
  process.exit(run.status || 1);
}
console.log(`\nTests: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`);
if (summary.total === 0) {
  console.error('no tests ran');
  process.exit(1);
}
process.exit(run.status ?? 1);
