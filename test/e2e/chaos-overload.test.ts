import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

/**
 * Back-pressure with real Chromium: one capture slot and a queue of two. Beyond them requests get
 * 503 overloaded with Retry-After at once; nothing answers 500 and nothing hangs.
 */

let service: Service;
let fixtures: FixtureServer;

beforeAll(async () => {
  [fixtures, service] = await Promise.all([
    startFixtureServer(),
    startService({ allowedPrivateNetworks: '127.0.0.1/32', env: { SHUTTER_CONCURRENCY: '1', SHUTTER_QUEUE_SIZE: '2' } }),
  ]);
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

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  return [await fn(), performance.now() - started];
}

describe('overload', () => {
  it('a full queue answers 503 overloaded with Retry-After at once; the admitted captures finish', async () => {
    const hangs = fixtures.requests.length;
    const busy = take({ url: `${fixtures.baseUrl}/hang`, timeout: '3' });
    await expect.poll(() => fixtures.requests.length - hangs, { timeout: 10_000 }).toBe(1);
    const queued = [1, 2].map((n) => take({ url: `${fixtures.baseUrl}/simple.html?q=${n}`, format: 'jpg', timeout: '20' }));
    // Both wait in the queue before the extra ones arrive.
    await expect.poll(() => service.engine.status().pool.queued, { timeout: 10_000 }).toBe(2);

    const [extra, ms] = await timed(() => Promise.all([1, 2, 3, 4, 5].map((n) => take({ url: `${fixtures.baseUrl}/simple.html?x=${n}` }))));
    expect(ms).toBeLessThan(1000);
    for (const res of extra) {
      expect(res.statusCode, res.body).toBe(503);
      expect((res.json() as { error: { code: string } }).error.code).toBe('overloaded');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }

    expect((await busy).statusCode).toBe(504);
    for (const res of await Promise.all(queued)) expect(res.statusCode, res.body).toBe(200);
  });

  it('a burst of 30 gets only 200, 429/503 with Retry-After, or 504 — all answered', async () => {
    const [responses, ms] = await timed(() =>
      Promise.all(
        Array.from({ length: 30 }, (_, n) => {
          const path = n % 5 === 0 ? `slow?ms=500&b=${n}` : `simple.html?b=${n}`;
          return take({ url: `${fixtures.baseUrl}/${path}`, format: 'jpg', timeout: '10' });
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    // 429 is the per-key limit (rate or concurrency) answering before the engine's queue does.
    expect(
      statuses.every((s) => [200, 429, 503, 504].includes(s)),
      statuses.join(','),
    ).toBe(true);
    for (const res of responses.filter((r) => r.statusCode === 429 || r.statusCode === 503)) {
      expect(Number(res.headers['retry-after']), res.body).toBeGreaterThan(0);
    }
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(3);
    expect(ms).toBeLessThan(20_000);
    expect(service.engine.status().pool).toMatchObject({ busy: 0, queued: 0 });
  });
});
