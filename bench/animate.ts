/**
 * Animations (issue 36): a 5 s 1280×800 scroll of the bench's article at 25 fps (gif: 15, its cap),
 * per format: wall time, CPU seconds and peak memory of the whole process tree (this process with
 * the service in it, Chromium, ffmpeg), bytes; and the ratio of the wall time to duration + the
 * page's load (a png /v1/take of the same page, median).
 *
 * Prints a Markdown table and writes bench/results/animate.json. Run:
 * `npx tsc -p tsconfig.build.json && node dist/bench/animate.js`. Options: BENCH_ROUNDS (3),
 * BENCH_FORMATS (mp4,webm,gif), BENCH_DURATION (5), BENCH_FPS (25).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { createService } from '../src/service.js';
import { TreeSampler } from './lib/proc-tree.js';
import { median } from './lib/stats.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FORMATS = (process.env.BENCH_FORMATS ?? 'mp4,webm,gif').split(',');
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const FPS = Number(process.env.BENCH_FPS ?? 25);
const GIF_FPS = Math.min(FPS, 15);

interface Row {
  format: string;
  fps: number;
  wallMs: number[];
  cpuSeconds: number[];
  peakRssMb: number[];
  peakPssMb: number[];
  bytes: number;
  serverTiming: string;
}

/** bench/fixtures on 127.0.0.1, in this process (a few file reads: nothing next to a recording). */
async function serveFixtures(): Promise<{ base: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    const name = (request.url ?? '/').split('?')[0]!.replace(/^\/+/, '');
    readFile(join(ROOT, 'bench/fixtures', name.replace(/\.\.+/g, ''))).then(
      (body) => response.writeHead(200, { 'content-type': name.endsWith('.html') ? 'text/html' : 'application/octet-stream' }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function main(): Promise<void> {
  const fixtures = await serveFixtures();
  const dataDir = await mkdtemp(join(tmpdir(), 'shutter-bench-animate-'));
  const config = loadConfig({ ...process.env, SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1/32', SHUTTER_DATA_DIR: dataDir });
  const service = await createService(config, { logger: pino({ level: 'silent' }), accounts: 'memory', store: null, version: 'bench' });
  await service.start();
  const { key } = await service.accounts.keys.create({ name: 'bench' });
  const url = `${fixtures.base}/article.html`;
  const get = (path: string, query: Record<string, string | number>) =>
    service.app.inject({
      method: 'GET',
      url: `${path}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()}`,
      headers: { apikey: key },
    });
  try {
    await get('/v1/take', { url });
    const loads: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const res = await get('/v1/take', { url, viewport_width: 1280, viewport_height: 800 });
      if (res.statusCode !== 200) throw new Error(`take ${res.statusCode}: ${res.body}`);
      loads.push(performance.now() - started);
    }
    const loadMs = median(loads);
    const rows: Row[] = [];
    for (const format of FORMATS) {
      const fps = format === 'gif' ? GIF_FPS : FPS;
      const row: Row = { format, fps, wallMs: [], cpuSeconds: [], peakRssMb: [], peakPssMb: [], bytes: 0, serverTiming: '' };
      for (let round = 0; round < ROUNDS; round++) {
        const sampler = new TreeSampler(process.pid, 100);
        sampler.start();
        const started = performance.now();
        const res = await get('/v1/animate', {
          url,
          format,
          fps,
          duration: DURATION,
          scenario: 'scroll',
          viewport_width: 1280,
          viewport_height: 800,
        });
        const wall = performance.now() - started;
        const tree = sampler.stop();
        if (res.statusCode !== 200) throw new Error(`animate ${format} ${res.statusCode}: ${res.body}`);
        row.wallMs.push(wall);
        row.cpuSeconds.push(tree.cpuSeconds);
        row.peakRssMb.push(tree.peakRssKb / 1024);
        row.peakPssMb.push(tree.peakPssKb / 1024);
        row.bytes = res.rawPayload.length;
        row.serverTiming = String(res.headers['server-timing'] ?? '');
        console.error(
          `${format} round ${round + 1}: ${(wall / 1000).toFixed(1)} s, ${tree.cpuSeconds.toFixed(1)} CPU s, ${res.rawPayload.length} bytes`,
        );
      }
      rows.push(row);
    }
    const lines = [
      `Machine: ${process.platform} ${process.arch}, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; page load (png take, median of 5): ${(loadMs / 1000).toFixed(2)} s; ${ROUNDS} round(s) per format, medians.`,
      '',
      '| format | fps | wall s | wall / (duration + load) | CPU s | peak RSS MB | peak PSS MB | bytes | Server-Timing (last) |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.format} | ${r.fps} | ${(median(r.wallMs) / 1000).toFixed(1)} | ${(median(r.wallMs) / (DURATION * 1000 + loadMs)).toFixed(2)} | ` +
          `${median(r.cpuSeconds).toFixed(1)} | ${median(r.peakRssMb).toFixed(0)} | ${median(r.peakPssMb).toFixed(0)} | ${r.bytes.toLocaleString('en-US')} | ${r.serverTiming} |`,
      ),
    ];
    console.log(lines.join('\n'));
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench/results/animate.json'), JSON.stringify({ loadMs, duration: DURATION, rows, load: loadavg() }, null, 2));
  } finally {
    await service.close();
    await fixtures.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
