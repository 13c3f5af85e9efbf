/**
 * Real pages (issue 35): Shutter with default options against Playwright alone on saved copies of
 * real pages, served from 127.0.0.1, every other host unresolvable. Playwright alone is the floor
 * (bench/baselines/floor-server.ts: newContext → goto, waiting for `load` → screenshot / pdf /
 * `document.body.innerText`), its Chromium given `--host-resolver-rules` so that the pages' dead
 * hosts fail at once (a resolver that never stalls). Both are HTTP services in processes of their
 * own; they take turns page by page (the order alternating), so drift of the machine falls on both.
 *
 * Per format: p50/p90 of each, the median and p90 of the per-page ratios (Shutter ÷ Playwright),
 * pages where Shutter was no slower, pages lost (an error where the other answered), and Shutter's
 * Server-Timing phases (p50). With BENCH_STEPS=1 a second pass asks Shutter once per page with
 * debug=1 and reads each capture's step timeline from its bundle (GET /v1/requests/{id}).
 *
 * The pages are the postlight/parser project's test fixtures (171 saved article pages; not in this
 * repository). Fetch them once (docs/performance.md, "Real pages at Playwright's speed"):
 *   git clone --depth 1 https://github.com/postlight/parser /tmp/parser && mkdir -p .cache/real-pages \
 *     && cp /tmp/parser/fixtures/*.html .cache/real-pages/
 * Run: `make build && node dist/bench/real-pages.js` (BENCH_REAL_PAGES_DIR the pages, BENCH_FORMATS
 * png,full,pdf,markdown, BENCH_LIMIT the first N pages, BENCH_REPEAT captures per page and engine
 * (median taken), BENCH_STEPS=1 the step pass, BENCH_OUT the JSON file, BENCH_FLOOR_PDF_TAGGED=1 Playwright's
 * pdf tagged like Shutter's default). Writes bench/results/real-pages-latest.json and prints Markdown tables.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { findChromium } from '../src/capture/chromium-path.js';
import { ShutterSetup, engineSpec, type EngineContext } from './lib/engines.js';
import { describeMachine, finishMachine } from './lib/machine.js';
import { Child, freePort, killEverything } from './lib/processes.js';
import { median, percentile, round } from './lib/stats.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DIR = process.env.BENCH_REAL_PAGES_DIR ?? join(ROOT, '.cache/real-pages');
const LIMIT = Number(process.env.BENCH_LIMIT ?? Infinity);
const FORMATS = (process.env.BENCH_FORMATS ?? 'png,full,pdf,markdown').split(',') as Kind[];
const STEPS = process.env.BENCH_STEPS === '1';
/** Captures per page and engine (alternating); a page's figure is its median: one hiccup is not a page's ratio. */
const REPEAT = Math.max(1, Number(process.env.BENCH_REPEAT ?? 1));
const WARMUP = 3;
const REQUEST_TIMEOUT_MS = 100_000;

type Kind = 'png' | 'full' | 'pdf' | 'markdown';
const QUERY: Record<Kind, string> = { png: 'format=png', full: 'format=png&full_page=1', pdf: 'format=pdf', markdown: 'format=markdown' };

interface Answer {
  ok: boolean;
  status: number;
  ms: number;
  bytes: number;
  timing: Record<string, number>;
  warning?: string;
  requestId?: string;
  error?: string;
}

interface PageRow {
  page: string;
  shutter: Answer;
  floor: Answer;
}

interface Engine {
  base: string;
  headers: Record<string, string>;
  child: Child;
}

function serverTiming(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const match = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
    if (match) out[match[1]!] = Number(match[2]);
  }
  return out;
}

async function ask(engine: Engine, query: string): Promise<Answer> {
  const start = performance.now();
  try {
    const res = await fetch(`${engine.base}/v1/take?${query}`, {
      headers: engine.headers,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = Buffer.from(await res.arrayBuffer());
    const ms = performance.now() - start;
    const answer: Answer = {
      ok: res.ok,
      status: res.status,
      ms,
      bytes: body.length,
      timing: serverTiming(res.headers.get('server-timing')),
      ...(res.headers.get('x-shutter-warning') ? { warning: res.headers.get('x-shutter-warning')! } : {}),
      ...(res.headers.get('x-request-id') ? { requestId: res.headers.get('x-request-id')! } : {}),
    };
    if (!res.ok) answer.error = body.toString('utf8').slice(0, 300);
    return answer;
  } catch (error) {
    return { ok: false, status: 0, ms: performance.now() - start, bytes: 0, timing: {}, error: String(error) };
  }
}

async function startEngine(id: 'shutter' | 'floor', ctx: EngineContext, env: Record<string, string>): Promise<Engine> {
  const port = await freePort();
  const spec = engineSpec(id, port, 2, ctx);
  const child = new Child(id, spec.argv, { ...spec.env, ...env }, { cwd: ROOT, verbose: false });
  const engine = { base: `http://127.0.0.1:${port}`, headers: spec.headers, child };
  const giveUp = performance.now() + 60_000;
  while (performance.now() < giveUp && child.alive) {
    const res = await fetch(`${engine.base}/v1/take?url=data:,`, { headers: spec.headers }).catch(() => undefined);
    if (res) return engine;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${id} did not start:\n${child.tail()}`);
}

/** Serves the saved pages as they are: relative subresources 404, absolute ones go to dead hosts. */
async function servePages(pages: string[]): Promise<{ base: string; close(): void }> {
  const known = new Set(pages);
  const server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').slice(1).split('?')[0]!);
    if (!known.has(name)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(join(DIR, name)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

/** The answer of median time among successful ones (a failure when none succeeded). */
function medianAnswer(answers: Answer[]): Answer {
  const ok = answers.filter((a) => a.ok).sort((a, b) => a.ms - b.ms);
  return ok.length ? ok[Math.floor((ok.length - 1) / 2)]! : answers[0]!;
}

interface StepFigure {
  name: string;
  p50: number;
  p90: number;
  mean: number;
  /** Captures where the step took ≥ 5 ms. */
  over5: number;
}

async function stepPass(shutter: Engine, base: string, pages: string[], kind: Kind): Promise<StepFigure[]> {
  const byStep = new Map<string, number[]>();
  for (const page of pages) {
    const answer = await ask(shutter, `url=${encodeURIComponent(base + page)}&${QUERY[kind]}&debug=1`);
    if (!answer.requestId) continue;
    const res = await fetch(`${shutter.base}/v1/requests/${answer.requestId}`, { headers: shutter.headers });
    if (!res.ok) continue;
    const bundle = (await res.json()) as {
      debug?: { steps?: Array<{ name: string; ms: number }> };
      steps?: Array<{ name: string; ms: number }>;
    };
    const steps = bundle.debug?.steps ?? bundle.steps ?? [];
    const render = steps.find((step) => step.name === 'render');
    // The render step's own split: what it waited for (the lazy-content preload), the capture proper
    // and the encoding (Server-Timing's capture and encode are the render step's alone).
    const capture = answer.timing.capture ?? 0;
    const encode = answer.timing.encode ?? 0;
    const split = render
      ? [
          { name: 'render: preload', ms: Math.max(0, render.ms - capture - encode) },
          { name: 'render: capture', ms: capture },
          { name: 'render: encode', ms: encode },
        ]
      : [];
    for (const step of [...steps, ...split]) {
      const list = byStep.get(step.name) ?? [];
      list.push(step.ms);
      byStep.set(step.name, list);
    }
  }
  return [...byStep].map(([name, ms]) => ({
    name,
    p50: round(median(ms)),
    p90: round(percentile(ms, 0.9)),
    mean: round(ms.reduce((a, b) => a + b, 0) / ms.length),
    over5: ms.filter((m) => m >= 5).length,
  }));
}

function summarise(kind: Kind, rows: PageRow[]) {
  const both = rows.filter((r) => r.shutter.ok && r.floor.ok);
  const ratios = both.map((r) => r.shutter.ms / r.floor.ms);
  const phases = ['navigate', 'wait', 'capture', 'encode'].map((phase) => {
    const values = both.map((r) => r.shutter.timing[phase]).filter((v): v is number => v !== undefined);
    return [phase, round(median(values))] as const;
  });
  return {
    kind,
    pages: rows.length,
    shutterP50: round(median(both.map((r) => r.shutter.ms))),
    shutterP90: round(
      percentile(
        both.map((r) => r.shutter.ms),
        0.9,
      ),
    ),
    floorP50: round(median(both.map((r) => r.floor.ms))),
    floorP90: round(
      percentile(
        both.map((r) => r.floor.ms),
        0.9,
      ),
    ),
    ratioP50: Math.round(median(ratios) * 100) / 100,
    ratioP90: Math.round(percentile(ratios, 0.9) * 100) / 100,
    noSlower: ratios.filter((r) => r <= 1).length,
    compared: both.length,
    shutterLost: rows.filter((r) => !r.shutter.ok && r.floor.ok).map((r) => `${r.page} (${r.shutter.status})`),
    floorLost: rows.filter((r) => r.shutter.ok && !r.floor.ok).map((r) => r.page),
    bothLost: rows.filter((r) => !r.shutter.ok && !r.floor.ok).map((r) => r.page),
    warnings: Object.entries(
      rows.reduce<Record<string, number>>((acc, r) => {
        for (const w of (r.shutter.warning ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean))
          acc[w] = (acc[w] ?? 0) + 1;
        return acc;
      }, {}),
    ),
    phases: Object.fromEntries(phases),
    bytesRatio: Math.round(median(both.map((r) => r.shutter.bytes / Math.max(1, r.floor.bytes))) * 100) / 100,
    slowest: [...both]
      .sort((a, b) => b.shutter.ms / b.floor.ms - a.shutter.ms / a.floor.ms)
      .slice(0, 5)
      .map((r) => ({ page: r.page, shutter: round(r.shutter.ms), floor: round(r.floor.ms), timing: r.shutter.timing })),
  };
}

async function main(): Promise<void> {
  if (!existsSync(DIR)) {
    console.error(`no pages at ${DIR}: see the header of bench/real-pages.ts`);
    process.exit(2);
  }
  const pages = readdirSync(DIR)
    .filter((f) => f.endsWith('.html'))
    .sort()
    .slice(0, LIMIT);
  const chromium = findChromium(process.env.SHUTTER_CHROMIUM_PATH);
  const machine = describeMachine(chromium);
  const shutterSetup = new ShutterSetup();
  const ctx: EngineContext = { root: ROOT, chromium, shutter: shutterSetup, floorGotoTimeoutS: 30 };
  const site = await servePages(pages);
  console.log(
    `Real pages: ${pages.length} pages, ${machine.cpu}, ${machine.cores} cores, ${machine.chromium}, Node ${machine.node}, load ${machine.loadStart}`,
  );
  try {
    const shutter = await startEngine('shutter', ctx, {});
    const floor = await startEngine('floor', ctx, {
      BENCH_BASELINE_HOST_RULES: 'MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      BENCH_FLOOR_MARKDOWN: 'innertext',
      // BENCH_FLOOR_PDF_TAGGED reaches it with the rest of this process's environment.
    });
    const results: Record<string, unknown> = {};
    const steps: Record<string, StepFigure[]> = {};
    for (const kind of FORMATS) {
      const query = (page: string) => `url=${encodeURIComponent(site.base + page)}&${QUERY[kind]}`;
      for (const page of pages.slice(0, WARMUP)) {
        await ask(shutter, query(page));
        await ask(floor, query(page));
      }
      const rows: PageRow[] = [];
      for (const [i, page] of pages.entries()) {
        const asked: { shutter: Answer[]; floor: Answer[] } = { shutter: [], floor: [] };
        for (let r = 0; r < REPEAT; r++) {
          const shutterFirst = (i + r) % 2 === 0;
          const first = await ask(shutterFirst ? shutter : floor, query(page));
          const second = await ask(shutterFirst ? floor : shutter, query(page));
          asked.shutter.push(shutterFirst ? first : second);
          asked.floor.push(shutterFirst ? second : first);
        }
        rows.push({ page, shutter: medianAnswer(asked.shutter), floor: medianAnswer(asked.floor) });
      }
      const summary = summarise(kind, rows);
      results[kind] = { summary, rows };
      console.log(JSON.stringify(summary));
      if (STEPS) {
        steps[kind] = await stepPass(shutter, site.base, pages, kind);
        console.log(JSON.stringify(steps[kind]));
      }
    }
    finishMachine(machine);
    printTables(results, steps);
    const out = process.env.BENCH_OUT ?? join(ROOT, 'bench/results/real-pages-latest.json');
    mkdirSync(join(out, '..'), { recursive: true });
    writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), machine, pages: pages.length, results, steps }, null, 1));
    console.log(`JSON: ${out}`);
    await shutter.child.stop();
    await floor.child.stop();
  } finally {
    site.close();
    killEverything();
    shutterSetup.cleanup();
  }
}

function printTables(results: Record<string, unknown>, steps: Record<string, StepFigure[]>): void {
  const lines = [
    '| format | Shutter p50 / p90 ms | Playwright p50 / p90 ms | median of per-page ratios | p90 of ratios | pages Shutter ≤ Playwright | Shutter lost | Playwright lost | Shutter phases p50 (navigate / wait / capture / encode) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [kind, value] of Object.entries(results)) {
    const s = (value as { summary: ReturnType<typeof summarise> }).summary;
    const p = s.phases as Record<string, number>;
    lines.push(
      `| ${kind} | ${s.shutterP50} / ${s.shutterP90} | ${s.floorP50} / ${s.floorP90} | ${s.ratioP50.toFixed(2)}× | ${s.ratioP90.toFixed(2)}× | ${s.noSlower} of ${s.compared} | ${s.shutterLost.length} | ${s.floorLost.length} | ${p.navigate} / ${p.wait} / ${p.capture} / ${p.encode} |`,
    );
  }
  console.log(`\n${lines.join('\n')}`);
  for (const [kind, figures] of Object.entries(steps)) {
    console.log(`\nSteps, ${kind} (ms; captures where a step took ≥ 5 ms):`);
    console.log('| step | p50 | p90 | mean | ≥ 5 ms |\n|---|---|---|---|---|');
    for (const f of figures.filter((f) => f.mean >= 1 || f.over5 > 0))
      console.log(`| ${f.name} | ${f.p50} | ${f.p90} | ${f.mean} | ${f.over5} |`);
  }
}

process.on('exit', killEverything);
await main();
