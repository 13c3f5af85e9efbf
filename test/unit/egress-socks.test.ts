import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CountryProxies } from '../../src/egress/country-proxies.js';
import type { Dialer } from '../../src/egress/dialers.js';
import { EgressGate } from '../../src/egress/egress-gate.js';
import { EgressProxy } from '../../src/egress/egress-proxy.js';
import { staticResolver, type Resolver } from '../../src/egress/resolver.js';
import { serveSocks } from '../../src/egress/socks-tunnel.js';
import { tunnelThrough } from '../../src/egress/upstream-proxy.js';
import { parseCidrList } from '../../src/values/cidr.js';
import { parseProxyTable } from '../../src/values/proxy-table.js';
import { parseUpstreamProxy } from '../../src/values/proxy-url.js';
import { startCanary, type Canary } from '../fixtures/security/servers.js';

/**
 * The egress proxy's main listener, SOCKS5 (RFC 1928), over real sockets: the handshake however it
 * arrives, what it refuses and with which reply code, and the guarantees of the HTTP listener
 * (resolve once, check, connect to the checked address only). Origins on 127.0.0.1 and ::1 are
 * allowed; a canary on 127.0.0.2 must stay untouched.
 */

let origin: Server;
let originPort: number;
let origin6: Server;
let origin6Port: number;
const originSockets = new Set<Socket>();
/** Connections the origin accepted since start. */
let originConnections = 0;
let lastHeaders: IncomingHttpHeaders = {};
let canary: Canary;
const cleanups: Array<() => Promise<void> | void> = [];

const listenOn = async (server: Server | TcpServer, host: string) => {
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  origin = createServer((req, res) => {
    lastHeaders = req.headers;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': `hello ${req.url}`.length }).end(`hello ${req.url}`);
  });
  origin.on('connection', (s: Socket) => {
    originConnections++;
    originSockets.add(s);
    s.once('close', () => originSockets.delete(s));
  });
  originPort = await listenOn(origin, '127.0.0.1');
  origin6 = createServer((req, res) => res.end(`hello6 ${req.url}`));
  origin6Port = await listenOn(origin6, '::1');
  canary = await startCanary('127.0.0.2');
});

afterEach(async () => {
  expect(canary.hits(), canary.log.join('\n')).toBe(0);
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  origin.closeAllConnections();
  origin6.closeAllConnections();
  await new Promise<void>((resolve) => origin.close(() => resolve()));
  await new Promise<void>((resolve) => origin6.close(() => resolve()));
  await canary.close();
});

const silent = pino({ level: 'silent' });

async function startProxy(
  resolve: Resolver = staticResolver({}),
  allowed = '127.0.0.1/32,::1/128',
  countries?: CountryProxies,
): Promise<{ proxy: EgressProxy; port: number; url: string }> {
  const proxy = new EgressProxy({ allowed: parseCidrList(allowed), resolve, logger: silent, ...(countries ? { countries } : {}) });
  cleanups.push(() => proxy.close());
  const url = await proxy.listen();
  return { proxy, port: Number(new URL(url).port), url };
}

/** A SOCKS5 server over the real handler with a dialer and handshake timeout of the test's choosing. */
async function startBareSocks(
  dialer: Dialer,
  handshakeTimeoutMs: number,
  allowed = '127.0.0.1/32',
): Promise<{ gate: EgressGate; port: number }> {
  const gate = new EgressGate({ allowed: parseCidrList(allowed), resolve: staticResolver({}), logger: silent, isOwnPort: () => false });
  const sockets = new Set<Socket>();
  const server = createTcpServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    serveSocks(gate, dialer, socket, handshakeTimeoutMs);
  });
  const port = await listenOn(server, '127.0.0.1');
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return { gate, port };
}

const GREETING = Buffer.from([5, 1, 0]);
const u16 = (n: number) => [n >> 8, n & 0xff];
/** A CONNECT request naming a host (ATYP 3). */
const byName = (host: string, port: number, command = 1) =>
  Buffer.from([5, command, 0, 3, Buffer.byteLength(host), ...Buffer.from(host), ...u16(port)]);
const byIpv4 = (address: string, port: number) => Buffer.from([5, 1, 0, 1, ...address.split('.').map(Number), ...u16(port)]);
const byIpv6 = (bytes: number[], port: number) => Buffer.from([5, 1, 0, 4, ...bytes, ...u16(port)]);
const LOOPBACK6 = [...Array(15).fill(0), 1];
const httpGet = (path: string, host = 'site.test') => Buffer.from(`GET ${path} HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`);

interface Exchange {
  /** Everything the proxy sent, in order. */
  received: Buffer;
  /** The proxy closed (or reset) the connection. */
  closed: boolean;
}

/**
 * Sends `chunks` one after another (with `gapMs` between them) and collects the proxy's bytes until
 * it closes the connection or `waitMs` passes.
 */
function exchange(port: number, chunks: Buffer[], { gapMs = 0, waitMs = 3000 } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const parts: Buffer[] = [];
    let closed = false;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: Buffer.concat(parts), closed });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      done();
    });
    socket.once('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
  });
}

/** The reply code of a SOCKS exchange (the byte after the method selection), or undefined without a reply. */
const replyCode = (e: Exchange) => (e.received.length >= 4 && e.received[0] === 5 && e.received[2] === 5 ? e.received[3] : undefined);
/** What came after the method selection (2 bytes) and a 10-byte IPv4 reply: the tunnel's payload. */
const payloadAfterIpv4Reply = (e: Exchange) => e.received.subarray(12).toString('latin1');

/** Sends a GET through a SOCKS tunnel opened by upstream-proxy.ts's client, and returns the body. */
async function getThrough(proxyUrl: string, host: string, port: number, path = '/'): Promise<string> {
  const socket = await tunnelThrough(parseUpstreamProxy(proxyUrl), host, port, 5000);
  socket.write(httpGet(path, host));
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe('the main listener', () => {
  it('is a SOCKS5 proxy on 127.0.0.1', async () => {
    const { url, port } = await startProxy();
    expect(url).toBe(`socks5://127.0.0.1:${port}`);
  });

  it('tunnels to a name the proxy resolves, and the connection carries several requests (one check, one connect)', async () => {
    const resolve = vi.fn(staticResolver({ 'site.test': '127.0.0.1' }));
    const { port } = await startProxy(resolve);
    const connectionsBefore = originConnections;
    const keepAlive = (path: string) => Buffer.from(`GET ${path} HTTP/1.1\r\nhost: site.test\r\n\r\n`);
    const e = await exchange(port, [GREETING, byName('site.test', originPort), keepAlive('/a'), keepAlive('/b'), httpGet('/c')], {
      gapMs: 50,
    });
    expect(e.received.subarray(0, 2)).toEqual(Buffer.from([5, 0]));
    expect(replyCode(e)).toBe(0);
    const payload = payloadAfterIpv4Reply(e);
    expect(payload.match(/hello \/[abc]/g)).toEqual(['hello /a', 'hello /b', 'hello /c']);
    expect(lastHeaders.host).toBe('site.test');
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(originConnections - connectionsBefore).toBe(1);
  });

  it("works with upstream-proxy.ts's SOCKS5 client, by name and by IPv4 literal", async () => {
    const { url } = await startProxy(staticResolver({ 'site.test': '127.0.0.1' }));
    expect(await getThrough(url, 'site.test', originPort, '/named')).toContain('hello /named');
    expect(await getThrough(url, '127.0.0.1', originPort, '/literal')).toContain('hello /literal');
  });

  it('answers the success reply with the bound address of the upstream connection', async () => {
    const { port } = await startProxy();
    const e = await exchange(port, [GREETING, byIpv4('127.0.0.1', originPort), httpGet('/x')]);
    expect([...e.received.subarray(2, 8)]).toEqual([5, 0, 0, 1, 127, 0]);
    expect(e.received.readUInt16BE(10)).toBeGreaterThan(0);
  });
});

describe('the handshake, however it arrives', () => {
  it('split byte by byte (greeting, request and the first payload)', async () => {
    const { port } = await startProxy(staticResolver({ 'site.test': '127.0.0.1' }));
    const bytes = Buffer.concat([GREETING, byName('site.test', originPort), httpGet('/bytewise')]);
    const e = await exchange(
      port,
      [...bytes].map((b) => Buffer.from([b])),
      { gapMs: 2, waitMs: 8000 },
    );
    expect(replyCode(e)).toBe(0);
    expect(payloadAfterIpv4Reply(e)).toContain('hello /bytewise');
  });

  it('coalesced in one write with the first payload bytes, which go to the upstream', async () => {
    const { port } = await startProxy(staticResolver({ 'site.test': '127.0.0.1' }));
    const e = await exchange(port, [Buffer.concat([GREETING, byName('site.test', originPort), httpGet('/together')])]);
    expect(replyCode(e)).toBe(0);
    expect(payloadAfterIpv4Reply(e)).toContain('hello /together');
  });

  it('a greeting that offers several methods, no-auth among them', async () => {
    const { port } = await startProxy();
    const e = await exchange(port, [Buffer.from([5, 3, 2, 1, 0]), byIpv4('127.0.0.1', originPort), httpGet('/m')]);
    expect(e.received.subarray(0, 2)).toEqual(Buffer.from([5, 0]));
    expect(payloadAfterIpv4Reply(e)).toContain('hello /m');
  });
});

describe('what it refuses', () => {
  it('another protocol version: closed without an answer', async () => {
    const { port } = await startProxy();
    for (const greeting of [Buffer.from([4, 1, 0]), Buffer.from('GET / HTTP/1.1\r\n\r\n'), Buffer.from([5, 0])]) {
      const e = await exchange(port, [greeting]);
      expect(e.closed).toBe(true);
      expect(e.received.length).toBe(0);
    }
  });

  it('a request of another version: general failure (1)', async () => {
    const { port } = await startProxy();
    const request = byIpv4('127.0.0.1', originPort);
    request[0] = 4;
    const e = await exchange(port, [GREETING, request]);
    expect(replyCode(e)).toBe(1);
    expect(e.closed).toBe(true);
  });

  it('a client without "no authentication" among its methods: 0xFF, then closed', async () => {
    const { port } = await startProxy();
    const e = await exchange(port, [Buffer.from([5, 2, 1, 2]), byIpv4('127.0.0.1', originPort)]);
    expect([...e.received]).toEqual([5, 0xff]);
    expect(e.closed).toBe(true);
  });

  it.each([
    [2, 'BIND'],
    [3, 'UDP ASSOCIATE'],
    [9, 'unknown'],
  ])('command %i (%s): command not supported (7), nothing connected', async (command) => {
    const resolve = vi.fn(staticResolver({ 'canary.test': '127.0.0.1' }));
    const { port } = await startProxy(resolve);
    const e = await exchange(port, [GREETING, byName('canary.test', canary.port, command)]);
    expect(replyCode(e)).toBe(7);
    expect(e.closed).toBe(true);
    expect(resolve).not.toHaveBeenCalled();
  });

  it('an unknown address type: 8; an empty or odd name, or port 0: general failure (1)', async () => {
    const { port } = await startProxy();
    expect(replyCode(await exchange(port, [GREETING, Buffer.from([5, 1, 0, 5, 1, 2, 3, 4, 0, 80])]))).toBe(8);
    expect(replyCode(await exchange(port, [GREETING, Buffer.from([5, 1, 0, 3, 0, 0, 80])]))).toBe(1);
    for (const name of ['a b', 'x@127.0.0.2', 'site/path', 'a\\b', '[::1]', 'é'])
      expect(replyCode(await exchange(port, [GREETING, byName(name, 80)])), name).toBe(1);
    expect(replyCode(await exchange(port, [GREETING, byIpv4('127.0.0.1', 0)]))).toBe(1);
  });

  it.each(['127.0.0.2', '2130706434', '0x7f.0.0.2', '127.2', '::ffff:127.0.0.2', 'canary.test', 'CANARY.test.'])(
    'the name %s of a forbidden address: not allowed (2), nothing connected, the reason recorded',
    async (host) => {
      const { proxy, port } = await startProxy(staticResolver({ 'canary.test': '127.0.0.2' }));
      const e = await exchange(port, [GREETING, byName(host, canary.port), httpGet('/')]);
      expect(replyCode(e)).toBe(2);
      expect(e.received.length).toBe(12);
      expect(e.closed).toBe(true);
      const urlHost = host.includes(':') ? `[${host}]` : host;
      expect(proxy.outcomeOf(`https://${urlHost}:${canary.port}/`)).toBe('forbidden');
      expect(proxy.refusals()).toEqual({ page_request: 1, proxy_port: 0 });
    },
  );

  it('forbidden IPv4 and IPv6 literals (ATYP 1 and 4): not allowed (2)', async () => {
    const { port } = await startProxy();
    expect(replyCode(await exchange(port, [GREETING, byIpv4('127.0.0.2', canary.port)]))).toBe(2);
    const mapped = [...Array(10).fill(0), 0xff, 0xff, 127, 0, 0, 2];
    expect(replyCode(await exchange(port, [GREETING, byIpv6(mapped, canary.port)]))).toBe(2);
  });

  it('a name that does not resolve: host unreachable (4), recorded as ERR_NAME_NOT_RESOLVED', async () => {
    const { proxy, port } = await startProxy();
    const e = await exchange(port, [GREETING, byName('no-such-host.test', 80)]);
    expect(replyCode(e)).toBe(4);
    expect(proxy.outcomeOf('http://no-such-host.test/')).toBe('ERR_NAME_NOT_RESOLVED');
    expect(replyCode(await exchange(port, [GREETING, byName('html.shutter.invalid', 80)]))).toBe(4);
  });

  it('an allowed endpoint that refuses the connection: connection refused (5), recorded', async () => {
    const { proxy, port } = await startProxy();
    const closed = await new Promise<number>((resolve) => {
      const s = createTcpServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    expect(replyCode(await exchange(port, [GREETING, byIpv4('127.0.0.1', closed)]))).toBe(5);
    expect(proxy.outcomeOf(`http://127.0.0.1:${closed}/`)).toBe('ERR_CONNECTION_REFUSED');
    // A later success clears the record, as on the HTTP listener.
    expect(replyCode(await exchange(port, [GREETING, byIpv4('127.0.0.1', originPort), httpGet('/')]))).toBe(0);
    expect(proxy.outcomeOf(`http://127.0.0.1:${originPort}/`)).toBeUndefined();
  });

  it('a connect that times out: TTL expired (6); any other failure: general failure (1)', async () => {
    const failing = (code: string): Dialer => ({
      connect: async () => {
        throw Object.assign(new Error(code), { code });
      },
    });
    const timedOut = await startBareSocks(failing('ETIMEDOUT'), 5000);
    expect(replyCode(await exchange(timedOut.port, [GREETING, byIpv4('127.0.0.1', 9)]))).toBe(6);
    expect(timedOut.gate.outcomes.get('127.0.0.1:9')).toBe('ERR_CONNECTION_TIMED_OUT');
    const other = await startBareSocks(failing('EPROXY'), 5000);
    expect(replyCode(await exchange(other.port, [GREETING, byIpv4('127.0.0.1', 9)]))).toBe(1);
    expect(other.gate.outcomes.get('127.0.0.1:9')).toBe('proxy_failed');
  });

  it('a client too slow with its handshake is cut off at the timeout', async () => {
    const dialer: Dialer = { connect: vi.fn() };
    const { port } = await startBareSocks(dialer, 300);
    for (const chunks of [[], [Buffer.from([5])], [GREETING], [GREETING, Buffer.from([5, 1, 0, 3, 20, 0x61])]]) {
      const started = Date.now();
      const e = await exchange(port, chunks, { waitMs: 3000 });
      expect(e.closed).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(Date.now() - started).toBeLessThan(2500);
    }
    expect(dialer.connect).not.toHaveBeenCalled();
  });
});

describe('IPv6', () => {
  it('an allowed IPv6 literal, as ATYP 4 and as a name (Chromium sends ::1 without brackets)', async () => {
    const { url, port } = await startProxy();
    const e = await exchange(port, [GREETING, byIpv6(LOOPBACK6, origin6Port), httpGet('/v6')]);
    expect(replyCode(e)).toBe(0);
    // An IPv6 bound address: a 22-byte reply.
    expect(e.received[5]).toBe(4);
    expect(e.received.subarray(2 + 22).toString()).toContain('hello6 /v6');
    expect(await getThrough(url, '::1', origin6Port, '/v6name')).toContain('hello6 /v6name');
  });
});

describe('its own ports', () => {
  it('never tunnels to the proxy itself or to a country listener, even where loopback is allowed', async () => {
    const countries = new CountryProxies(parseProxyTable(JSON.stringify({ de: `http://127.0.0.1:${canary.port}` })));
    const { proxy, port } = await startProxy(staticResolver({ localhost: '127.0.0.1' }), '127.0.0.0/8', countries);
    const countryPort = Number(new URL(await proxy.listenFor('de')).port);
    expect(replyCode(await exchange(port, [GREETING, byIpv4('127.0.0.1', port)]))).toBe(2);
    expect(replyCode(await exchange(port, [GREETING, byIpv4('127.0.0.1', countryPort)]))).toBe(2);
    expect(replyCode(await exchange(port, [GREETING, byName('localhost', countryPort)]))).toBe(2);
    expect(replyCode(await exchange(port, [GREETING, byName('0x7f.1', port)]))).toBe(2);
    expect(proxy.refusals()).toEqual({ page_request: 0, proxy_port: 4 });
    // The country listener (HTTP) refuses the main listener's port too.
    const answer = await new Promise<string>((resolve) => {
      const s = connect({ host: '127.0.0.1', port: countryPort }, () => s.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`));
      let text = '';
      s.on('data', (d: Buffer) => (text += d.toString()));
      s.on('close', () => resolve(text));
      s.on('error', () => undefined);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 403/);
  });
});

describe('DNS pinning', () => {
  it('a name that rebinds from allowed to forbidden is checked once and connected where it was checked', async () => {
    let calls = 0;
    // Answers the allowed origin first, the canary on every later question (a rebinding DNS server).
    const rebinding = vi.fn<Resolver>(async () => (calls++ === 0 ? ['127.0.0.1'] : ['127.0.0.2']));
    const { port } = await startProxy(rebinding);
    for (let i = 0; i < 3; i++) {
      const e = await exchange(port, [GREETING, byName('rebind.test', originPort), httpGet(`/r${i}`, 'rebind.test')]);
      expect(replyCode(e)).toBe(0);
      expect(payloadAfterIpv4Reply(e)).toContain(`hello /r${i}`);
    }
    expect(rebinding).toHaveBeenCalledTimes(1);
  });

  it('a name whose first answer is already forbidden is refused (no second chance)', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (calls++ === 0 ? ['127.0.0.2'] : ['127.0.0.1']);
    const { port } = await startProxy(rebinding);
    expect(replyCode(await exchange(port, [GREETING, byName('rebind.test', canary.port)]))).toBe(2);
  });

  it('one forbidden address among allowed ones refuses the name', async () => {
    const { port } = await startProxy(staticResolver({ 'mixed.test': ['127.0.0.1', '127.0.0.2'] }));
    expect(replyCode(await exchange(port, [GREETING, byName('mixed.test', originPort)]))).toBe(2);
  });
});

describe('closing', () => {
  it('the upstream closing closes the client, and the client closing closes the upstream', async () => {
    const { port } = await startProxy();
    // connection: close — the origin ends the connection after its answer; the tunnel follows.
    const e = await exchange(port, [GREETING, byIpv4('127.0.0.1', originPort), httpGet('/bye')], { waitMs: 5000 });
    expect(e.closed).toBe(true);
    const before = originSockets.size;
    const client = connect({ host: '127.0.0.1', port });
    client.on('error', () => undefined);
    await new Promise<void>((resolve) => {
      let got = 0;
      client.on('data', (d: Buffer) => {
        got += d.length;
        if (got >= 12) resolve();
      });
      client.write(Buffer.concat([GREETING, byIpv4('127.0.0.1', originPort)]));
    });
    expect(originSockets.size).toBe(before + 1);
    client.destroy();
    await vi.waitFor(() => expect(originSockets.size).toBe(before), { timeout: 3000 });
  });

  it('close() cuts open tunnels', async () => {
    const { proxy, port } = await startProxy();
    const before = originSockets.size;
    const client = connect({ host: '127.0.0.1', port });
    client.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
    await new Promise<void>((resolve) => {
      client.once('data', () => resolve());
      client.write(Buffer.concat([GREETING, byIpv4('127.0.0.1', originPort)]));
    });
    await vi.waitFor(() => expect(originSockets.size).toBe(before + 1));
    await proxy.close();
    await closed;
    await vi.waitFor(() => expect(originSockets.size).toBe(before), { timeout: 3000 });
  });
});
