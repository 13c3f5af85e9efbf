/**
 * Cache hits against renders (issue 17 / 21): the same simple page through GET /v1/take with
 * cache=1 on a real Shutter (in-process server over HTTP, real Chromium for the one miss, local file
 * store, SQLite index), at concurrency 1 and 8. Prints a Markdown table and writes
 * bench/results/cache-hits.json. Run: `npx tsc -p tsconfig.build.json && node dist/bench/cache-hits.js`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  concurrency: number;
  requests: number;
  p50: number;
  p95: number;
  perSecond: number;
}

/** `total` requests with `concurrency` in flight; latency per request and overall throughput. */
async function load(scenario: string, concurrency: number, total: number, one: (i: number) => Promise<void>): Promise<Row> {
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
  return { scenario, concurrency, requests: total, p50: at(0.5), p95: at(0.95), perSecond: total / seconds };
}

async function main() {
  const pages = createServer(async (req, res) => {
    const body = await readFile(new URL(`.${req.url ?? '/'}`, fixtures)).catch(() => null);
    if (body) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
  const pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/simple.html`;
  const config = loadConfig({
    ...process.env,
    SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
    SHUTTER_DATA_DIR: mkdtempSync(join(tmpdir(), 'shutter-bench-cache-')),
    SHUTTER_LOG_LEVEL: 'silent',
  });
  const logger = pino({ level: 'silent' });
  const engine = createEngine(config, logger);
  await engine.start();
  const plans = new Plans([
    ...DEFAULT_PLANS,
    { name: 'scale', maxKeys: 100, monthlyQuota: 1e9, ratePerMinute: 1e7, concurrency: 1000, maxQueuedJobs: 100 },
  ]);
  const accounts = createAccountServices({ db: await openDatabase({ sqliteFile: ':memory:' }), plans });
  const { key } = await accounts.keys.create({ name: 'bench' });
  const service = await createService(config, { logger, engine, accounts, version: 'bench' });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  const get = async (query: string, expectCache?: string) => {
    const res = await fetch(`${base}/v1/take?url=${encodeURIComponent(pageUrl)}&${query}`, { headers: { apikey: key } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    if (expectCache && res.headers.get('x-shutter-cache') !== expectCache) throw new Error(`expected ${expectCache}`);
  };

  await get('cache=1', 'MISS');
  const rows: Row[] = [];
  for (let i = 0; i < 200; i++) await get('cache=1', 'HIT'); // warm-up
  rows.push(await load('cache hit', 1, REQUESTS, () => get('cache=1', 'HIT')));
  rows.push(await load('cache hit', 8, REQUESTS, () => get('cache=1', 'HIT')));
  // Each render its own entry: a fresh cache_key per request.
  rows.push(await load('render (miss)', 1, RENDERS, (i) => get(`cache=1&cache_key=r1-${i}`, 'MISS')));
  rows.push(await load('render (miss)', 8, RENDERS, (i) => get(`cache=1&cache_key=r8-${i}`, 'MISS')));
  rows.push(await load('render, no cache', 8, RENDERS, () => get('format=png')));

  await service.close();
  pages.close();
  const lines = [
    `Simple page (bench/fixtures/simple.html), png, 1280×800; ${REQUESTS} hits, ${RENDERS} renders per row; client and server in one process.`,
    '',
    '| scenario | concurrency | p50 ms | p95 ms | requests/s |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.scenario} | ${r.concurrency} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.perSecond.toFixed(0)} |`),
  ];
  console.log(lines.join('\n'));
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/cache-hits.json', JSON.stringify({ date: new Date().toISOString(), rows }, null, 2));
}

await main();
