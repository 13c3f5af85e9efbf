import type { Socket } from 'node:net';
import type { Dialer } from './dialers.js';
import type { EgressGate } from './egress-gate.js';
import {
  CONNECT,
  METHOD_NO_AUTH,
  METHOD_NONE_ACCEPTABLE,
  parseGreeting,
  parseRequest,
  SOCKS_REPLY,
  socksReply,
} from './socks-handshake.js';
import { splice } from './splice.js';

/** A page's client gets this long to send its greeting and request; a silent or trickling one is cut. */
export const SOCKS_HANDSHAKE_TIMEOUT_MS = 10_000;
/** Longer than any valid greeting plus request (2 + 255 + 4 + 256 + 2 bytes). */
const MAX_HANDSHAKE_BYTES = 1024;

/**
 * One connection to the SOCKS5 listener (RFC 1928, no authentication, CONNECT only). Chromium
 * opens one per TCP connection of a page, for http, https and WebSockets alike, and reuses it for
 * every request on that connection: the gate is paid once per connection, and the bytes are then
 * only relayed. The host name is resolved here (Chromium's socks5 sends names), checked, and the
 * tunnel opened to the checked address only. Never throws: any failure closes the connection.
 */
export function serveSocks(gate: EgressGate, dialer: Dialer, client: Socket, handshakeTimeoutMs = SOCKS_HANDSHAKE_TIMEOUT_MS): void {
  client.on('error', () => client.destroy());
  readRequest(client, handshakeTimeoutMs)
    .then((request) => request && openTunnel(gate, dialer, client, request))
    .catch(() => client.destroy());
}

interface TunnelRequest {
  host: string;
  port: number;
  /** Bytes the client sent after its request: the start of the tunnel's payload. */
  head: Buffer;
}

/**
 * Reads the greeting and the request however they arrive (a byte at a time, or together with the
 * first payload bytes), answering the method selection on the way. Undefined when the client was
 * refused or went away; the client is then closed. Leaves the client paused for the tunnel.
 */
function readRequest(client: Socket, timeoutMs: number): Promise<TunnelRequest | undefined> {
  return new Promise((resolve) => {
    let data: Buffer = Buffer.alloc(0);
    let greeted = false;
    let done = false;
    const finish = (request?: TunnelRequest) => {
      if (done) return false;
      done = true;
      clearTimeout(timer);
      client.off('data', onData);
      client.off('end', onGone);
      client.off('close', onGone);
      client.pause();
      resolve(request);
      return true;
    };
    const refuse = (answer?: Buffer) => {
      if (!finish()) return;
      if (answer) client.end(answer, () => client.destroy());
      else client.destroy();
    };
    const onGone = () => refuse();
    const step = () => {
      if (!greeted) {
        const greeting = parseGreeting(data);
        if (greeting === 'incomplete') return;
        if ('malformed' in greeting) return refuse();
        if (!greeting.noAuth) return refuse(METHOD_NONE_ACCEPTABLE);
        client.write(METHOD_NO_AUTH);
        data = data.subarray(greeting.used);
        greeted = true;
      }
      const request = parseRequest(data);
      if (request === 'incomplete') return data.length > MAX_HANDSHAKE_BYTES ? refuse() : undefined;
      if ('malformed' in request) return refuse(socksReply(request.malformed));
      if (request.command !== CONNECT) return refuse(socksReply(SOCKS_REPLY.commandNotSupported));
      finish({ host: request.host, port: request.port, head: Buffer.from(data.subarray(request.used)) });
    };
    const onData = (chunk: Buffer) => {
      data = data.length === 0 ? chunk : Buffer.concat([data, chunk]);
      try {
        step();
      } catch {
        refuse();
      }
    };
    const timer = setTimeout(() => refuse(), timeoutMs);
    client.on('data', onData);
    client.once('end', onGone);
    client.once('close', onGone);
  });
}

/** Like handleConnect (proxy-tunnel.ts), answered in SOCKS5 reply codes. */
async function openTunnel(gate: EgressGate, dialer: Dialer, client: Socket, { host, port, head }: TunnelRequest): Promise<void> {
  const decision = await gate.decide(host, port);
  if (!('addresses' in decision)) {
    // Chromium reports every non-zero reply as net::ERR_SOCKS_CONNECTION_FAILED; the engine takes
    // the reason from the gate's record (main-frame-guard.ts), so the code is for other clients.
    const code = decision.refused === 'forbidden' ? SOCKS_REPLY.notAllowed : SOCKS_REPLY.hostUnreachable;
    client.end(socksReply(code), () => client.destroy());
    return;
  }
  if (client.destroyed) return;
  let upstream: Socket;
  try {
    upstream = await dialer.connect(port, decision.addresses);
  } catch (error) {
    gate.failed(host, port, error);
    client.end(socksReply(replyCodeOf(error)), () => client.destroy());
    return;
  }
  gate.reached(host, port);
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  gate.track(upstream);
  client.write(socksReply(SOCKS_REPLY.succeeded, { address: upstream.localAddress, port: upstream.localPort }));
  splice(client, upstream, head);
}

const REPLY_OF_CODE: Record<string, number> = {
  ECONNREFUSED: SOCKS_REPLY.connectionRefused,
  EHOSTUNREACH: SOCKS_REPLY.hostUnreachable,
  ENETUNREACH: SOCKS_REPLY.networkUnreachable,
  ETIMEDOUT: SOCKS_REPLY.ttlExpired,
};

/** The reply code for a failed connect: RFC 1928's closest match, else "general failure". */
function replyCodeOf(error: unknown): number {
  const code = (error as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && Object.hasOwn(REPLY_OF_CODE, code) ? REPLY_OF_CODE[code] : undefined) ?? SOCKS_REPLY.generalFailure;
}
