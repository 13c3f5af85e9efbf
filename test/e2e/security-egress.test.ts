import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver, type Resolver } from '../../src/egress/resolver.js';
import {
  fillTemplate,
  SECURITY_FIXTURES_DIR,
  startCanary,
  startSecurityFixtures,
  type Canary,
  type SecurityFixtures,
} from '../fixtures/security/servers.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nameOf, pixels, startService, type Service } from './harness.js';

/**
 * The egress guard against real Chromium: a canary server on 127.0.0.2, which the service may not
 * reach (only 127.0.0.1/32 is opened, for the fixture pages), must see zero connections and zero
 * datagrams whatever the page tries. Every test ends by checking the canary.
 */

let canary: Canary;
let fixtures: SecurityFixtures;
let service: Service;
let rebindCalls = 0;

/** canary.test is the canary by name; rebind.test answers an allowed address first, the canary after. */
const resolve: Resolver = async (host) => {
  if (host === 'rebind.test') return rebindCalls++ === 0 ? ['127.0.0.1'] : ['127.0.0.2'];
  return staticResolver({ 'canary.test': '127.0.0.2', 'fixtures.test': '127.0.0.1' })(host);
};

beforeAll(async () => {
  canary = await startCanary('127.0.0.2');
  fixtures = await startSecurityFixtures(canary);
  service = await startService({ allowedPrivateNetworks: '127.0.0.1/32', resolve });
});

afterAll(async () => {
  await service?.close();
  await fixtures?.close();
  await canary?.close();
});

afterEach(() => {
  expect(canary.hits(), `the canary was reached:\n${canary.log.join('\n')}`).toBe(0);
});

async function take(query: Record<string, string>): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: 'GET',
    url: `/v1/take?${new URLSearchParams(query).toString()}`,
    headers: { apikey: service.apiKey },
  });
}

async function takeHtml(html: string, extra: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: 'POST',
    url: '/v1/take',
    headers: { apikey: service.apiKey, 'content-type': 'application/json' },
    payload: JSON.stringify({ html, ...extra }),
  });
}

async function page(name: string): Promise<string> {
  return fillTemplate(await readFile(join(SECURITY_FIXTURES_DIR, name), 'utf8'), { canary, origin: fixtures.origin });
}

const errorCode = (res: LightMyRequestResponse) => (res.json() as { error: { code: string } }).error.code;

function expectForbidden(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBe(403);
  expect(errorCode(res)).toBe('target_forbidden');
}

async function expectGreenCapture(res: LightMyRequestResponse, x = 1200, y = 700): Promise<void> {
  expect(res.statusCode, res.statusCode === 200 ? '' : res.body).toBe(200);
  expect(nameOf((await pixels(res.rawPayload)).at(x, y))).toBe('green');
}

describe('the main target', () => {
  const spellings = [
    '127.0.0.2',
    '2130706434',
    '0x7f000002',
    '0x7F000002',
    '127.2',
    '127.0.2',
    '0177.0.0.2',
    '0177.2',
    '0x7f.0.0.2',
    '0x7f.2',
    '127.000.000.002',
    '017700000002',
    '[::ffff:127.0.0.2]',
    '[::ffff:7f00:2]',
    '[0:0:0:0:0:ffff:127.0.0.2]',
    '１２７.０.０.２',
    '127%2E0%2E0%2E2',
    'canary.test',
    'CANARY.test',
  ];

  it.each(spellings)('http://%s:<canary port>/ is 403 target_forbidden', async (host) => {
    expectForbidden(await take({ url: `http://${host}:${canary.port}/` }));
  });

  it('https, credentials and a trailing dot change nothing', async () => {
    expectForbidden(await take({ url: `https://${canary.authority}/` }));
    expectForbidden(await take({ url: `http://user:pw@${canary.authority}/` }));
    expectForbidden(await take({ url: `http://canary.test.:${canary.port}/` }));
  });

  it.each([
    'file:///etc/passwd',
    'view-source:http://127.0.0.1/',
    'chrome://version',
    'javascript:alert(1)',
    'data:text/html,hi',
    'about:blank',
    'ftp://127.0.0.2/',
    'ws://127.0.0.2/',
    'blob:http://127.0.0.1/x',
  ])('url=%s is refused with 400', async (url) => {
    const res = await take({ url });
    expect(res.statusCode, res.body).toBe(400);
  });

  it('a name that rebinds to the canary after the first check is refused at connect time (403)', async () => {
    rebindCalls = 0;
    expectForbidden(await take({ url: `http://rebind.test:${canary.port}/` }));
    // The target check saw the allowed answer; the proxy resolved again, got the canary and refused it.
    expect(rebindCalls).toBeGreaterThanOrEqual(2);
  });
});

describe('redirects of the main document', () => {
  it.each(['301', '302', '303', '307', '308'])('a %s to the canary is 403 target_forbidden', async (status) => {
    const to = `http://${canary.authority}/redirected`;
    expectForbidden(await take({ url: `${fixtures.origin}/redirect?status=${status}&to=${encodeURIComponent(to)}` }));
  });

  it('after several allowed hops, by name, and to https', async () => {
    const viaHops = `${fixtures.origin}/redirect?hops=3&to=${encodeURIComponent(`http://${canary.authority}/`)}`;
    expectForbidden(await take({ url: viaHops }));
    expectForbidden(await take({ url: `${fixtures.origin}/redirect?to=${encodeURIComponent(`http://canary.test:${canary.port}/`)}` }));
    expectForbidden(await take({ url: `${fixtures.origin}/redirect?to=${encodeURIComponent(`https://${canary.authority}/`)}` }));
    expectForbidden(await take({ url: `${fixtures.origin}/redirect?to=${encodeURIComponent(`http://2130706434:${canary.port}/`)}` }));
  });

  it('a redirect to file: fails and reads nothing', async () => {
    const res = await take({ url: `${fixtures.origin}/redirect?to=${encodeURIComponent('file:///etc/passwd')}` });
    expect(res.statusCode, res.body).not.toBe(200);
    expect(res.body).not.toContain('root:');
  });

  it('an allowed redirect still works (the guard is not just refusing everything)', async () => {
    const res = await take({ url: `${fixtures.origin}/redirect?to=/webrtc.html`, viewport_width: '200', viewport_height: '200' });
    await expectGreenCapture(res, 100, 100);
  });
});

describe('navigations after load', () => {
  it.each(['meta-refresh.html', 'js-navigation.html', 'form-navigation.html'])('%s to the canary is 403 target_forbidden', async (name) => {
    expectForbidden(await take({ url: `${fixtures.origin}/${name}`, delay: '1' }));
  });

  it('the same from html input', async () => {
    expectForbidden(await takeHtml(await page('meta-refresh.html'), { delay: 1 }));
    expectForbidden(await takeHtml(await page('js-navigation.html'), { delay: 1 }));
  });
});

describe('subresources', () => {
  it('every kind of subresource, worker, socket, beacon and popup aimed at the canary is blocked; the capture goes on', async () => {
    const before = fixtures.requests.length;
    await expectGreenCapture(await take({ url: `${fixtures.origin}/subresources.html`, delay: '1' }));
    // The page itself came through the proxy from the allowed fixture server.
    expect(fixtures.requests.slice(before)).toContain('/subresources.html');
  });

  it('the same page as html input', async () => {
    await expectGreenCapture(await takeHtml(await page('subresources.html'), { delay: 1 }));
  });

  it('a WebSocket to an allowed origin does open through the proxy (the guard refuses by address, not by kind)', async () => {
    await expectGreenCapture(await take({ url: `${fixtures.origin}/websocket.html`, delay: '0.5' }));
    expect(fixtures.requests).toContain('/ws');
  });

  it('WebRTC (STUN, TURN over UDP and TCP) does not reach the canary', async () => {
    await expectGreenCapture(await take({ url: `${fixtures.origin}/webrtc.html`, delay: '2' }));
  });
});

describe('local files inside pages', () => {
  const boxes = [
    ['file: iframe', 50],
    ['file: img', 150],
    ['chrome: iframe', 250],
    ['file: fetch', 350],
    ['file: xhr', 450],
    ['view-source:file: iframe', 550],
  ] as const;

  async function expectNoBoxRed(res: LightMyRequestResponse): Promise<void> {
    expect(res.statusCode, res.body).toBe(200);
    const image = await pixels(res.rawPayload);
    for (const [what, x] of boxes) expect(nameOf(image.at(x, 50)), what).not.toBe('red');
  }

  it('file:, chrome: and view-source: loads fail in a url capture', async () => {
    await expectNoBoxRed(await take({ url: `${fixtures.origin}/local-files.html`, delay: '0.5' }));
  });

  it('and in html input (served from an http origin, never file://)', async () => {
    await expectNoBoxRed(await takeHtml(await page('local-files.html'), { delay: 0.5 }));
  });
});

describe('fail closed', () => {
  it('with the egress proxy gone, pages reach nothing: Chromium never falls back to a direct connection', async () => {
    const alone = await startService({ allowedPrivateNetworks: '127.0.0.1/32', resolve });
    try {
      await (alone.engine as unknown as { options: { egress: { close(): Promise<void> } } }).options.egress.close();
      const res = await alone.app.inject({
        method: 'GET',
        url: `/v1/take?url=${encodeURIComponent(`${fixtures.origin}/webrtc.html`)}&timeout=10`,
        headers: { apikey: alone.apiKey },
      });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.body).toMatch(/ERR_PROXY_CONNECTION_FAILED/);
    } finally {
      await alone.close();
    }
  });
});

describe('control: the canary does count what reaches it', () => {
  it('with 127.0.0.2 opened, the same subresource page reaches it', async () => {
    const openCanary = await startCanary('127.0.0.2');
    const openFixtures = await startSecurityFixtures(openCanary);
    const open = await startService({ allowedPrivateNetworks: '127.0.0.1/32,127.0.0.2/32', resolve });
    try {
      const res = await open.app.inject({
        method: 'GET',
        // Only counting hits matters here: don't wait for `load`, which dozens of requests to a server
        // that answers late can hold up past Chromium's 32 connections per proxy under a busy suite.
        url: `/v1/take?url=${encodeURIComponent(`${openFixtures.origin}/subresources.html`)}&wait_until=domcontentloaded&delay=1&timeout=20`,
        headers: { apikey: open.apiKey },
      });
      expect(res.statusCode, res.body).toBe(200);
      await expect.poll(() => openCanary.hits(), { timeout: 5000 }).toBeGreaterThan(5);
    } finally {
      await open.close();
      await openFixtures.close();
      await openCanary.close();
    }
  });
});
