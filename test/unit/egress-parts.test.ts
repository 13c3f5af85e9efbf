import { afterEach, describe, expect, it, vi } from 'vitest';
import { launchArgs } from '../../src/capture/launch-args.js';
import { createAddressGuard } from '../../src/egress/address-guard.js';
import { EndpointLog, endpointKeyOfUrl, netErrorName } from '../../src/egress/endpoint-log.js';
import { canonicalHost, staticResolver, type Resolver } from '../../src/egress/resolver.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';
import { AppError } from '../../src/errors/app-error.js';

/** The small pieces of the egress guard: launch flags, the endpoint log, resolvers, the guard's cache. */

afterEach(() => {
  vi.useRealTimers();
});

describe('launch flags', () => {
  const args = launchArgs({ proxyServer: 'socks5://127.0.0.1:4567', jsHeapMb: 512 });

  it('send everything through the proxy, loopback included, and leave name resolution to it', () => {
    expect(args).toContain('--proxy-server=socks5://127.0.0.1:4567');
    // Without <-loopback> Chromium connects to localhost directly, around the proxy.
    expect(args).toContain('--proxy-bypass-list=<-loopback>');
    expect(args).toContain('--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1');
  });

  it('keep WebRTC from sending UDP around the proxy, in the headless shell and in full Chromium', () => {
    expect(args).toContain('--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
    expect(args).toContain('--webrtc-ip-handling-policy=disable_non_proxied_udp');
  });

  it('cap the JavaScript heap of each page', () => {
    expect(args).toContain('--js-flags=--max-old-space-size=512');
  });

  it('never pass a feature list of their own (Chromium keeps only the last one, Playwright passes one)', () => {
    expect(args.filter((a) => a.startsWith('--disable-features') || a.startsWith('--enable-features'))).toEqual([]);
  });

  it('without a proxy (the bench floor), no proxy flags', () => {
    expect(launchArgs().some((a) => a.startsWith('--proxy'))).toBe(false);
  });
});

describe('endpoint log', () => {
  it('keys URLs the way the proxy sees endpoints: default ports, no brackets, any spelling', () => {
    expect(endpointKeyOfUrl('http://Example.com/a')).toBe('example.com:80');
    expect(endpointKeyOfUrl('https://example.com/a')).toBe('example.com:443');
    expect(endpointKeyOfUrl('wss://example.com:8443/')).toBe('example.com:8443');
    expect(endpointKeyOfUrl('http://[::1]:81/')).toBe('::1:81');
    expect(endpointKeyOfUrl('http://2130706433/')).toBe('127.0.0.1:80');
    expect(endpointKeyOfUrl('data:text/plain,x')).toBeUndefined();
    expect(endpointKeyOfUrl('not a url')).toBeUndefined();
  });

  it('forgets entries after the TTL and keeps at most maxEntries', () => {
    vi.useFakeTimers();
    const log = new EndpointLog(1000, 3);
    expect(log.record('a:80', 'forbidden')).toBe(true);
    expect(log.record('a:80', 'forbidden')).toBe(false);
    expect(log.get('a:80')).toBe('forbidden');
    vi.advanceTimersByTime(1001);
    expect(log.get('a:80')).toBeUndefined();
    for (const key of ['b:1', 'c:1', 'd:1', 'e:1']) log.record(key, 'ERR_CONNECTION_REFUSED');
    expect(log.get('b:1')).toBeUndefined();
    expect(log.get('e:1')).toBe('ERR_CONNECTION_REFUSED');
    log.clear('e:1');
    expect(log.get('e:1')).toBeUndefined();
  });

  it('names socket errors as Chromium would', () => {
    expect(netErrorName(Object.assign(new Error(), { code: 'ECONNREFUSED' }))).toBe('ERR_CONNECTION_REFUSED');
    expect(netErrorName(Object.assign(new Error(), { code: 'ETIMEDOUT' }))).toBe('ERR_CONNECTION_TIMED_OUT');
    expect(netErrorName(Object.assign(new Error(), { code: 'toString' }))).toBe('ERR_CONNECTION_FAILED');
    expect(netErrorName(undefined)).toBe('ERR_CONNECTION_FAILED');
  });
});

describe('resolvers', () => {
  it('the static resolver answers its table (case and trailing dot ignored) and fails otherwise', async () => {
    const resolve = staticResolver({ 'Ads.Example': '127.0.0.1', multi: ['10.0.0.1', '::1'] });
    expect(await resolve('ads.example')).toEqual(['127.0.0.1']);
    expect(await resolve('ADS.example.')).toEqual(['127.0.0.1']);
    expect(await resolve('multi')).toEqual(['10.0.0.1', '::1']);
    await expect(resolve('other.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('the static resolver can fall back to another', async () => {
    const fallback = vi.fn<Resolver>(async () => ['93.184.216.34']);
    expect(await staticResolver({}, fallback)('example.com')).toEqual(['93.184.216.34']);
    expect(fallback).toHaveBeenCalledWith('example.com');
  });

  it('canonicalHost reads hosts as a browser does', () => {
    expect(canonicalHost('0x7f.1')).toBe('127.0.0.1');
    expect(canonicalHost('::ffff:127.0.0.1')).toBe('::ffff:7f00:1');
    expect(canonicalHost('[::1]')).toBe('::1');
    expect(canonicalHost('Example.COM')).toBe('example.com');
    expect(canonicalHost('a b')).toBeUndefined();
    expect(canonicalHost('')).toBeUndefined();
  });
});

describe('address guard', () => {
  it('reuses an allowed answer for cacheMs (pinned), and re-resolves after', async () => {
    vi.useFakeTimers();
    let n = 0;
    const resolve = vi.fn<Resolver>(async () => [n++ === 0 ? '93.184.216.34' : '10.0.0.1']);
    const guard = createAddressGuard({ allowed: [], resolve, cacheMs: 1000 });
    expect(await guard('rebind.example')).toEqual({ ok: true, addresses: ['93.184.216.34'] });
    expect(await guard('rebind.example')).toEqual({ ok: true, addresses: ['93.184.216.34'] });
    expect(resolve).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1001);
    expect(await guard('rebind.example')).toEqual({ ok: false, reason: 'forbidden' });
  });

  it('an empty answer is refused; a resolver error is "unresolved"', async () => {
    const guard = createAddressGuard({ allowed: [], resolve: staticResolver({ empty: [] }) });
    expect(await guard('empty')).toEqual({ ok: false, reason: 'forbidden' });
    expect(await guard('missing')).toEqual({ ok: false, reason: 'unresolved' });
  });
});

describe('url parameter', () => {
  it.each([
    'file:///etc/passwd',
    'view-source:https://example.com/',
    'chrome://settings',
    'javascript:alert(1)',
    'data:text/html,x',
    'about:blank',
    'ftp://example.com/',
    'blob:https://example.com/x',
  ])('%s is a 400 before anything else happens', (url) => {
    let thrown: unknown;
    try {
      parseTakeOptions({ url }, { countries: [] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).status).toBe(400);
  });
});

describe('special-use names', () => {
  it('.invalid names fail without asking the resolver (RFC 6761)', async () => {
    const resolve = vi.fn<Resolver>(async () => ['93.184.216.34']);
    const guard = createAddressGuard({ allowed: [], resolve });
    expect(await guard('html.shutter.invalid')).toEqual({ ok: false, reason: 'unresolved' });
    expect(await guard('x.INVALID.')).toEqual({ ok: false, reason: 'unresolved' });
    expect(resolve).not.toHaveBeenCalled();
  });
});
