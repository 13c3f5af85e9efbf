import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserProcesses } from '../fixtures/security/processes.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

/**
 * Chromium SIGKILLed in the middle of captures: the requests in flight answer 503
 * browser_unavailable within seconds (not at their timeout), the browser is relaunched at once,
 * /readyz stays green, and the next capture succeeds.
 */

let service: Service;
let fixtures: FixtureServer;

beforeAll(async () => {
  [fixtures, service] = await Promise.all([startFixtureServer(), startService({ allowedPrivateNetworks: '127.0.0.1/32' })]);
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixtures);
});

function take(query: Record<string, string>): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: 'GET',
    url: `/v1/take?${new URLSearchParams(query).toString()}`,
    headers: { apikey: service.apiKey },
  });
}

function onlyBrowserPid(): number {
  const browsers = browserProcesses();
  expect(browsers, 'one Chromium browser process under this test').toHaveLength(1);
  return browsers[0]!.pid;
}

describe('Chromium killed mid-capture', () => {
  it('in-flight captures answer 503 browser_unavailable at once, then the service captures again', async () => {
    const pid = onlyBrowserPid();
    const hangs = fixtures.requests.filter((r) => r.startsWith('/hang')).length;
    const inFlight = [1, 2, 3].map((n) => take({ url: `${fixtures.baseUrl}/hang?n=${n}`, timeout: '60' }));
    // Wait until all three pages are really loading inside Chromium.
    await expect.poll(() => fixtures.requests.filter((r) => r.startsWith('/hang')).length - hangs, { timeout: 10_000 }).toBe(3);

    const killedAt = performance.now();
    process.kill(pid, 'SIGKILL');
    const responses = await Promise.all(inFlight);
    const answeredAfter = performance.now() - killedAt;

    for (const res of responses) {
      expect(res.statusCode, res.body).toBe(503);
      expect((res.json() as { error: { code: string } }).error.code).toBe('browser_unavailable');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(answeredAfter).toBeLessThan(3000);

    const ready = await service.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(200);
    const next = await take({ url: `${fixtures.baseUrl}/simple.html`, format: 'jpg' });
    expect(next.statusCode, next.body).toBe(200);
    expect(onlyBrowserPid()).not.toBe(pid);
    // GET /metrics: shutter_browser_restarts_total{reason="crash"}.
    expect(service.engine.status().restarts).toEqual({ capture_budget: 0, crash: 1, unresponsive: 0 });
  });

  it('a kill between captures is invisible to the next caller', async () => {
    const pid = onlyBrowserPid();
    process.kill(pid, 'SIGKILL');
    // The relaunch starts on the disconnect, not on the next request.
    await expect
      .poll(
        () =>
          browserProcesses()
            .map((p) => p.pid)
            .filter((p) => p !== pid).length,
        { timeout: 10_000 },
      )
      .toBe(1);
    const next = await take({ url: `${fixtures.baseUrl}/simple.html`, format: 'jpg' });
    expect(next.statusCode, next.body).toBe(200);
  });
});
