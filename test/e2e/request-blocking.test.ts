import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

/**
 * block_trackers, block_requests and block_resources, proven on the server side (a blocked
 * request never arrives) and on the page; fail_if_content_* and fail_on_http_status.
 * Third-party host names are answered by the local fixture server, never the internet.
 */
const HOSTS = ['shop.example', 'sb.scorecardresearch.com', 'pagead2.googlesyndication.com'];
let fixture: FixtureServer;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService({
    allowedPrivateNetworks: '127.0.0.1/32',
    resolve: staticResolver(Object.fromEntries(HOSTS.map((h) => [h, '127.0.0.1']))),
  });
});
afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});
beforeEach(() => {
  fixture.requests.length = 0;
});

const url = () => `http://shop.example:${fixture.port}/request/page.html`;
const take = (query: Record<string, string | string[]>) => {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries({ url: url(), format: 'markdown', ...query })) for (const x of [v].flat()) search.append(k, x);
  return service.app.inject({ method: 'GET', url: `/v1/take?${search}`, headers: { apikey: service.apiKey } });
};
const arrived = (path: string) => fixture.requests.filter((r) => r.startsWith(path)).length;

describe('request blocking', () => {
  it('control: every request arrives and runs', async () => {
    const res = await take({});
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.payload).toContain('tracker ran');
    expect(res.payload).toContain('ad ran');
    expect([arrived('/request/tracker.js'), arrived('/request/ad.js'), arrived('/request/pic.svg')]).toEqual([1, 1, 1]);
  });

  it('block_trackers blocks an EasyPrivacy host and leaves an ad host alone', async () => {
    const res = await take({ block_trackers: '1' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.payload).not.toContain('tracker ran');
    expect(res.payload).toContain('ad ran');
    expect(arrived('/request/tracker.js')).toBe(0);
    expect(arrived('/request/ad.js')).toBe(1);
  });

  it('block_requests: URL patterns with * wildcards, repeated', async () => {
    const res = await take({ block_requests: ['*/ad.js', 'http://shop.example:*/request/pic.*'] });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.payload).not.toContain('ad ran');
    expect(res.payload).toContain('tracker ran');
    expect([arrived('/request/ad.js'), arrived('/request/pic.svg'), arrived('/request/tracker.js')]).toEqual([0, 0, 1]);
  });

  it('block_resources: whole resource types, never the page itself', async () => {
    const res = await take({ block_resources: ['script', 'image'] });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.payload).toContain('Welcome to the shop');
    expect([arrived('/request/page.html'), arrived('/request/tracker.js'), arrived('/request/ad.js'), arrived('/request/pic.svg')]).toEqual(
      [1, 0, 0, 0],
    );
    const docs = await take({ block_resources: 'document' });
    expect(docs.statusCode).toBe(200);
  });
});

describe('content checks', () => {
  it('fail_if_content_contains / _missing: 422 content_check_failed naming the text; pass when satisfied', async () => {
    const contains = await take({ fail_if_content_contains: ['Out of stock', 'Welcome to the shop'] });
    expect(contains.statusCode).toBe(422);
    expect(contains.json().error).toMatchObject({
      code: 'content_check_failed',
      details: [{ parameter: 'fail_if_content_contains', value: 'Welcome to the shop' }],
    });
    const missing = await take({ fail_if_content_missing: 'Checkout' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().error.details[0]).toMatchObject({ parameter: 'fail_if_content_missing', value: 'Checkout' });
    // The check sees what the scripts wrote, after every step.
    const ok = await take({ fail_if_content_missing: ['Welcome to the shop', 'tracker ran'], fail_if_content_contains: 'Out of stock' });
    expect(ok.statusCode, ok.payload).toBe(200);
  });

  it('fail_on_http_status: codes and classes', async () => {
    const at = (code: number, list: string) =>
      service.app.inject({
        method: 'GET',
        url: '/v1/take',
        query: { url: `http://shop.example:${fixture.port}/status/${code}`, fail_on_http_status: list },
        headers: { apikey: service.apiKey },
      });
    const notFound = await at(404, '404,5xx');
    expect(notFound.statusCode).toBe(422);
    expect(notFound.json().error).toMatchObject({ code: 'target_http_error', details: [{ parameter: 'fail_on_http_status', value: 404 }] });
    expect((await at(503, '404,5xx')).json().error.code).toBe('target_http_error');
    expect((await at(404, '5xx')).statusCode).toBe(200);
    expect((await at(200, '4xx,5xx')).statusCode).toBe(200);
  });
});
