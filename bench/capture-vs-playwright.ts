/**
 * Shutter (over HTTP, in-process server) against the floor: one warm playwright-core browser doing
 * newContext + goto + page.screenshot() on the same local page. Prints a Markdown table and writes
 * bench/results/capture-vs-playwright.json. Run: `make bench` (or `node dist/bench/capture-vs-playwright.js`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import pino from 'pino';
import { DEFAULT_PLANS, Plans } from '../src/accounts/plans.js';
import { createAccountServices } from '../src/accounts/services.js';
import { findChromium } from '../src/capture/chromium-path.js';
import { launchArgs } from '../src/capture/launch-args.js';
import { loadConfig } from '../src/config/load.js';
import { openDatabase } from '../src/db/database.js';
import { createEngine, createService } from '../src/service.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const WARMUP = 5;
const fixtures = new URL('../../bench/fixtures/', import.meta.url);

interface Stats {
  name: string;
  p50: number;
  p95: number;
  mean: number;
  bytes: number;
}

function stats(name: string, times: number[], bytes: number): Stats {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { name, p50: at(0.5), p95: at(0.95), mean: times.reduce((a, b) => a + b, 0) / times.length, bytes };
}

async function measure(name: string, run: () => Promise<number>): Promise<Stats> {
  for (let i = 0; i < WARMUP; i++) await run();
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    bytes = await run();
    times.push(performance.now() - start);
  }
  return stats(name, times, bytes);
}

async function main() {
  const server = createServer(async (req, res) => {
    try {
      const body = await readFile(new URL(`.${req.url ?? '/'}`, fixtures));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/simple.html`;
  const config = loadConfig({ ...process.env, SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8', SHUTTER_CONCURRENCY: '4' });
  const executablePath = findChromium(config.SHUTTER_CHROMIUM_PATH);
  const results: Stats[] = [];

  // The floor: the minimal do-it-yourself capture with a warm browser.
  const browser = await chromium.launch({ executablePath, args: launchArgs() });
  results.push(
    await measure('floor: playwright page.screenshot() png', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(pageUrl);
      const png = await page.screenshot();
      await context.close();
      return png.length;
    }),
  );
  await browser.close();

  const logger = pino({ level: 'silent' });
  const engine = createEngine(config, logger);
  await engine.start();
  // The bench key is the operator's (plan scale): lift its limits, the bench measures captures, not the rate limiter.
  const plans = new Plans([
    ...DEFAULT_PLANS,
    { name: 'scale', maxKeys: 100, monthlyQuota: 1e9, ratePerMinute: 1e6, concurrency: 1000, maxQueuedJobs: 100 },
  ]);
  const accounts = createAccountServices({ db: await openDatabase({ sqliteFile: ':memory:' }), plans });
  const { key } = await accounts.keys.create({ name: 'bench' });
  const { app } = await createService(config, { logger, engine, accounts, store: null, version: 'bench' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  for (const format of ['png', 'jpg', 'webp', 'gif']) {
    results.push(
      await measure(`shutter GET /v1/take ${format}`, async () => {
        const res = await fetch(`${base}/v1/take?url=${encodeURIComponent(pageUrl)}&format=${format}`, {
          headers: { apikey: key },
        });
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
        return (await res.arrayBuffer()).byteLength;
      }),
    );
  }
  await app.close();
  await engine.close();
  server.close();

  const floor = results[0]!;
  const lines = [
    `Simple page (bench/fixtures/simple.html), 1280×800, sequential, ${ROUNDS} rounds after ${WARMUP} warm-up.`,
    '',
    '| scenario | p50 ms | p95 ms | mean ms | p50 vs floor | bytes |',
    '|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.mean.toFixed(0)} | ${(r.p50 / floor.p50).toFixed(2)}× | ${r.bytes} |`,
    ),
  ];
  console.log(lines.join('\n'));
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/capture-vs-playwright.json',
    JSON.stringify({ date: new Date().toISOString(), rounds: ROUNDS, results }, null, 2),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
