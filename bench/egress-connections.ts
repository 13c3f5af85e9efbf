/**
 * The egress tunnel's cost per connection (issue 35): every connection a page opens goes through
 * Shutter's SOCKS5 egress proxy (src/egress/egress-proxy.ts), which resolves the host, checks the
 * address and splices the bytes. Here, in one process, the same requests to a local HTTP server:
 *
 * - `direct`: TCP connect, one request, the response read to its end, close (what Chromium does
 *   without a proxy);
 * - `socks`: the same through the egress proxy (greeting, CONNECT by host name, then the request);
 * - `socks, dead host`: a CONNECT for a host that does not resolve, until the proxy's refusal
 *   (what every third-party request of a saved real page costs);
 * - `relay`: one connection carrying a large body, direct and through the proxy (MB/s).
 *
 * Per connection: wall time p50/p90 and this process's CPU (the proxy runs in it, as in the
 * service). Run: `make build && node dist/bench/egress-connections.js` (BENCH_EGRESS_N connections
 * per variant, default 2 000; BENCH_EGRESS_BODY_KB the small response, default 16).
 */
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { EgressProxy } from '../src/egress/egress-proxy.js';
import { tunnelThrough } from '../src/egress/upstream-proxy.js';
import { parseCidrList } from '../src/values/cidr.js';
import { parseUpstreamProxy, type UpstreamProxy } from '../src/values/proxy-url.js';
import { median, percentile } from './lib/stats.js';

const N = Number(process.env.BENCH_EGRESS_N ?? 2_000);
const BODY = Buffer.alloc(Number(process.env.BENCH_EGRESS_BODY_KB ?? 16) * 1024, 'a');
const LARGE = Buffer.alloc(64 * 1024 * 1024, 'b');
const ROUNDS = 3;
const TIMEOUT_MS = 5_000;

/** A resolver table: the site is the local server, every other name fails as a dead host does. */
const resolve = async (host: string): Promise<string[]> => {
  if (host === 'site.test') return ['127.0.0.1'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

function startSite(): Promise<Server> {
  const server = createServer((req, res) => {
    const body = req.url === '/large' ? LARGE : BODY;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length, connection: 'close' });
    res.end(body);
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

/** Everything the socket sends until it ends (the server closes after its answer). */
function readToEnd(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => resolve(Buffer.concat(chunks)));
  });
}

const opened = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });

/** One GET over an open socket, read to the end (the server closes). */
async function get(socket: Socket, path: string): Promise<number> {
  socket.write(`GET ${path} HTTP/1.1\r\nhost: site.test\r\n\r\n`);
  const response = await readToEnd(socket);
  socket.destroy();
  return response.length;
}

interface Figure {
  variant: string;
  p50: number;
  p90: number;
  cpuUs: number;
}

async function measure(variant: string, once: () => Promise<void>): Promise<Figure> {
  for (let i = 0; i < 50; i++) await once();
  const ms: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const start = performance.now();
    await once();
    ms.push(performance.now() - start);
  }
  const used = process.cpuUsage(cpu);
  return {
    variant,
    p50: Math.round(median(ms) * 1000) / 1000,
    p90: Math.round(percentile(ms, 0.9) * 1000) / 1000,
    cpuUs: Math.round((used.user + used.system) / N),
  };
}

async function relay(viaProxy: UpstreamProxy | undefined, sitePort: number): Promise<number> {
  const socket = viaProxy ? await tunnelThrough(viaProxy, 'site.test', sitePort, TIMEOUT_MS) : await opened(sitePort);
  const start = performance.now();
  const bytes = await get(socket, '/large');
  return Math.round(bytes / 1024 / 1024 / ((performance.now() - start) / 1000));
}

async function main(): Promise<void> {
  const site = await startSite();
  const sitePort = (site.address() as AddressInfo).port;
  const proxy = new EgressProxy({ allowed: parseCidrList('127.0.0.0/8'), resolve, logger: pino({ level: 'silent' }) });
  // Through the project's own SOCKS5 client (the one upstream proxies are reached with).
  const socks = parseUpstreamProxy(await proxy.listen());
  const figures: Figure[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    figures.push([
      await measure('direct', async () => void (await get(await opened(sitePort), '/'))),
      await measure('socks', async () => {
        await get(await tunnelThrough(socks, 'site.test', sitePort, TIMEOUT_MS), '/');
      }),
      await measure('socks, dead host', async () => {
        const connected = await tunnelThrough(socks, 'cdn.dead.test', 443, TIMEOUT_MS).then(
          (socket) => socket.destroy(),
          () => undefined,
        );
        if (connected !== undefined) throw new Error('a dead host was connected');
      }),
    ]);
  }
  const relays = { direct: [] as number[], socks: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    relays.direct.push(await relay(undefined, sitePort));
    relays.socks.push(await relay(socks, sitePort));
  }
  await proxy.close();
  site.close();

  console.log(`Egress connections: ${N} per variant and round, ${ROUNDS} rounds, a ${BODY.length / 1024} KiB response\n`);
  console.log('| variant | ms per connection p50 (rounds) | p90 | CPU µs per connection (this process, both ends) |');
  console.log('|---|---|---|---|');
  for (const [i, variant] of figures[0]!.entries()) {
    const rows = figures.map((f) => f[i]!);
    console.log(
      `| ${variant.variant} | ${rows.map((r) => r.p50).join(' / ')} | ${rows.map((r) => r.p90).join(' / ')} | ${rows.map((r) => r.cpuUs).join(' / ')} |`,
    );
  }
  console.log(
    `\nRelay of one 64 MiB body, MB/s (rounds): direct ${relays.direct.join(' / ')}, through the proxy ${relays.socks.join(' / ')}`,
  );
}

await main();
