import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/fixtures/, served at the root of the fixture server. */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

export interface FixtureServer {
  /** `http://127.0.0.1:<port>` without a trailing slash. */
  baseUrl: string;
  port: number;
  /** Paths (with query) of every request received, in order. */
  requests: string[];
  /** Every request received with its Host and headers, in order (what a third party would see). */
  received: Array<{ host: string; path: string; headers: IncomingMessage['headers'] }>;
  server: Server;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fixture.invalid');
  if (url.pathname === '/slow') {
    const ms = Math.min(Math.max(Number(url.searchParams.get('ms') ?? '1000') || 0, 0), 60_000);
    const timer = setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`slept ${ms} ms`);
    }, ms);
    res.on('close', () => clearTimeout(timer));
    return;
  }
  const status = /^\/status\/([1-5]\d\d)$/.exec(url.pathname);
  if (status) {
    // A page that answers with this HTTP status (fail_on_http_status).
    res.writeHead(Number(status[1]), { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`<!doctype html><title>${status[1]}</title><h1>Status ${status[1]}</h1>`);
    return;
  }
  if (url.pathname === '/redirect') {
    res.writeHead(302, { location: url.searchParams.get('to') ?? '/', 'cache-control': 'no-store' }).end();
    return;
  }
  if (url.pathname === '/echo') {
    // The request's cookies and headers, as the page shows them (header values escaped).
    const esc = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    const items = Object.entries(req.headers).map(([k, v]) => `<li>${esc(k)}=${esc(String(v))}</li>`);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`<!doctype html><title>echo</title><ul>${items.join('')}</ul>${url.searchParams.get('then') ?? ''}`);
    return;
  }
  if (url.pathname === '/hang') {
    // Never answers; the socket is destroyed when the server stops.
    return;
  }
  const relative = decodeURIComponent(url.pathname === '/' ? '/simple.html' : url.pathname);
  const file = normalize(join(FIXTURES_DIR, relative));
  if (!file.startsWith(FIXTURES_DIR.endsWith(sep) ? FIXTURES_DIR : FIXTURES_DIR + sep)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    // ?status=<code>: the file answered with that HTTP status (bot walls come with 403, 429 or 503).
    const status = Number(url.searchParams.get('status') ?? 200);
    res.writeHead(status >= 200 && status <= 599 ? status : 200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': body.length,
      'cache-control': 'no-store',
      // ?csp=<policy>: the file as served by a site with that Content-Security-Policy.
      ...(url.searchParams.has('csp') ? { 'content-security-policy': url.searchParams.get('csp')! } : {}),
    });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
  }
}

/** Starts the fixture server on 127.0.0.1 at a random free port. */
export async function startFixtureServer(): Promise<FixtureServer> {
  const requests: string[] = [];
  const received: FixtureServer['received'] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '/');
    received.push({ host: req.headers.host ?? '', path: req.url ?? '/', headers: req.headers });
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, port, requests, received, server };
}

/** Stops the server, cutting open connections (such as /hang) at once. */
export async function stopFixtureServer(fixture: FixtureServer | undefined): Promise<void> {
  if (!fixture) return;
  await new Promise<void>((resolve) => {
    fixture.server.close(() => resolve());
    fixture.server.closeAllConnections();
  });
}

/** A 127.0.0.1 port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
