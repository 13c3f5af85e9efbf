import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { EgressGate } from './egress-gate.js';
import type { Dialer } from './dialers.js';
import { splice } from './splice.js';

/**
 * CONNECT host:port — how Chromium sends https and every WebSocket (ws and wss) through an HTTP
 * proxy (the country listeners; the main listener is SOCKS5, socks-tunnel.ts).
 * The tunnel is opened to the checked address only; TLS stays end to end between page and site.
 */
export async function handleConnect(
  gate: EgressGate,
  dialer: Dialer,
  request: IncomingMessage,
  client: Duplex,
  head: Buffer,
): Promise<void> {
  client.on('error', () => client.destroy());
  const target = parseAuthority(request.url ?? '');
  if (!target) {
    client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return;
  }
  const addresses = await gate.check(target.host, target.port);
  if (!addresses) {
    // Chromium turns any non-200 CONNECT answer into net::ERR_TUNNEL_CONNECTION_FAILED.
    client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return;
  }
  if (client.destroyed) return;
  let upstream;
  try {
    upstream = await dialer.connect(target.port, addresses);
  } catch (error) {
    gate.failed(target.host, target.port, error);
    client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return;
  }
  gate.reached(target.host, target.port);
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  gate.track(upstream);
  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  splice(client, upstream, head);
}

/** `host:port` or `[v6]:port` as sent in a CONNECT request line; port is required. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/?#[\]@]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1]!, port };
}
