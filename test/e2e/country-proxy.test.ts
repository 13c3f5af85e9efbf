import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { closedPort, startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startHttpProxy, startSocksProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { pixels, startService, type Service } from './harness.js';

/**
 * ip_country_code through local stand-ins for an operator's per-country proxies: an HTTP proxy
 * with credentials for "de", a SOCKS5 proxy for "us", a dead one for "jp". Each records what it
 * carries; all of them deliver to the fixture server.
 */
let fixture: FixtureServer;
let de: RecordingProxy;
let us: RecordingProxy;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  const to = { host: '127.0.0.1', port: fixture.port };
  de = await startHttpProxy({ to }, { username: 'de-user', password: 's3cret' });
  us = await startSocksProxy({ to });
  const proxies = { de: de.url, us: [us.url], jp: `http://127.0.0.1:${await closedPort()}` };
  service = await startService({
    allowedPrivateNetworks: '127.0.0.1/32',
    resolve: staticResolver({ 'site.example': '127.0.0.1' }),
    env: { SHUTTER_PROXIES: JSON.stringify(proxies) },
  });
});

afterAll(async () => {
  await service?.close();
  await de?.close();
  await us?.close();
  await stopFixtureServer(fixture);
});

const take = (query: Record<string, string>) =>
  service.app.inject({
    method: 'GET',
    url: '/v1/take',
    query: { viewport_width: '400', viewport_height: '300', ...query },
    headers: { apikey: service.apiKey },
  });
const page = () => `http://site.example:${fixture.port}/simple.html`;
const counts = () => [de.carried.length, us.carried.length];

describe('ip_country_code', () => {
  it('without the parameter no proxy carries anything', async () => {
    const res = await take({ url: page() });
    expect(res.statusCode).toBe(200);
    expect(counts()).toEqual([0, 0]);
  });

  it('de: the page and its requests go through the de proxy (with its credentials), to the checked address', async () => {
    const res = await take({ url: page(), ip_country_code: 'de' });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect((await pixels(res.rawPayload)).width).toBe(400);
    expect(de.carried).toContain(`GET http://127.0.0.1:${fixture.port}/simple.html`);
    expect(de.credentials.every((c) => c === `Basic ${Buffer.from('de-user:s3cret').toString('base64')}`)).toBe(true);
    expect(us.carried).toEqual([]);
  });

  it('us: through the SOCKS5 proxy only', async () => {
    const before = de.carried.length;
    const res = await take({ url: page(), ip_country_code: 'us' });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(us.carried).toContain(`SOCKS 127.0.0.1:${fixture.port}`);
    expect(de.carried.length).toBe(before);
  });

  it('a forbidden target is refused before anything reaches the proxy', async () => {
    const before = counts();
    const res = await take({ url: `http://127.0.0.2:${fixture.port}/simple.html`, ip_country_code: 'de' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('target_forbidden');
    expect(counts()).toEqual(before);
  });

  it('a proxy that fails is 502 proxy_failed', async () => {
    const res = await take({ url: page(), ip_country_code: 'jp', timeout: '20' });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(502);
    expect(res.json().error.code).toBe('proxy_failed');
  });

  it('an unconfigured or malformed code is a 400 listing the configured countries', async () => {
    for (const code of ['fr', 'DE', 'deu']) {
      const res = await take({ url: page(), ip_country_code: code });
      expect(res.statusCode, code).toBe(400);
      expect(res.json().error.details[0]).toMatchObject({ parameter: 'ip_country_code' });
      expect(res.json().error.details[0].message).toContain('de, jp, us');
    }
  });

  it('GET /v1/status lists the available countries', async () => {
    const res = await service.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: service.apiKey } });
    expect(res.json().countries).toEqual(['de', 'jp', 'us']);
  });
});
