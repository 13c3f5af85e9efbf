import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsStub, type DnsStub } from '../helpers/dns-stub.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, timedTake, type Service } from './harness.js';

// Issue 23: the egress guard resolves each host once for all of a page's requests, remembers
// failures, and bounds a lookup that never returns (SHUTTER_DNS_TIMEOUT_MS). The guard is pointed
// at a DNS stub on 127.0.0.1 with SHUTTER_DNS_SERVERS, as an operator would point it at theirs.

const HOSTS = ['cdn', 'img', 'ads', 'px', 'fonts', 'stats'].map((h) => `${h}.dead-hosts.test`);

let fixture: FixtureServer;
let dns: DnsStub;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  dns = await startDnsStub({}, { nxdomain: true, delayMs: 200 });
  service = await startService({ env: { SHUTTER_DNS_SERVERS: dns.server, SHUTTER_DNS_TIMEOUT_MS: '700' } });
  // The first capture of a fresh browser pays its warm-up (up to ~1 s on a loaded machine); the
  // timings below are about name resolution.
  await service.app.inject({
    method: 'GET',
    url: `/v1/take?url=${encodeURIComponent(`${fixture.baseUrl}/simple.html`)}`,
    headers: { apikey: service.apiKey },
  });
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
  await dns?.close();
});

const take = (query: Record<string, string>) => timedTake(service, query);

const status = async () =>
  (await service.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: service.apiKey } })).json() as {
    service: { resolver: Record<string, number> };
  };

describe('the egress guard resolves like a browser', () => {
  it('thirty requests to six hosts that do not resolve: one query per host, and the page loads at once', async () => {
    dns.queries.length = 0;
    const before = (await status()).service.resolver;
    const { res, ms } = await take({ url: `${fixture.baseUrl}/stalls/dead-hosts.html` });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    // The images failed like a dead host's do: nothing stalled, so no warning.
    expect(res.headers['x-shutter-warning']).toBeUndefined();
    // One lookup per host; a query c-ares resent because the stub's 200 ms answer came late on a loaded machine counts once.
    for (const host of HOSTS) expect(dns.distinct(host, 'A'), host).toBe(1);
    expect(ms).toBeLessThan(2000);
    const after = (await status()).service.resolver;
    expect(after.lookups! - before.lookups!).toBeGreaterThanOrEqual(30);
    expect(after.network_lookups! - before.network_lookups!).toBe(6);
    expect(after.failures! - before.failures!).toBe(6);
  });

  it('the same page again within the failure TTL asks nothing', async () => {
    dns.queries.length = 0;
    const { res } = await take({ url: `${fixture.baseUrl}/stalls/dead-hosts.html` });
    expect(res.statusCode).toBe(200);
    expect(dns.queries).toEqual([]);
  });

  it('hosts whose queries are dropped cost the lookup deadline, once, and then fail like dead hosts', async () => {
    for (const host of HOSTS) dns.set(host.replace('dead-hosts', 'silent-hosts'), { drop: true });
    const html = `<body style="background:#0a0">${HOSTS.map((h) => h.replace('dead-hosts', 'silent-hosts'))
      .flatMap((h) => [1, 2, 3].map((i) => `<img src="http://${h}/${i}.png">`))
      .join('')}<h1>silent</h1></body>`;
    const started = performance.now();
    const post = await service.app.inject({ method: 'POST', url: '/v1/take', payload: { html }, headers: { apikey: service.apiKey } });
    const took = performance.now() - started;
    expect(post.statusCode, post.body.slice(0, 300)).toBe(200);
    expect(took).toBeLessThan(700 + 1500);
    for (const host of HOSTS) expect(dns.count(host.replace('dead-hosts', 'silent-hosts'), 'A')).toBeLessThanOrEqual(2);
    expect((await status()).service.resolver.deadline_hits).toBeGreaterThanOrEqual(6);
  });
});
