/**
 * PNG size (issue 21): Shutter's PNG against the floor's (Playwright's page.screenshot(), Chromium's
 * best-compression PNG) on the bench's pages, viewport and full page.
 *
 * 1. Encoders: each page is captured once the way the floor does and once the way Shutter does
 *    (Chromium's fast PNG, src/capture/steps/screenshot.ts), then every candidate of
 *    bench/lib/png-candidates.ts encodes Shutter's input, candidates alternated round by round:
 *    bytes, ratio to the floor's bytes, wall and CPU ms (median and spread), and a pixel check.
 * 2. Captures: GET /v1/take on Shutter with the rule before (a process started with
 *    bench/lib/png-before.js preloaded) and after, and on the floor, the three alternated request by
 *    request: p50 and spread, Shutter's encode phase, bytes.
 *
 * Prints Markdown tables and writes bench/results/png-size.json. Run:
 * `npx tsc -p tsconfig.build.json && node dist/bench/png-size.js`. Options: BENCH_PARTS
 * (encode,capture), BENCH_PAGES (ids below), BENCH_ENCODE_ROUNDS (11), BENCH_CAPTURE_ROUNDS (20).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import sharp from 'sharp';
import { findChromium } from '../src/capture/chromium-path.js';
import { captureRaw } from '../src/capture/render/screenshot.js';
import { encodePngRoute } from '../src/encoders/png.js';
import type { RawImage } from '../src/encoders/raw-image.js';
import { parseTakeOptions } from '../src/options/parse-take-options.js';
import { ShutterSetup, engineSpec } from './lib/engines.js';
import { send } from './lib/load.js';
import { describeMachine } from './lib/machine.js';
import { CANDIDATES } from './lib/png-candidates.js';
import { Child, freePort, killEverything, startFixtureServer, waitForAnswer } from './lib/processes.js';
import { percentile } from './lib/stats.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PARTS = (process.env.BENCH_PARTS ?? 'encode,capture').split(',');
const ENCODE_ROUNDS = Number(process.env.BENCH_ENCODE_ROUNDS ?? 11);
const CAPTURE_ROUNDS = Number(process.env.BENCH_CAPTURE_ROUNDS ?? 20);
const CAPTURE_WARMUP = 2;

interface Page {
  id: string;
  file: string;
  fullPage: boolean;
  /** Part of the capture comparison (the encoder table has every page). */
  capture: boolean;
}

const ALL_PAGES: readonly Page[] = [
  { id: 'simple', file: 'simple.html', fullPage: false, capture: true },
  { id: 'gradient', file: 'gradient.html', fullPage: false, capture: true },
  { id: 'photo', file: 'photo.html', fullPage: false, capture: true },
  { id: 'text', file: 'text.html', fullPage: false, capture: true },
  { id: 'heavy', file: 'heavy.html', fullPage: false, capture: true },
  { id: 'smooth', file: 'smooth.html', fullPage: false, capture: false },
  { id: 'heavy full', file: 'heavy.html', fullPage: true, capture: true },
  { id: 'photo full', file: 'photo.html', fullPage: true, capture: false },
  { id: 'text full', file: 'text.html', fullPage: true, capture: false },
  { id: 'gradient full', file: 'gradient.html', fullPage: true, capture: false },
  { id: 'doc full', file: 'doc.html', fullPage: true, capture: false },
  // The fixture server's pages of exact heights (issue 21's full-page rows); 20 000 px is stitched
  // from sections (pixels, not Chromium's PNG, reach the encoder).
  { id: 'tall 2 000 full', file: 'tall-2000.html', fullPage: true, capture: false },
  { id: 'tall 8 000 full', file: 'tall-8000.html', fullPage: true, capture: false },
  { id: 'tall 20 000 full', file: 'tall-20000.html', fullPage: true, capture: false },
];
const PAGES = process.env.BENCH_PAGES ? ALL_PAGES.filter((p) => process.env.BENCH_PAGES!.split(',').includes(p.id)) : ALL_PAGES;

const load = () => Math.round(loadavg()[0]! * 100) / 100;
const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
/** Median with the interquartile range: `42 (38–47)`. */
const spread = (values: number[]) =>
  values.length ? `${ms(percentile(values, 0.5))} (${ms(percentile(values, 0.25))}–${ms(percentile(values, 0.75))})` : '–';
const kb = (bytes: number) => `${Math.round(bytes / 1000).toLocaleString('en')} KB`;

interface Input {
  page: Page;
  image: RawImage;
  floor: Buffer;
  width: number;
  height: number;
  /** The floor's and Shutter's pixels are the same (full pages may differ by a few rows of height). */
  samePixels: boolean;
}

async function pixels(png: Buffer | RawImage): Promise<Buffer> {
  const input =
    Buffer.isBuffer(png) || png.kind === 'encoded'
      ? sharp(Buffer.isBuffer(png) ? png : png.data)
      : sharp(png.data, { raw: { width: png.width, height: png.height, channels: png.channels } });
  return input.ensureAlpha().raw().toBuffer();
}

/** Each page captured as the floor does (page.screenshot) and as Shutter does (fast PNG over CDP). */
async function captureInputs(fixtures: string, executablePath: string): Promise<Input[]> {
  const browser = await chromium.launch({ executablePath, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  const inputs: Input[] = [];
  try {
    for (const page of PAGES) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const tab = await context.newPage();
      await tab.goto(`${fixtures}/${page.file}`);
      const floor = await tab.screenshot({ fullPage: page.fullPage });
      const cdp = await context.newCDPSession(tab);
      const options = parseTakeOptions({ url: 'https://example.com/', ...(page.fullPage ? { full_page: '1' } : {}) }, { countries: [] });
      const raw = await captureRaw(cdp, options, { format: 'png' }, { maxFullPageHeight: 30_000, maxPixels: 100_000_000 });
      const meta = await sharp(floor).metadata();
      const { width, height } =
        raw.image.kind === 'pixels'
          ? raw.image
          : await sharp(raw.image.data)
              .metadata()
              .then((m) => ({ width: m.width, height: m.height }));
      const samePixels = meta.height === height && (await pixels(floor)).equals(await pixels(raw.image));
      inputs.push({ page, image: raw.image, floor, width, height, samePixels });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return inputs;
}

interface EncodeRow {
  page: string;
  size: string;
  floorBytes: number;
  /** What reaches Shutter's encoder: Chromium's fast PNG, or pixels stitched from sections. */
  input: string;
  samePixels: boolean;
  route: string;
  candidates: Array<{
    name: string;
    bytes: number | null;
    ratio: number | null;
    wallMs: number[];
    cpuMs: number[];
    lossless: boolean | null;
  }>;
}

async function encodeTable(inputs: Input[]): Promise<EncodeRow[]> {
  const rows: EncodeRow[] = [];
  for (const input of inputs) {
    const reference = await pixels(input.image);
    const row: EncodeRow = {
      page: input.page.id,
      size: `${input.width}×${input.height}`,
      floorBytes: input.floor.length,
      input: input.image.kind === 'encoded' ? `fast PNG ${kb(input.image.data.length)}` : 'stitched pixels',
      samePixels: input.samePixels,
      route: (await encodePngRoute(input.image)).route,
      candidates: CANDIDATES.map((c) => ({ name: c.name, bytes: null, ratio: null, wallMs: [], cpuMs: [], lossless: null })),
    };
    // Bytes and the pixel check once, outside the timed rounds.
    for (const [i, candidate] of CANDIDATES.entries()) {
      const out = await candidate.encode(input.image);
      if (!out) continue;
      const result = row.candidates[i]!;
      result.bytes = out.length;
      result.ratio = out.length / input.floor.length;
      result.lossless = (await pixels(out)).equals(reference);
    }
    // Candidates alternated, each round starting one further along.
    for (let round = 0; round < ENCODE_ROUNDS; round++) {
      for (let k = 0; k < CANDIDATES.length; k++) {
        const i = (k + round) % CANDIDATES.length;
        const result = row.candidates[i]!;
        if (result.bytes === null) continue;
        const cpu = process.cpuUsage();
        const start = performance.now();
        await CANDIDATES[i]!.encode(input.image);
        result.wallMs.push(performance.now() - start);
        const used = process.cpuUsage(cpu);
        result.cpuMs.push((used.user + used.system) / 1000);
      }
    }
    rows.push(row);
    console.error(`encoders: ${input.page.id} done (load ${load()})`);
  }
  return rows;
}

function encodeMarkdown(rows: EncodeRow[]): string {
  const lines: string[] = [];
  for (const row of rows) {
    lines.push(
      `**${row.page}** (${row.size}; floor ${kb(row.floorBytes)}; Shutter's input: ${row.input}${row.samePixels ? '' : '; the floor’s image differs (a few rows of height)'}; the new rule took the ${row.route} route)`,
      '',
      '| encoder | bytes | ÷ floor | wall ms, median (IQR) | CPU ms, median (IQR) | lossless |',
      '|---|---|---|---|---|---|',
      ...row.candidates.map((c) =>
        c.bytes === null
          ? `| ${c.name} | n/a | | | | |`
          : `| ${c.name} | ${kb(c.bytes)} | ${c.ratio!.toFixed(3)}${c.ratio! <= 1 ? '' : ' ✘'} | ${spread(c.wallMs)} | ${spread(c.cpuMs)} | ${c.lossless ? 'yes' : '**no**'} |`,
      ),
      '',
    );
  }
  return lines.join('\n');
}

interface CaptureRow {
  page: string;
  engine: string;
  latencies: number[];
  encodeMs: number[];
  bytes: number;
  errors: string[];
}

/** Shutter before, Shutter after and the floor, each a process of its own, alternated request by request. */
async function captureTable(fixtures: string, executablePath: string): Promise<CaptureRow[]> {
  const setup = new ShutterSetup();
  const ctx = { root: ROOT, chromium: executablePath, shutter: setup, floorGotoTimeoutS: 30 };
  const engines: Array<{ name: string; base: string; headers: Record<string, string>; child: Child }> = [];
  try {
    for (const name of ['shutter, rule before', 'shutter, rule after', 'floor']) {
      const port = await freePort();
      const spec = engineSpec(name === 'floor' ? 'floor' : 'shutter', port, 1, ctx);
      // Both Shutters from tsc's modules, not the bundle: png-before.js swaps the encoder in them.
      const before = name === 'shutter, rule before' ? ['--import', pathToFileURL(join(ROOT, 'dist/bench/lib/png-before.js')).href] : [];
      const argv = name === 'floor' ? spec.argv : [spec.argv[0]!, ...before, join(ROOT, 'dist/src/cli/main.js'), ...spec.argv.slice(2)];
      const child = new Child(name, argv, spec.env, { cwd: ROOT, verbose: false });
      engines.push({ name, base: `http://127.0.0.1:${port}`, headers: spec.headers, child });
    }
    for (const engine of engines) await waitForAnswer(engine.base, engine.child);
    const rows: CaptureRow[] = [];
    for (const page of PAGES.filter((p) => p.capture)) {
      const byEngine = engines.map(
        (e) => ({ page: page.id, engine: e.name, latencies: [], encodeMs: [], bytes: 0, errors: [] }) as CaptureRow,
      );
      const query = new URLSearchParams({ url: `${fixtures}/${page.file}`, ...(page.fullPage ? { full_page: '1' } : {}) });
      for (let round = -CAPTURE_WARMUP; round < CAPTURE_ROUNDS; round++) {
        for (let k = 0; k < engines.length; k++) {
          const i = (k + Math.max(0, round)) % engines.length;
          const engine = engines[i]!;
          const outcome = await send({ url: `${engine.base}/v1/take?${query}`, headers: engine.headers, expect: 'png' }, 120_000);
          if (round < 0) continue;
          const row = byEngine[i]!;
          if (!outcome.ok) {
            row.errors.push(outcome.error ?? `HTTP ${outcome.status}`);
            continue;
          }
          row.latencies.push(outcome.ms);
          row.bytes = outcome.bytes;
          if (outcome.phases?.encode !== undefined) row.encodeMs.push(outcome.phases.encode);
        }
      }
      rows.push(...byEngine);
      console.error(`captures: ${page.id} done (load ${load()})`);
    }
    return rows;
  } finally {
    for (const engine of engines) await engine.child.stop();
    setup.cleanup();
  }
}

function captureMarkdown(rows: CaptureRow[]): string {
  const lines = [
    '| page | engine | p50 ms (IQR) | p50 ÷ floor | Shutter encode ms p50 (IQR) | bytes | bytes ÷ floor | errors |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const floor = rows.find((r) => r.page === row.page && r.engine === 'floor')!;
    const p50 = percentile(row.latencies, 0.5);
    const floorP50 = percentile(floor.latencies, 0.5);
    lines.push(
      `| ${row.page} | ${row.engine} | ${spread(row.latencies)} | ${row.engine === 'floor' ? '' : (p50 / floorP50).toFixed(2)} | ${row.encodeMs.length ? spread(row.encodeMs) : ''} | ${kb(row.bytes)} | ${(row.bytes / floor.bytes).toFixed(3)} | ${row.errors.length || ''} |`,
    );
  }
  return lines.join('\n');
}

async function main() {
  for (const built of ['dist/src/cli/main.js', 'dist/bench/fixture-server.js', 'dist/bench/lib/png-before.js']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run \`make build\` first`);
  }
  const executablePath = findChromium(process.env.SHUTTER_CHROMIUM_PATH);
  const machine = describeMachine(executablePath);
  const date = new Date().toISOString();
  console.log(
    `PNG size, ${date}: ${machine.cpu}, ${machine.cores} cores, ${machine.chromium}, Node ${machine.node}, load ${machine.loadStart}`,
  );
  const { child: fixtures, base: fixtureBase } = await startFixtureServer(ROOT);
  const result: Record<string, unknown> = { date, machine };
  try {
    if (PARTS.includes('encode')) {
      const inputs = await captureInputs(fixtureBase, executablePath);
      const loadStart = load();
      const rows = await encodeTable(inputs);
      result.encode = { rounds: ENCODE_ROUNDS, loadStart, loadEnd: load(), rows };
      console.log(`\n## Encoders (${ENCODE_ROUNDS} rounds, load ${loadStart} → ${load()})\n\n${encodeMarkdown(rows)}`);
    }
    if (PARTS.includes('capture')) {
      const loadStart = load();
      const rows = await captureTable(fixtureBase, executablePath);
      result.capture = { rounds: CAPTURE_ROUNDS, loadStart, loadEnd: load(), rows };
      console.log(`\n## Captures (${CAPTURE_ROUNDS} rounds, load ${loadStart} → ${load()})\n\n${captureMarkdown(rows)}`);
    }
  } finally {
    await fixtures.stop();
  }
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/png-size.json'), JSON.stringify(result, null, 2));
}

process.on('exit', killEverything);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
