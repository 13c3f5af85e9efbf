/**
 * Memory over many mixed captures (issue 21, "memory flat (±5 %) over 10 000 mixed captures with
 * browser recycling"): one `shutter serve` from the build, as `make start` runs it, and a load of
 * png, jpg of the heavy page, pdf, full-page webp, markdown, cache hits over 50 entries and 400s,
 * in turn, with the browser replaced every SHUTTER_BROWSER_MAX_CAPTURES (100) captures.
 *
 * After every BENCH_SOAK_EVERY requests the load pauses BENCH_SOAK_IDLE_MS, a full garbage
 * collection is forced through the inspector (Shutter runs with --inspect on 127.0.0.1 for this),
 * then the Node process's PSS, the whole tree's (Node + Chromium) and the V8 heap (from /metrics)
 * are sampled.
 * Prints a Markdown table and writes bench/results/memory-soak.json. Run:
 * `make build && node dist/bench/memory-soak.js`. Options: BENCH_SOAK_TOTAL
 * (10000), BENCH_SOAK_CONCURRENCY (4), BENCH_SOAK_EVERY (1000), BENCH_SOAK_IDLE_MS (3000).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from '../src/capture/chromium-path.js';
import { ShutterSetup, engineSpec } from './lib/engines.js';
import { runLoad, type RequestSpec } from './lib/load.js';
import { describeMachine } from './lib/machine.js';
import { Child, freePort, killEverything, startFixtureServer, waitForAnswer } from './lib/processes.js';
import { memoryKb, processTree } from './lib/proc-tree.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOTAL = Number(process.env.BENCH_SOAK_TOTAL ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_SOAK_CONCURRENCY ?? 4);
const EVERY = Number(process.env.BENCH_SOAK_EVERY ?? 1_000);
const IDLE_MS = Number(process.env.BENCH_SOAK_IDLE_MS ?? 3_000);
/** Samples before this many requests are the warm-up: the ±5 % band is measured from here on. */
const WARM = Math.min(EVERY, TOTAL);

interface Sample {
  requests: number;
  nodePssMb: number;
  treePssMb: number;
  heapUsedMb: number;
  processes: number;
  ok: number;
  errors: number;
  status400: number;
  loadAverage: number;
}

/** The i-th request of the mix. */
function mix(base: string, fixtures: string, headers: Record<string, string>): (i: number) => RequestSpec {
  const take = (params: Record<string, string>) => `${base}/v1/take?${new URLSearchParams(params)}`;
  const kinds: Array<(i: number) => RequestSpec> = [
    () => ({ url: take({ url: `${fixtures}/simple.html` }), headers, expect: 'png' }),
    () => ({ url: take({ url: `${fixtures}/heavy.html`, format: 'jpg' }), headers, expect: 'jpeg' }),
    () => ({ url: take({ url: `${fixtures}/article.html`, format: 'pdf' }), headers, expect: 'pdf' }),
    () => ({ url: take({ url: `${fixtures}/text.html`, format: 'webp', full_page: '1' }), headers, expect: 'webp' }),
    () => ({ url: take({ url: `${fixtures}/article.html`, format: 'markdown' }), headers, expect: 'markdown' }),
    // 50 entries: the first round of each is a miss, later ones are hits.
    (i) => ({ url: take({ url: `${fixtures}/simple.html?v=${i % 50}`, cache: '1' }), headers, expect: 'png' }),
    () => ({ url: take({ url: `${fixtures}/simple.html`, viewport_width: 'wide' }), headers, expect: 'png', tolerate: [400] }),
  ];
  return (i) => kinds[i % kinds.length]!(Math.floor(i / kinds.length));
}

/**
 * A full GC in the server, through its inspector: garbage not yet collected would otherwise be
 * counted as memory held. Node 20's WebSocket is behind a flag, so a child process sends it.
 */
async function collectGarbage(inspectPort: number): Promise<void> {
  const [target] = (await fetch(`http://127.0.0.1:${inspectPort}/json/list`).then((r) => r.json())) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const script = `const ws = new WebSocket(${JSON.stringify(target!.webSocketDebuggerUrl)});
ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
ws.onmessage = (m) => { if (JSON.parse(m.data).id === 1) { ws.close(); process.exit(0); } };
setTimeout(() => process.exit(1), 30000);`;
  const code = await new Promise<number | null>((resolve) => {
    execFile(process.execPath, ['--experimental-websocket', '--no-warnings', '-e', script], (error) => resolve(error ? 1 : 0));
  });
  if (code !== 0) throw new Error('could not force a GC through the inspector');
}

async function heapUsedMb(base: string): Promise<number> {
  const text = await fetch(`${base}/metrics`).then((r) => r.text());
  const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text);
  return match ? Number(match[1]) / 2 ** 20 : NaN;
}

function sample(child: Child, base: string, requests: number, totals: { ok: number; errors: number; status400: number }): Promise<Sample> {
  const tree = processTree(child.pid);
  const pss = (pid: number) => memoryKb(pid).pssKb / 1024;
  return heapUsedMb(base).then((heap) => ({
    requests,
    nodePssMb: Math.round(pss(child.pid)),
    treePssMb: Math.round(tree.reduce((sum, p) => sum + pss(p.pid), 0)),
    heapUsedMb: Math.round(heap * 10) / 10,
    processes: tree.length,
    ...totals,
    loadAverage: Math.round(loadavg()[0]! * 10) / 10,
  }));
}

const band = (values: number[]) => {
  const min = Math.min(...values);
  const max = Math.max(...values);
  return { min, max, spreadPct: Math.round(((max - min) / ((max + min) / 2)) * 1000) / 10 };
};

async function main() {
  for (const built of ['dist/bundle/main.js', 'dist/bench/fixture-server.js']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run \`make build\` first`);
  }
  const chromium = findChromium(process.env.SHUTTER_CHROMIUM_PATH);
  const machine = describeMachine(chromium);
  const { child: fixtureServer, base: fixtures } = await startFixtureServer(ROOT);
  const setup = new ShutterSetup();
  const port = await freePort();
  const spec = engineSpec('shutter', port, CONCURRENCY, { root: ROOT, chromium, shutter: setup, floorGotoTimeoutS: 30 });
  const inspectPort = await freePort();
  const child = new Child(
    'shutter',
    [spec.argv[0]!, `--inspect=127.0.0.1:${inspectPort}`, ...spec.argv.slice(1)],
    { ...spec.env, SHUTTER_BROWSER_MAX_CAPTURES: process.env.SHUTTER_BROWSER_MAX_CAPTURES ?? '100' },
    { cwd: ROOT, verbose: false },
  );
  const base = `http://127.0.0.1:${port}`;
  const samples: Sample[] = [];
  const started = new Date().toISOString();
  try {
    await waitForAnswer(base, child);
    const request = mix(base, fixtures, spec.headers);
    const totals = { ok: 0, errors: 0, status400: 0 };
    const errorSamples = new Set<string>();
    for (let done = 0; done < TOTAL;) {
      const n = Math.min(EVERY, TOTAL - done);
      const offset = done;
      const load = await runLoad((i) => request(offset + i), {
        total: n,
        concurrency: CONCURRENCY,
        deadline: Infinity,
        requestTimeoutMs: 120_000,
      });
      done += n;
      totals.ok += load.ok;
      totals.errors += load.errors;
      totals.status400 += load.tolerated['400'] ?? 0;
      for (const e of load.errorSamples) errorSamples.add(e);
      if (!child.alive) throw new Error(`shutter exited\n${child.tail()}`);
      await new Promise((r) => setTimeout(r, IDLE_MS));
      await collectGarbage(inspectPort);
      const s = await sample(child, base, done, totals);
      samples.push(s);
      console.error(
        `${done} requests: node ${s.nodePssMb} MiB, tree ${s.treePssMb} MiB, heap ${s.heapUsedMb} MiB, errors ${totals.errors}, load ${s.loadAverage}`,
      );
    }
    const steady = samples.filter((s) => s.requests >= WARM);
    const summary = {
      node: band(steady.map((s) => s.nodePssMb)),
      tree: band(steady.map((s) => s.treePssMb)),
      heap: band(steady.map((s) => s.heapUsedMb)),
    };
    const lines = [
      `Memory soak, ${started} → ${new Date().toISOString()}: ${machine.cpu}, ${machine.cores} cores, ${machine.chromium}, Node ${machine.node}; ${TOTAL} requests at c=${CONCURRENCY}, sampled every ${EVERY} after ${IDLE_MS} ms idle.`,
      '',
      '| after requests | Node PSS MiB | tree PSS MiB | V8 heap used MiB | processes | ok | errors | 400s | load |',
      '|---|---|---|---|---|---|---|---|---|',
      ...samples.map(
        (s) =>
          `| ${s.requests} | ${s.nodePssMb} | ${s.treePssMb} | ${s.heapUsedMb} | ${s.processes} | ${s.ok} | ${s.errors} | ${s.status400} | ${s.loadAverage} |`,
      ),
      '',
      `From ${WARM} requests on: Node PSS ${summary.node.min}–${summary.node.max} MiB (spread ${summary.node.spreadPct} %), tree ${summary.tree.min}–${summary.tree.max} MiB (${summary.tree.spreadPct} %), heap ${summary.heap.min}–${summary.heap.max} MiB (${summary.heap.spreadPct} %).`,
      ...(errorSamples.size ? ['', `Errors: ${[...errorSamples].join('; ')}`] : []),
    ];
    console.log(lines.join('\n'));
    const dir = join(ROOT, 'bench/results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'memory-soak.json'),
      JSON.stringify({ started, machine, total: TOTAL, concurrency: CONCURRENCY, samples, summary }, null, 2),
    );
  } finally {
    await child.stop();
    await fixtureServer.stop();
    setup.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  killEverything();
  process.exit(1);
});
