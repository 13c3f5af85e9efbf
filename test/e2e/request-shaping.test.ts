import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

/**
 * headers and cookies reach the target, proven on the server side; the headers never reach a
 * third party, not even through a redirect from the target's origin.
 */
const HOSTS = ['site.example', 'cdn.third.example'];
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
  fixture.received.length = 0;
});

const target = () => `http://site.example:${fixture.port}/request/headers.html`;
const seen = (path: string) => fixture.received.filter((r) => r.path === path);

describe('headers', () => {
  it('go to the target’s origin only: the document and its same-origin requests, never a third party', async () => {
    const res = await service.app.inject({
      method: 'GET',
      url: `/v1/take?${new URLSearchParams([
        ['url', target()],
        ['headers', 'X-Secret: s3cret'],
        ['headers', 'Authorization: Bearer abc'],
        ['format', 'markdown'],
      ])}`,
      headers: { apikey: service.apiKey },
    });
    expect(res.statusCode, res.payload).toBe(200);
    const [doc] = seen('/request/headers.html');
    expect(doc!.headers).toMatchObject({ 'x-secret': 's3cret', authorization: 'Bearer abc' });
    expect(seen('/echo?same')[0]!.headers['x-secret']).toBe('s3cret');
    const third = seen('/echo?third');
    expect(third.length).toBeGreaterThan(0);
    // A same-origin URL that redirects to the third party: the redirected hop goes without them.
    const redirected = seen('/echo?redirected');
    expect(redirected.length).toBeGreaterThan(0);
    const hop = fixture.received.find((r) => r.path.startsWith('/redirect?'));
    expect(hop?.headers['x-secret']).toBe('s3cret');
    for (const r of [...third, ...redirected]) {
      expect(r.host).toBe(`cdn.third.example:${fixture.port}`);
      expect(r.headers['x-secret']).toBeUndefined();
      expect(r.headers.authorization).toBeUndefined();
    }
  });

  it('JSON takes an object', async () => {
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/take',
      payload: { url: target(), headers: { 'X-Api-Version': '2' } },
      headers: { apikey: service.apiKey },
    });
    expect(res.statusCode, res.payload).toBe(200);
    expect(seen('/request/headers.html')[0]!.headers['x-api-version']).toBe('2');
  });
});

describe('cookies', () => {
  it('Set-Cookie strings on GET and objects in JSON reach the target; the page sees the non-HttpOnly ones', async () => {
    const res = await service.app.inject({
      method: 'GET',
      url: `/v1/take?${new URLSearchParams([
        ['url', target()],
        ['cookies', 'session=abc123; Path=/; HttpOnly'],
        ['cookies', 'theme=dark'],
        ['format', 'markdown'],
      ])}`,
      headers: { apikey: service.apiKey },
    });
    expect(res.statusCode, res.payload).toBe(200);
    expect(seen('/request/headers.html')[0]!.headers.cookie).toBe('session=abc123; theme=dark');
    expect(res.payload).toContain('theme=dark');
    expect(res.payload).not.toContain('session=abc123');
    expect(seen('/echo?third')[0]!.headers.cookie).toBeUndefined();

    fixture.received.length = 0;
    const json = await service.app.inject({
      method: 'POST',
      url: '/v1/take',
      payload: { url: target(), cookies: [{ name: 'lang', value: 'de', path: '/request' }] },
      headers: { apikey: service.apiKey },
    });
    expect(json.statusCode, json.payload).toBe(200);
    expect(seen('/request/headers.html')[0]!.headers.cookie).toBe('lang=de');
    // Path=/request: not on /echo (earlier captures' late image loads may still arrive, without it too).
    expect(seen('/echo?same').some((r) => String(r.headers.cookie ?? '').includes('lang=de'))).toBe(false);
  });
});
