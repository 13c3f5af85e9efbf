import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { closeBrowserProcess, launchBrowserProcess, type BrowserProcess } from '../../src/capture/browser-process.js';
import { findChromium } from '../../src/capture/chromium-path.js';
import { launchArgs } from '../../src/capture/launch-args.js';
import { EgressProxy } from '../../src/egress/egress-proxy.js';
import { staticResolver } from '../../src/egress/resolver.js';
import { parseCidrList } from '../../src/values/cidr.js';
import { startCanary, type Canary } from '../fixtures/security/servers.js';
import { OPENSSL, writeSelfSignedCert } from '../../bench/lib/self-signed-cert.js';

/**
 * Real Chromium behind the egress proxy's SOCKS5 listener, launched with Shutter's own flags: names
 * reach the proxy unresolved (Chromium's host resolver maps everything to NOTFOUND), loopback goes
 * through the proxy too, https is tunnelled as well, and a page's many plain-http requests share a
 * few connections, each checked once. A canary on 127.0.0.2 must see nothing.
 */

const IMAGES = 24;
const GREEN_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#0a0"/></svg>';

let origin: Server;
let originPort: number;
let originConnections = 0;
const originRequests: string[] = [];
let secure: Server | undefined;
let securePort = 0;
let canary: Canary;
let proxy: EgressProxy;
let proxyUrl: string;
let browser: BrowserProcess;
const resolve = vi.fn(staticResolver({ 'site.test': '127.0.0.1', 'secure.test': '127.0.0.1' }));

const page = () =>
  `<!doctype html><body>${Array.from({ length: IMAGES }, (_, i) => `<img src="/img/${i}.svg">`).join('')}<p id="done">page</p></body>`;

function handle(req: { url?: string }, res: { writeHead: (s: number, h: Record<string, string>) => { end: (b: string) => void } }) {
  originRequests.push(req.url ?? '/');
  if (req.url?.startsWith('/img/'))
    return res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'no-store' }).end(GREEN_SVG);
  return res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }).end(page());
}

beforeAll(async () => {
  origin = createServer(handle);
  origin.on('connection', () => originConnections++);
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
  originPort = (origin.address() as AddressInfo).port;
  if (OPENSSL) {
    const dir = mkdtempSync(join(tmpdir(), 'shutter-socks-tls-'));
    const { keyPath, certPath } = writeSelfSignedCert(dir, 'secure.test');
    secure = createHttpsServer({ key: readFileSync(keyPath), cert: readFileSync(certPath) }, handle);
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((r) => secure!.listen(0, '127.0.0.1', () => r()));
    securePort = (secure.address() as AddressInfo).port;
  }
  canary = await startCanary('127.0.0.2');
  proxy = new EgressProxy({ allowed: parseCidrList('127.0.0.1/32'), resolve, logger: pino({ level: 'silent' }) });
  proxyUrl = await proxy.listen();
  browser = await launchBrowserProcess({
    executablePath: findChromium(process.env.SHUTTER_CHROMIUM_PATH),
    args: launchArgs({ proxyServer: proxyUrl }),
  });
});

afterEach(() => {
  expect(canary.hits(), canary.log.join('\n')).toBe(0);
});

afterAll(async () => {
  if (browser) await closeBrowserProcess(browser);
  await proxy?.close();
  await canary?.close();
  for (const server of [origin, secure]) {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  }
});

/** Loads a URL in a fresh context, as a capture does; the error text when it fails. */
async function load(
  url: string,
  options: { ignoreHTTPSErrors?: boolean } = {},
): Promise<{ ok: true; images: number } | { ok: false; error: string }> {
  const context = await browser.browser.newContext(options);
  try {
    const tab = await context.newPage();
    await tab.goto(url, { timeout: 15_000 });
    const images = await tab.evaluate(() => [...document.images].filter((i) => i.complete && i.naturalWidth === 8).length);
    return { ok: true, images };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  } finally {
    await context.close();
  }
}

describe('Chromium behind the SOCKS5 listener', () => {
  it('is launched with a socks5 proxy, loopback not bypassed, no name resolved by Chromium', () => {
    expect(proxyUrl).toMatch(/^socks5:\/\/127\.0\.0\.1:\d+$/);
    const args = launchArgs({ proxyServer: proxyUrl });
    expect(args).toContain(`--proxy-server=${proxyUrl}`);
    expect(args).toContain('--proxy-bypass-list=<-loopback>');
    expect(args).toContain('--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1');
  });

  it('a page by name: the proxy resolves the name, and the page and its images share a few checked connections', async () => {
    resolve.mockClear();
    const connections = originConnections;
    const requests = originRequests.length;
    const result = await load(`http://site.test:${originPort}/page`);
    expect(result).toEqual({ ok: true, images: IMAGES });
    expect(originRequests.length - requests).toBe(1 + IMAGES);
    // At most Chromium's 6 connections per host: the proxy's work is per connection, not per request.
    expect(originConnections - connections).toBeLessThanOrEqual(6);
    expect(resolve.mock.calls.map(([host]) => host)).toContain('site.test');
  });

  it('loopback goes through the proxy too: a refused loopback address is never reached, by literal or by name', async () => {
    const refusedBefore = proxy.refusedCount;
    const refused = await load(`http://127.0.0.2:${canary.port}/`);
    // Every SOCKS refusal is the same error to Chromium; the service takes the reason from the proxy's record.
    expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/ERR_SOCKS_CONNECTION_FAILED/) });
    expect(proxy.outcomeOf(`http://127.0.0.2:${canary.port}/`)).toBe('forbidden');
    // Asked once: Chromium does not retry a refused tunnel (it has no other proxy and no DIRECT).
    expect(proxy.refusedCount - refusedBefore).toBe(1);
    // localhost is not in the proxy's table: had Chromium connected directly (or resolved it), this would load.
    const requests = originRequests.length;
    expect(await load(`http://localhost:${originPort}/page`)).toMatchObject({ ok: false });
    expect(proxy.outcomeOf(`http://localhost:${originPort}/`)).toBe('ERR_NAME_NOT_RESOLVED');
    expect(originRequests.length).toBe(requests);
  });

  it.skipIf(!OPENSSL)('https is tunnelled the same way, by name, TLS end to end', async () => {
    resolve.mockClear();
    expect(await load(`https://secure.test:${securePort}/page`, { ignoreHTTPSErrors: true })).toEqual({ ok: true, images: IMAGES });
    expect(resolve.mock.calls.map(([host]) => host)).toContain('secure.test');
  });
});
