/**
 * Cache hits against renders (issue 17 / 21): the same simple page through GET /v1/take with
 * cache=1 on a real Shutter (in-process server over HTTP, real Chromium for the one miss, local file
 * store, SQLite index), at concurrency 1 and 8; an authenticated error answer (400) beside them.
 * Each row has its CPU per request: of the one process (client and server) for the in-process rows,
 * of the server alone for the rows whose client is another process (as a real client is).
 * Prints a Markdown table and writes bench/results/cache-hits.json.
 * Run: `make build && node dist/bench/cache-hits.js`
 * (BENCH_REQUESTS hits per row, default 2000; BENCH_RENDERS renders per row, default 40; BENCH_DB=file
 * for the accounts database in a file, as `shutter serve` has it, instead of in memory).
 */
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, Agent, get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { DEFAULT_PLANS, Plans } from '../src/accounts/plans.js';
import { createAccountServices } from '../src/accounts/services.js';
import { loadConfig } from '../src/config/load.js';
import { openDatabase } from '../src/db/database.js';
import { createEngine, createService } from '../src/service.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const RENDERS = Number(process.env.BENCH_RENDERS ?? 40);
const fixtures = new URL('../../bench/fixtures/', import.meta.url);

interface Row {
  scenario: string;
  client: 'in process' | 'other process';
  concurrency: number;
  requests: number;
  p50: number;
  p95: number;
  perSecond: number;
  /** CPU per request (user + system), of the process named by `client`: both sides in process, the server alone otherwise. */
  cpuMs: number;
}

type Measured = Omit<Row, 'scenario' | 'client' | 'cpuMs'>;

/** `total` requests with `concurrency` in flight; latency per request and overall throughput. */
async function load(concurrency: number, total: number, one: (i: number) => Promise<void>): Promise<Measured> {
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await one(i);
        times.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const sorted = times.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { concurrency, requests: total, p50: at(0.5), p95: at(0.95), perSecond: total / seconds };
}

/** Runs `measure` and adds this process's CPU per request over it. */
async function withCpu(scenario: string, client: Row['client'], measure: () => Promise<Measured>): Promise<Row> {
  const before = process.cpuUsage();
  const measured = await measure();
  const used = process.cpuUsage(before);
  return { scenario, client, ...measured, cpuMs: (used.user + used.system) / 1000 / measured.requests };
}

/** What a client process is told: where, with which key, which query, how many, and the expected answer. */
interface ClientJob {
  base: string;
  key: string;
  path: string;
  concurrency: number;
  total: number;
  /** `HIT` (X-Shutter-Cache) or an HTTP status. */
  expect: string;
}

/** A plain keep-alive HTTP client, the cheapest Node has: its CPU is not the server's. */
async function runClient(job: ClientJob): Promise<Measured> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  const one = () =>
    new Promise<void>((resolve, reject) => {
      httpGet(`${job.base}${job.path}`, { headers: { apikey: job.key }, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          const ok = job.expect === 'HIT' ? res.headers['x-shutter-cache'] === 'HIT' : String(res.statusCode) === job.expect;
          if (ok) resolve();
          else reject(new Error(`HTTP ${res.statusCode}, X-Shutter-Cache ${String(res.headers['x-shutter-cache'])}`));
        });
      }).on('error', reject);
    });
  await load(job.concurrency, Math.min(200, job.total), one); // warm-up
  await new Promise<void>((resolve) => process.send!('warm', () => resolve()));
  const measured = await load(job.concurrency, job.total, one);
  agent.destroy();
  return measured;
}

/** The same load from a child process (this file with --client); this process's CPU meanwhile (past the warm-up) is the server's. */
function inOtherProcess(scenario: string, job: ClientJob): Promise<Row> {
  const child = fork(fileURLToPath(import.meta.url), ['--client', JSON.stringify(job)], { stdio: 'inherit' });
  let before = process.cpuUsage();
  return new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if (message === 'warm') {
        before = process.cpuUsage();
        return;
      }
      const used = process.cpuUsage(before);
      const measured = message as Measured;
      resolve({ scenario, client: 'other process', ...measured, cpuMs: (used.user + used.system) / 1000 / measured.requests });
    });
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`client process exited with ${code}`))));
  });
}

async function main() {
  const pages = createServer(async (req, res) => {
    const body = await readFile(new URL(`.${req.url ?? '/'}`, fixtures)).catch(() => null);
    if (body) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
  const pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/simple.html`;
  const dataDir = mkdtempSync(join(tmpdir(), 'shutter-bench-cache-'));
  const config = loadConfig({
    ...process.env,
    SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
    SHUTTER_DATA_DIR: dataDir,
    SHUTTER_LOG_LEVEL: 'silent',
  });
  const logger = pino({ level: 'silent' });
  const engine = createEngine(config, logger);
  await engine.start();
  const plans = new Plans([
    ...DEFAULT_PLANS,
    { name: 'scale', maxKeys: 100, monthlyQuota: 1e9, ratePerMinute: 1e7, concurrency: 1000, maxQueuedJobs: 100 },
  ]);
  const sqliteFile = process.env.BENCH_DB === 'file' ? join(dataDir, 'shutter.db') : ':memory:';
  const accounts = createAccountServices({ db: await openDatabase({ sqliteFile }), plans });
  const { key } = await accounts.keys.create({ name: 'bench' });
  const service = await createService(config, { logger, engine, accounts, version: 'bench' });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  const hitPath = `/v1/take?url=${encodeURIComponent(pageUrl)}&cache=1`;
  const badPath = `/v1/take?url=${encodeURIComponent(pageUrl)}&viewport_width=wide`;
  const get = async (query: string, expect?: string) => {
    const res = await fetch(`${base}/v1/take?url=${encodeURIComponent(pageUrl)}&${query}`, { headers: { apikey: key } });
    await res.arrayBuffer();
    if (expect && /^\d+$/.test(expect)) {
      if (String(res.status) !== expect) throw new Error(`HTTP ${res.status}, expected ${expect}`);
      return;
    }
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    if (expect && res.headers.get('x-shutter-cache') !== expect) throw new Error(`expected ${expect}`);
  };

  const load1 = loadavg()[0]!;
  await get('cache=1', 'MISS');
  const rows: Row[] = [];
  for (let i = 0; i < 200; i++) await get('cache=1', 'HIT'); // warm-up
  for (const c of [1, 8]) rows.push(await withCpu('cache hit', 'in process', () => load(c, REQUESTS, () => get('cache=1', 'HIT'))));
  for (const c of [1, 8]) {
    rows.push(await inOtherProcess('cache hit', { base, key, path: hitPath, concurrency: c, total: REQUESTS, expect: 'HIT' }));
  }
  for (const c of [1, 8]) {
    rows.push(await inOtherProcess('error answer (400)', { base, key, path: badPath, concurrency: c, total: REQUESTS, expect: '400' }));
  }
  // Each render its own entry: a fresh cache_key per request.
  rows.push(await withCpu('render (miss)', 'in process', () => load(1, RENDERS, (i) => get(`cache=1&cache_key=r1-${i}`, 'MISS'))));
  rows.push(await withCpu('render (miss)', 'in process', () => load(8, RENDERS, (i) => get(`cache=1&cache_key=r8-${i}`, 'MISS'))));
  rows.push(await withCpu('render, no cache', 'in process', () => load(8, RENDERS, () => get('format=png'))));
  const load2 = loadavg()[0]!;

  await service.close();
  pages.close();
  const lines = [
    `Simple page (bench/fixtures/simple.html), png, 1280×800; ${REQUESTS} hits, ${RENDERS} renders per row; ` +
      `accounts database ${sqliteFile === ':memory:' ? 'in memory' : 'in a file'}; load average ${load1.toFixed(1)} → ${load2.toFixed(1)}.`,
    'CPU per request: of the one process for in-process rows (client + server), of the server alone when the client is another process.',
    '',
    '| scenario | client | concurrency | p50 ms | p95 ms | requests/s | CPU ms/request |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.client} | ${r.concurrency} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.perSecond.toFixed(0)} | ${r.cpuMs.toFixed(2)} |`,
    ),
  ];
  console.log(lines.join('\n'));
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/cache-hits.json',
    JSON.stringify(
      { date: new Date().toISOString(), loadAverage: [load1, load2], database: sqliteFile === ':memory:' ? 'memory' : 'file', rows },
      null,
      2,
    ),
  );
}

if (process.argv[2] === '--client') {
  const measured = await runClient(JSON.parse(process.argv[3]!) as ClientJob);
  process.send!(measured, () => process.exit(0));
} else {
  await main();
}
