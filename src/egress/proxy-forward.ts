import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { HttpDialer } from './dialers.js';
import type { EgressGate } from './egress-gate.js';

/** Hop-by-hop headers: they describe the client→proxy connection and are never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * A plain-http request in absolute form (`GET http://host/path`). It is sent to the checked
 * address with the Host header taken from the URL, so what was checked is what is reached.
 */
export async function handleForward(
  gate: EgressGate,
  dialer: HttpDialer,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  let url: URL | undefined;
  try {
    url = new URL(request.url ?? '');
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'http:' || !request.url?.startsWith('http://')) {
    // Only Chromium talks to this proxy; anything else (origin-form, other schemes) is refused.
    response.writeHead(400, { 'content-length': 0, connection: 'close' }).end();
    return;
  }
  const port = url.port ? Number(url.port) : 80;
  const host = url.hostname;
  const addresses = await gate.check(host, port);
  if (!addresses) {
    // No answer at all: Chromium sees a failed request (net::ERR_EMPTY_RESPONSE), as for a refused
    // CONNECT, so a refused main document fails its navigation instead of rendering a proxy page.
    request.socket.destroy();
    return;
  }
  let target;
  try {
    target = await dialer.httpOptions(host, port, addresses, `${url.pathname}${url.search}`);
  } catch (error) {
    gate.failed(host, port, error);
    request.socket.destroy();
    return;
  }
  const upstream = httpRequest({
    ...target,
    method: request.method,
    headers: [
      ...forwardedHeaders(request.rawHeaders, url.host),
      ...Object.entries(target.headers ?? {})
        .flat()
        .map(String),
    ],
    timeout: gate.idleTimeoutMs,
  });
  upstream.on('timeout', () => upstream.destroy(Object.assign(new Error('upstream timed out'), { code: 'ETIMEDOUT' })));
  upstream.on('response', (upstreamResponse) => {
    gate.reached(host, port);
    response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.statusMessage, filterRaw(upstreamResponse.rawHeaders));
    upstreamResponse.pipe(response);
    upstreamResponse.on('error', () => response.destroy());
  });
  upstream.on('error', (error) => {
    // Like a direct connection failing: the request fails in Chromium, the reason is kept for the engine.
    if (!response.headersSent) gate.failed(host, port, dialer.failed(error));
    request.socket.destroy();
  });
  response.on('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
  request.pipe(upstream);
}

function forwardedHeaders(raw: readonly string[], host: string): string[] {
  return ['Host', host, ...pairsWithout(filterRaw(raw), 'host')];
}

/** Drops hop-by-hop headers and those the Connection header names. */
function filterRaw(raw: readonly string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const token of raw[i + 1]!.split(',')) named.add(token.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

function pairsWithout(raw: readonly string[], lowerName: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() !== lowerName) out.push(raw[i]!, raw[i + 1]!);
  return out;
}
