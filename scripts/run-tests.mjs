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
  summary = {
    passed: r.numPassedTests,
    failed: r.numFailedTests,
    skipped: r.numPendingTests + r.numTodoTests,
    total: r.numTotalTests,
    results: r.testResults.flatMap((file) => file.assertionResults),
  };
} catch {
  console.error('no test report was written');
  process.exit(run.status || 1);
}
console.log(`\nTests: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`);
// Which backends the database and limit tests really ran on: named so that a green run cannot hide
// skipped Postgres or Redis tests (test/helpers/db.ts names them "on postgres", "on postgres+redis"…).
const ran = (re) => summary.results.filter((t) => t.status === 'passed' && re.test(t.fullName)).length;
const backends = { postgres: ran(/postgres/i), redis: ran(/redis/i) };
console.log(`Backends: ${backends.postgres} tests passed on Postgres, ${backends.redis} on Redis`);
if (process.env.SHUTTER_TEST_REQUIRE_SERVICES === '1' && (backends.postgres === 0 || backends.redis === 0)) {
  console.error('SHUTTER_TEST_REQUIRE_SERVICES=1, but no Postgres or no Redis test ran');
  process.exit(1);
}
if (summary.total === 0) {
  console.error('no tests ran');
  process.exit(1);
}
process.exit(run.status ?? 1);
