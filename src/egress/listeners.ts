import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Dialer, HttpDialer } from './dialers.js';
import type { EgressGate } from './egress-gate.js';
import { handleForward } from './proxy-forward.js';
import { handleConnect } from './proxy-tunnel.js';
import { serveSocks } from './socks-tunnel.js';

/** One loopback listener of the egress proxy: the URL Chromium is given, the port the gate refuses as a destination. */
export interface Listener {
  server: Server;
  url: string;
  port: number;
}

/**
 * The main listener: SOCKS5. Chromium opens one tunnel per TCP connection, for http as for https
 * and WebSockets, and sends every request of that connection through it, so the proxy's work is
 * per connection (a check, a connect, a relay) instead of per plain-http request.
 */
export async function listenSocks(gate: EgressGate, dialer: Dialer, sockets: Set<Socket>): Promise<Listener> {
  // Half-open like the HTTP listener's tunnels: a client that shuts down its side still gets the answer.
  const server = createTcpServer({ allowHalfOpen: true, noDelay: true }, (socket) => serveSocks(gate, dialer, socket));
  return listenOnLoopback(server, 'socks5', sockets);
}

/**
 * An HTTP forward proxy (CONNECT, and absolute-form plain http): the country listeners. Through an
 * operator's HTTP proxy, plain http must go as absolute-form requests, since many such proxies
 * refuse CONNECT to port 80; only an HTTP listener sees plain http as requests.
 */
export async function listenHttp(gate: EgressGate, dialer: HttpDialer, sockets: Set<Socket>): Promise<Listener> {
  // Chromium's headers can be large (cookies); the limit only guards against a runaway peer.
  const server = createHttpServer({ maxHeaderSize: 64 * 1024, requestTimeout: 0, keepAliveTimeout: 30_000, noDelay: true });
  server.on('request', (request, response) => {
    handleForward(gate, dialer, request, response).catch(() => response.destroy());
  });
  server.on('connect', (request, client, head) => {
    handleConnect(gate, dialer, request, client, head).catch(() => client.destroy());
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  return listenOnLoopback(server, 'http', sockets);
}

async function listenOnLoopback(server: Server, scheme: 'socks5' | 'http', sockets: Set<Socket>): Promise<Listener> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return { server, url: `${scheme}://127.0.0.1:${port}`, port };
}
