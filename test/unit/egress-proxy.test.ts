import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseCidrList } from '../../src/values/cidr.js';
import type { HttpDialer } from '../../src/egress/dialers.js';
import { EgressGate } from '../../src/egress/egress-gate.js';
import { endpointKeyOfUrl } from '../../src/egress/endpoint-log.js';
import { listenHttp } from '../../src/egress/listeners.js';
import { staticResolver, type Resolver } from '../../src/egress/resolver.js';
import { connectToChecked } from '../../src/egress/upstream.js';
import { startCanary, type Canary } from '../fixtures/security/servers.js';

/**
 * The egress proxy's HTTP listener on its own (what the country listeners run, here with a direct
 * dialer of the test's), driven the way Chromium drives an HTTP proxy (absolute-form http requests and CONNECT),
 * against an allowed origin on 127.0.0.1 and a canary on 127.0.0.2 that must stay untouched. The
 * main listener, SOCKS5, is test/unit/egress-socks.test.ts.
 */

/** Straight to the checked address, for plain http too (in the service only the country dialers forward plain http). */
const directHttpDialer: HttpDialer = {
  connect: (port, addresses) => connectToChecked(addresses, port, 5_000),
  httpOptions: async (_host, port, addresses, path) => ({ host: addresses[0], port, path, agent: false }),
  failed: (error) => error,
};

/** What these tests ask of the proxy: EgressProxy's own accessors, over an HTTP listener. */
interface HttpEgress {
  outcomeOf(url: string): string | undefined;
  readonly refusedCount: number;
  refusals(): { page_request: number; proxy_port: number };
  close(): Promise<void>;
}

let origin: Server;
let originPort: number;
let lastHeaders: IncomingHttpHeaders = {};
let canary: Canary;
const proxies: HttpEgress[] = [];

beforeAll(async () => {
  origin = createServer((req, res) => {
    lastHeaders = req.headers;
    res.writeHead(200, { 'content-type': 'text/plain', 'x-origin': 'yes' }).end(`hello ${req.url}`);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', () => resolve()));
  originPort = (origin.address() as AddressInfo).port;
  canary = await startCanary('127.0.0.2');
});

afterEach(async () => {
  expect(canary.hits(), canary.log.join('\n')).toBe(0);
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

afterAll(async () => {
  origin.closeAllConnections();
  await new Promise<void>((resolve) => origin.close(() => resolve()));
  await canary.close();
});

async function startProxy(resolve: Resolver = staticResolver({}), allowed = '127.0.0.1/32'): Promise<{ proxy: HttpEgress; port: number }> {
  let port = 0;
  const gate = new EgressGate({
    allowed: parseCidrList(allowed),
    resolve,
    logger: pino({ level: 'silent' }),
    isOwnPort: (p) => p === port,
  });
  const sockets = new Set<Socket>();
  const listener = await listenHttp(gate, directHttpDialer, sockets);
  port = listener.port;
  const proxy: HttpEgress = {
    outcomeOf: (url) => gate.outcomes.get(endpointKeyOfUrl(url)!),
    get refusedCount() {
      return gate.refused;
    },
    refusals: () => ({ ...gate.refusedBy }),
    close: async () => {
      gate.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((r) => listener.server.close(() => r()));
    },
  };
  proxies.push(proxy);
  expect(listener.url).toBe(`http://127.0.0.1:${port}`);
  return { proxy, port };
}

/** A plain-http request through the proxy, in absolute form as a browser sends it. */
function viaProxy(
  port: number,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders } | 'failed'> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: target, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', () => resolve('failed'));
    req.end();
  });
}

/** CONNECT authority through the proxy; then, if open, one http request inside the tunnel. */
function tunnel(port: number, authority: string): Promise<{ status: number; inner?: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    let sentInner = false;
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      // The inner answer is complete: no need to wait for the origin to close the tunnel.
      if (sentInner && received.includes('hello')) socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      if (status === 200 && !sentInner && received.includes('\r\n\r\n')) {
        sentInner = true;
        received = '';
        socket.write(`GET /inside HTTP/1.1\r\nhost: ${authority}\r\nconnection: close\r\n\r\n`);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (sentInner) resolve({ status: 200, inner: received });
      else resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0) });
    });
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n`);
  });
}

describe('plain http', () => {
  it('forwards to an allowed origin, with the Host of the URL and without hop-by-hop headers', async () => {
    const { port } = await startProxy(staticResolver({ 'site.test': '127.0.0.1' }));
    const res = await viaProxy(port, `http://site.test:${originPort}/page?q=1`, {
      host: 'evil.example',
      'proxy-authorization': 'Basic x',
      'proxy-connection': 'keep-alive',
      'x-kept': '1',
    });
    expect(res).toMatchObject({ status: 200, body: 'hello /page?q=1', headers: { 'x-origin': 'yes' } });
    expect(lastHeaders.host).toBe(`site.test:${originPort}`);
    expect(lastHeaders['x-kept']).toBe('1');
    expect(lastHeaders['proxy-authorization']).toBeUndefined();
    expect(lastHeaders['proxy-connection']).toBeUndefined();
  });

  it('refuses a forbidden address by closing the connection, and remembers why', async () => {
    const { proxy, port } = await startProxy(staticResolver({ 'canary.test': '127.0.0.2' }));
    expect(await viaProxy(port, `http://${canary.authority}/`)).toBe('failed');
    expect(await viaProxy(port, `http://canary.test:${canary.port}/`)).toBe('failed');
    expect(proxy.outcomeOf(`http://${canary.authority}/x`)).toBe('forbidden');
    expect(proxy.outcomeOf(`http://canary.test:${canary.port}/`)).toBe('forbidden');
    expect(proxy.outcomeOf(`http://127.0.0.1:${originPort}/`)).toBeUndefined();
    expect(proxy.refusedCount).toBe(2);
    expect(proxy.refusals()).toEqual({ page_request: 2, proxy_port: 0 });
  });

  it('answers origin-form requests (someone talking to the proxy as a server) with 400', async () => {
    const { port } = await startProxy();
    expect(await viaProxy(port, '/')).toMatchObject({ status: 400 });
  });

  it('names the network error of an allowed endpoint it could not reach', async () => {
    const { proxy, port } = await startProxy(staticResolver({ 'gone.test': '127.0.0.1' }));
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    expect(await viaProxy(port, `http://127.0.0.1:${closed}/`)).toBe('failed');
    expect(proxy.outcomeOf(`http://127.0.0.1:${closed}/`)).toBe('ERR_CONNECTION_REFUSED');
    expect(await viaProxy(port, 'http://no-such-host.test/')).toBe('failed');
    expect(proxy.outcomeOf('http://no-such-host.test/')).toBe('ERR_NAME_NOT_RESOLVED');
  });
});

describe('CONNECT', () => {
  it('opens a tunnel to an allowed origin', async () => {
    const { port } = await startProxy();
    const res = await tunnel(port, `127.0.0.1:${originPort}`);
    expect(res.status).toBe(200);
    expect(res.inner).toContain('hello /inside');
  });

  it.each(['127.0.0.2', '2130706434', '0x7f.0.0.2', '127.2', '[::ffff:127.0.0.2]', 'canary.test'])(
    'refuses %s:<canary port> with 403 and never connects',
    async (host) => {
      const { proxy, port } = await startProxy(staticResolver({ 'canary.test': '127.0.0.2' }));
      expect((await tunnel(port, `${host}:${canary.port}`)).status).toBe(403);
      expect(proxy.outcomeOf(`https://${host}:${canary.port}/`)).toBe('forbidden');
    },
  );

  it('never tunnels to itself, even where loopback is allowed', async () => {
    const { proxy, port } = await startProxy(staticResolver({}), '127.0.0.0/8');
    expect((await tunnel(port, `127.0.0.1:${port}`)).status).toBe(403);
    expect(proxy.refusals()).toEqual({ page_request: 0, proxy_port: 1 });
  });

  it('rejects malformed authorities with 400', async () => {
    const { port } = await startProxy();
    expect((await tunnel(port, '127.0.0.1')).status).toBe(400);
    expect((await tunnel(port, '127.0.0.1:0')).status).toBe(400);
    expect((await tunnel(port, '127.0.0.1:99999')).status).toBe(400);
  });
});

describe('DNS pinning', () => {
  it('a name that rebinds from allowed to forbidden is connected where it was checked, and resolved once', async () => {
    let calls = 0;
    // Answers the allowed origin first, the canary on every later question (a rebinding DNS server).
    const rebinding = vi.fn<Resolver>(async () => (calls++ === 0 ? ['127.0.0.1'] : ['127.0.0.2']));
    const { port } = await startProxy(rebinding);
    for (let i = 0; i < 3; i++) {
      expect(await viaProxy(port, `http://rebind.test:${originPort}/r${i}`)).toMatchObject({ status: 200, body: `hello /r${i}` });
    }
    expect((await tunnel(port, `rebind.test:${originPort}`)).status).toBe(200);
    expect(rebinding).toHaveBeenCalledTimes(1);
  });

  it('a name whose first answer is already forbidden is refused (no second chance)', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (calls++ === 0 ? ['127.0.0.2'] : ['127.0.0.1']);
    const { port } = await startProxy(rebinding);
    expect(await viaProxy(port, `http://rebind.test:${canary.port}/`)).toBe('failed');
  });

  it('one forbidden address among allowed ones refuses the name', async () => {
    const { port } = await startProxy(staticResolver({ 'mixed.test': ['127.0.0.1', '127.0.0.2'] }));
    expect(await viaProxy(port, `http://mixed.test:${originPort}/`)).toBe('failed');
    expect((await tunnel(port, `mixed.test:${originPort}`)).status).toBe(403);
  });
});
