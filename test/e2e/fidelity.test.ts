import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { capturesOf, checksOf, verdict, type CaptureResult, type CaptureSpec } from '../fixtures/fidelity/checks.js';
import { HOSTS, PAGES, type CheckName, type FidelityPage } from '../fixtures/fidelity/manifest.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

/**
 * Issue 16, "Fidelity on real pages": every page of the corpus (test/fixtures/fidelity/,
 * manifest.ts) through the real service in every format, checked against what a correct capture
 * must show. Known failures are listed in the manifest with their reason and run as `it.fails`,
 * so a fix turns them red until the entry is removed. docs/fidelity.md has the measured table.
 *
 * Captures run two at a time (the machine has two cores): they are all queued up front, in test
 * order, and every test awaits its own.
 */

const CONCURRENCY = 2;

let fixture: FixtureServer;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService({
    allowedPrivateNetworks: '127.0.0.1/32',
    // Every other name (*.dead.example) does not resolve.
    resolve: staticResolver(Object.fromEntries(HOSTS.map((h) => [h, '127.0.0.1']))),
  });
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});

/** A small FIFO limiter: at most `n` captures at once. */
function limiter(n: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
const limit = limiter(CONCURRENCY);

async function capture(page: FidelityPage, spec: CaptureSpec): Promise<CaptureResult> {
  const query = { url: `http://www.fidelity.example:${fixture.port}/fidelity/${page.path}`, ...page.params, ...spec.query };
  for (;;) {
    const started = performance.now();
    const res = await service.app.inject({ method: 'GET', url: '/v1/take', query, headers: { apikey: service.apiKey } });
    const ms = performance.now() - started;
    // The test key's plan allows 150 requests a minute; a burst past it waits, it is not a finding.
    if (res.statusCode === 429) {
      await new Promise((r) => setTimeout(r, Math.min(Number(res.headers['retry-after'] ?? 1), 10) * 1000));
      continue;
    }
    // FIDELITY_TIMINGS=<file>: one line per capture (page, capture, ms), to see where the time goes.
    if (process.env.FIDELITY_TIMINGS) appendFileSync(process.env.FIDELITY_TIMINGS, `${page.name}\t${spec.name}\t${Math.round(ms)}\n`);
    const warning = res.headers['x-shutter-warning'];
    return {
      status: res.statusCode,
      warning: typeof warning === 'string' ? warning : undefined,
      contentType: String(res.headers['content-type'] ?? ''),
      body: res.rawPayload,
      ms,
    };
  }
}

/** One promise per capture, created in test order the first time any test asks (after beforeAll). */
const results = new Map<string, Promise<CaptureResult>>();
function resultOf(page: FidelityPage, spec: CaptureSpec): Promise<CaptureResult> {
  if (results.size === 0) {
    for (const p of PAGES)
      for (const s of capturesOf(p))
        results.set(
          `${p.name} ${s.name}`,
          limit(() => capture(p, s)),
        );
  }
  return results.get(`${page.name} ${spec.name}`)!;
}

async function expectChecks(page: FidelityPage, spec: CaptureSpec, checks: CheckName[]) {
  const result = await resultOf(page, spec);
  const found = await verdict(page, spec, result, checks);
  const problems = Object.entries(found).flatMap(([check, list]) => list.map((p) => `${check}: ${p}`));
  expect(problems, `${page.name} ${spec.name} (${Math.round(result.ms)} ms)`).toEqual([]);
}

describe('fidelity corpus', () => {
  it('has at least 30 pages, each with pinned pixels, height and markdown', () => {
    expect(PAGES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(PAGES.map((p) => p.name)).size).toBe(PAGES.length);
    for (const page of PAGES) {
      expect(page.viewport.length + page.full.length, page.name).toBeGreaterThan(0);
      expect(page.markdown.contains.length, page.name).toBeGreaterThan(0);
      expect(page.height, page.name).toBeGreaterThanOrEqual(800);
    }
  });

  for (const page of PAGES) {
    describe(page.name, () => {
      for (const spec of capturesOf(page)) {
        const known = (page.knownFailures ?? []).filter((k) => k.capture === spec.name);
        const passing = checksOf(page, spec).filter((check) => !known.some((k) => k.check === check));
        it(`${spec.name}: ${passing.join(', ')}`, () => expectChecks(page, spec, passing));
        for (const failure of known) {
          it.fails(`${spec.name}: ${failure.check} [known failure: ${failure.reason}]`, () => expectChecks(page, spec, [failure.check]));
        }
      }
    });
  }
});
