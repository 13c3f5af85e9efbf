/**
 * The benchmark suite: Shutter against three baselines on a local fixture site, every engine an
 * HTTP server in its own process. Run with `make bench` (or `make bench-smoke`); options are BENCH_*
 * environment variables (docs/performance.md, "How to run the benchmark"). Within a scenario the
 * engines take turns round by round (bench/lib/rounds.ts). Prints Markdown, writes
 * bench/results/bench-<date>.json, the report bench/results/bench-<date>.md with its chart (.svg),
 * both also as bench-latest.*, and, for a full run, the results section of docs/performance.md.
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from '../src/capture/chromium-path.js';
import { ShutterSetup, engineSpec, type EngineContext, type EngineSpec } from './lib/engines.js';
import { mergeLoads, runLoad, send, type LoadResult, type RequestSpec } from './lib/load.js';
import { describeMachine, finishMachine } from './lib/machine.js';
import { readOptions, type BenchOptions, type EngineId } from './lib/options.js';
import { Child, freePort, killEverything, startFixtureServer } from './lib/processes.js';
import { sampleTree, TreeSampler } from './lib/proc-tree.js';
import { renderMarkdown, writeDocsSection, writeJson, writeReport } from './lib/report.js';
import type { ColdStarts, LongRun, ResolverDelta, RoundFigure, RunReport, ScenarioResult } from './lib/results.js';
import { planBlocks, roundOrder, type BlockPlan } from './lib/rounds.js';
import {
  COLD_START_SCENARIO,
  LONG_RUN_CONCURRENCY,
  LONG_RUN_MIX,
  SCENARIOS,
  roundsFor,
  selectScenarios,
  type Scenario,
} from './lib/scenarios.js';
import { mean, percentile, round } from './lib/stats.js';
import { evaluateTargets } from './lib/targets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COLD_START_TIMEOUT_MS = 60_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface RunningEngine {
  spec: EngineSpec;
  child: Child;
  base: string;
}

/** One engine's part of a scenario while it runs: its plan, its blocks so far and its tree's peaks. */
interface EngineRun {
  engine: RunningEngine;
  spec: RequestSpec;
  warmSpec: RequestSpec;
  plan: BlockPlan;
  warm?: LoadResult;
  loads: LoadResult[];
  rounds: RoundFigure[];
  peakRssKb: number;
  peakPssKb: number;
  peakProcesses: number;
  cpuSeconds: number;
  resolverBefore: Record<string, number> | null;
}

class Bench {
  readonly results: ScenarioResult[] = [];
  readonly coldStarts = new Map<EngineId, ColdStarts>();
  readonly longRuns: LongRun[] = [];
  problems = 0;
  private readonly deadline: number;

  constructor(
    private readonly options: BenchOptions,
    private readonly ctx: EngineContext,
    private readonly fixtureBase: string,
  ) {
    this.deadline = performance.now() + options.runTimeoutMs;
  }

  request(engine: RunningEngine, scenario: Scenario, page = scenario.page): RequestSpec {
    const params = { ...scenario.params, ...(this.options.smoke && engine.spec.id === 'shutter' ? scenario.smokeParams : {}) };
    // The floor has no markdown: it answers the loaded page's HTML (page.content()) instead.
    const expect = scenario.expect === 'markdown' && engine.spec.id === 'floor' ? 'html' : scenario.expect;
    const query = new URLSearchParams({ url: `${this.fixtureBase}/${page}`, ...params });
    return {
      url: `${engine.base}/v1/take?${query}`,
      headers: engine.spec.headers,
      expect,
      ...(scenario.tolerate ? { tolerate: scenario.tolerate } : {}),
    };
  }

  /** Shutter's `service.resolver` counters from GET /v1/status, or null when absent or unreadable. */
  async resolverStats(engine: RunningEngine): Promise<Record<string, number> | null> {
    if (engine.spec.id !== 'shutter') return null;
    try {
      const res = await fetch(`${engine.base}/v1/status`, { headers: engine.spec.headers, signal: AbortSignal.timeout(5_000) });
      if (!res.ok) return null;
      const body = (await res.json()) as { service?: { resolver?: unknown } };
      const resolver = body?.service?.resolver;
      if (!resolver || typeof resolver !== 'object') return null;
      const counters = Object.entries(resolver).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]));
      return counters.length ? Object.fromEntries(counters) : null;
    } catch {
      return null;
    }
  }

  /** Starts an engine and measures its cold start: process start → first successful capture. */
  async start(id: EngineId, concurrency: number): Promise<RunningEngine> {
    const port = await freePort();
    const spec = engineSpec(id, port, concurrency, this.ctx);
    const child = new Child(id, spec.argv, spec.env, { cwd: ROOT, verbose: this.options.verbose });
    const engine = { spec, child, base: `http://127.0.0.1:${port}` };
    const cold = this.coldStarts.get(id) ?? { engine: id, ms: [], failures: [] };
    this.coldStarts.set(id, cold);
    const probe = this.request(engine, COLD_START_SCENARIO);
    const giveUp = child.startedAt + COLD_START_TIMEOUT_MS;
    let last = '';
    while (performance.now() < giveUp) {
      if (!child.alive) break;
      const outcome = await send(probe, Math.max(1_000, giveUp - performance.now()));
      if (outcome.ok) {
        cold.ms.push(round(performance.now() - child.startedAt));
        return engine;
      }
      last = outcome.error ?? '';
      // Refused: not listening yet, ask again soon. Anything else: it answers, but not yet well.
      await sleep(last === 'ECONNREFUSED' ? 20 : 100);
    }
    const reason = child.alive
      ? `no successful capture within ${COLD_START_TIMEOUT_MS / 1000} s (last: ${last})`
      : `exited with ${child.exitCode}`;
    cold.failures.push(reason);
    await child.stop();
    throw new Error(`${id}: ${reason}\n${child.tail()}`);
  }

  /**
   * One scenario on its engines, interleaved: every engine's warm-up, then round by round one block
   * of measured requests per engine, the order rotating each round (A B, B A, …; bench/lib/rounds.ts),
   * each block with the engine's process tree sampled throughout.
   */
  async measure(engines: RunningEngine[], scenario: Scenario): Promise<ScenarioResult[]> {
    const { options } = this;
    const c = scenario.concurrency;
    // BENCH_SCENARIO_TIMEOUT_S per engine, as when the engines ran one after another.
    const end = Math.min(this.deadline, performance.now() + options.scenarioTimeoutMs * Math.max(1, engines.length));
    const common = { requestTimeoutMs: Math.max(options.requestTimeoutMs, (scenario.minRequestTimeoutS ?? 0) * 1000) };
    const states: EngineRun[] = engines.map((engine) => {
      const spec = this.request(engine, scenario);
      const total = roundsFor(scenario, engine.spec.slow ? options.slowRounds : options.rounds, options.smoke);
      return {
        engine,
        spec,
        warmSpec: scenario.warmupPage ? this.request(engine, scenario, scenario.warmupPage) : spec,
        plan: planBlocks(total, c, options.blocks),
        loads: [],
        rounds: [],
        peakRssKb: 0,
        peakPssKb: 0,
        peakProcesses: 0,
        cpuSeconds: 0,
        resolverBefore: null,
      };
    });
    for (const s of states) {
      // A per-request-launch baseline starts a new browser each time: one request warms Node, the cold probe did that in a smoke run.
      const usual = s.engine.spec.slow ? (options.smoke ? 0 : 1) : Math.max(options.warmup, options.warmup ? c : 0);
      const warmTotal = Math.max(usual, scenario.minWarmup ?? 0);
      if (warmTotal) {
        s.warm = await runLoad(() => s.warmSpec, { ...common, total: warmTotal, concurrency: Math.min(c, warmTotal), deadline: end });
      }
    }
    for (const s of states) if (scenario.realPage) s.resolverBefore = await this.resolverStats(s.engine);
    const loadAvg = round(loadavg()[0]!);
    const lastRound = Math.max(0, ...states.map((s) => s.plan.rounds.at(-1) ?? 0));
    for (let r = 0; r <= lastRound && performance.now() < end; r++) {
      for (const s of roundOrder(states, r)) {
        if (!s.plan.rounds.includes(r) || performance.now() >= end) continue;
        const sampler = new TreeSampler(s.engine.child.pid, options.sampleMs, s.engine.child.seen);
        sampler.start();
        const load = await runLoad(() => s.spec, { ...common, total: s.plan.size, concurrency: c, deadline: end });
        const memory = sampler.stop();
        s.peakRssKb = Math.max(s.peakRssKb, memory.peakRssKb);
        s.peakPssKb = Math.max(s.peakPssKb, memory.peakPssKb);
        s.peakProcesses = Math.max(s.peakProcesses, memory.peakProcesses);
        s.cpuSeconds += memory.cpuSeconds;
        s.loads.push(load);
        if (load.ok + load.errors + load.toleratedLatencies.length > 0) {
          s.rounds.push({
            round: r,
            ok: load.ok,
            errors: load.errors,
            p50: round(percentile(load.latencies, 0.5)),
            throughput: load.wallMs > 0 ? Math.round((load.ok / load.wallMs) * 1000 * 100) / 100 : 0,
            medianBytes: Math.round(percentile(load.bytes, 0.5)) || 0,
          });
        }
      }
    }
    const results: ScenarioResult[] = [];
    for (const s of states) {
      const resolverAfter = scenario.realPage ? await this.resolverStats(s.engine) : null;
      results.push(this.summarise(s, scenario, loadAvg, resolverAfter));
    }
    return results;
  }

  /** One engine's rounds of a scenario as one result. */
  private summarise(s: EngineRun, scenario: Scenario, loadAvg: number, resolverAfter: Record<string, number> | null): ScenarioResult {
    const { engine, warm } = s;
    const load = mergeLoads(s.loads);
    const phases = Object.keys(load.phases).length
      ? Object.fromEntries(Object.entries(load.phases).map(([k, v]) => [k, round(percentile(v, 0.5))]))
      : undefined;
    return {
      scenario: scenario.id,
      title: scenario.title,
      engine: engine.spec.id,
      concurrency: scenario.concurrency,
      ok: load.ok,
      errors: load.errors + (warm?.errors ?? 0),
      errorSamples: [...new Set([...(warm?.errorSamples ?? []), ...load.errorSamples, ...loggedErrors(engine)])].slice(0, 8),
      p50: round(percentile(load.latencies, 0.5)),
      p90: round(percentile(load.latencies, 0.9)),
      p95: round(percentile(load.latencies, 0.95)),
      p99: round(percentile(load.latencies, 0.99)),
      mean: round(mean(load.latencies)),
      max: load.latencies.length ? round(Math.max(...load.latencies)) : Number.NaN,
      throughput: load.wallMs > 0 ? Math.round((load.ok / load.wallMs) * 1000 * 100) / 100 : 0,
      peakRssMb: round(s.peakRssKb / 1024),
      peakPssMb: round(s.peakPssKb / 1024),
      peakProcesses: s.peakProcesses,
      cpuMsPerCapture: load.ok ? round((s.cpuSeconds * 1000) / load.ok) : Number.NaN,
      medianBytes: Math.round(percentile(load.bytes, 0.5)) || 0,
      ...(phases ? { phases } : {}),
      requests: load.ok + load.errors + load.toleratedLatencies.length,
      ...(load.toleratedLatencies.length
        ? {
            tolerated: load.tolerated,
            toleratedP50: round(percentile(load.toleratedLatencies, 0.5)),
            toleratedSamples: load.toleratedSamples,
          }
        : {}),
      ...(Object.keys(load.warnings).length ? { warnings: load.warnings } : {}),
      ...(scenario.realPage && engine.spec.id === 'shutter' ? { resolver: resolverDelta(s.resolverBefore, resolverAfter) } : {}),
      rounds: s.rounds,
      blockSize: s.plan.size,
      loadAvg,
      ...(Object.keys(load.cache).length ? { cache: load.cache } : {}),
      ...(scenario.fullPageHeight ? { fullPageHeight: scenario.fullPageHeight } : {}),
    };
  }

  private skip(scenario: Scenario, engine: EngineId, why: string): void {
    console.log(`${scenario.id.padEnd(24)} ${engine.padEnd(16)} skipped: ${why}`);
    // One line, no table breakers, for the report.
    const reason = (why.split('\n')[0] ?? '').replaceAll('|', '/').slice(0, 200);
    this.results.push({
      scenario: scenario.id,
      title: scenario.title,
      engine,
      concurrency: scenario.concurrency,
      ok: 0,
      errors: 0,
      errorSamples: [],
      p50: Number.NaN,
      p95: Number.NaN,
      p99: Number.NaN,
      mean: Number.NaN,
      max: Number.NaN,
      throughput: 0,
      peakRssMb: 0,
      peakPssMb: 0,
      peakProcesses: 0,
      cpuMsPerCapture: Number.NaN,
      medianBytes: 0,
      skipped: reason,
    });
  }

  private record(result: ScenarioResult): void {
    this.results.push(result);
    if (result.errors) this.problems += result.errors;
    const r = result;
    console.log(
      `${r.scenario.padEnd(24)} ${r.engine.padEnd(16)} ok ${String(r.ok).padStart(4)}  err ${r.errors}  ` +
        `p50 ${r.p50.toFixed(0).padStart(5)}  p95 ${r.p95.toFixed(0).padStart(5)}  ${r.throughput.toFixed(1).padStart(5)}/s  ` +
        `PSS ${r.peakPssMb.toFixed(0).padStart(5)} MiB  CPU ${Number(r.cpuMsPerCapture).toFixed(0).padStart(4)} ms/capture` +
        (r.tolerated
          ? `  tolerated ${Object.entries(r.tolerated)
              .map(([k, v]) => `${k} ×${v}`)
              .join(', ')} (p50 ${r.toleratedP50?.toFixed(0)} ms)`
          : '') +
        (r.warnings
          ? `  warnings ${Object.entries(r.warnings)
              .map(([k, v]) => `${k} ×${v}`)
              .join(', ')}`
          : '') +
        (r.errors ? `\n    errors: ${r.errorSamples.join(' | ').slice(0, 400)}` : ''),
    );
  }

  /** Every selected scenario on every selected engine; within a scenario the engines take turns round by round. */
  async runScenarios(scenarios: Scenario[]): Promise<void> {
    const shared = new Map<EngineId, RunningEngine | Error>();
    const maxConcurrency = Math.max(1, ...scenarios.map((s) => s.concurrency));
    try {
      for (const scenario of scenarios) {
        const engines: RunningEngine[] = [];
        try {
          for (const id of scenario.engines.filter((e) => this.options.engines.includes(e))) {
            if (performance.now() > this.deadline) {
              this.problems++;
              this.skip(scenario, id, 'run time budget (BENCH_MAX_MINUTES) spent');
              continue;
            }
            try {
              if (this.options.fresh) engines.push(await this.start(id, scenario.concurrency));
              else {
                let existing = shared.get(id);
                if (existing instanceof Error) throw existing;
                if (!existing || !existing.child.alive) {
                  if (existing) this.problems++; // it died since the last scenario
                  existing = await this.start(id, maxConcurrency).catch((e: Error) => e);
                  shared.set(id, existing);
                  if (existing instanceof Error) throw existing;
                }
                engines.push(existing);
              }
            } catch (error) {
              this.problems++;
              this.skip(scenario, id, `did not start: ${(error as Error).message}`);
            }
          }
          if (engines.length) for (const result of await this.measure(engines, scenario)) this.record(result);
        } finally {
          if (this.options.fresh) for (const engine of engines) await engine.child.stop();
        }
      }
    } finally {
      for (const engine of shared.values()) if (!(engine instanceof Error)) await engine.child.stop();
    }
  }

  /** Many captures of a mix of pages: memory after the first 50 and at the end. */
  async longRun(id: EngineId): Promise<void> {
    const { options } = this;
    let engine: RunningEngine;
    try {
      engine = await this.start(id, LONG_RUN_CONCURRENCY);
    } catch (error) {
      this.problems++;
      console.log(`long run ${id}: did not start: ${(error as Error).message}`);
      return;
    }
    try {
      const mix = LONG_RUN_MIX.map((sid) =>
        this.request(
          engine,
          SCENARIOS.find((s) => s.id === sid)!,
        ),
      );
      const deadline = Math.min(this.deadline, performance.now() + options.longCaptures * 1_000);
      const common = { concurrency: LONG_RUN_CONCURRENCY, deadline, requestTimeoutMs: options.requestTimeoutMs };
      const started = performance.now();
      const sampler = new TreeSampler(engine.child.pid, options.sampleMs, engine.child.seen);
      sampler.start();
      const first = await runLoad((i) => mix[i % mix.length]!, { ...common, total: 50 });
      await sleep(2_000);
      const after50 = sampleTree(engine.child.pid, engine.child.seen);
      const rest = await runLoad((i) => mix[(i + 50) % mix.length]!, { ...common, total: options.longCaptures - 50 });
      await sleep(2_000);
      const atEnd = sampleTree(engine.child.pid, engine.child.seen);
      const memory = sampler.stop();
      const long: LongRun = {
        engine: id,
        captures: first.ok + rest.ok,
        errors: first.errors + rest.errors,
        errorSamples: [...new Set([...first.errorSamples, ...rest.errorSamples])].slice(0, 5),
        concurrency: LONG_RUN_CONCURRENCY,
        mix: LONG_RUN_MIX,
        pssAfter50Mb: round(after50.pssKb / 1024),
        pssAfterEndMb: round(atEnd.pssKb / 1024),
        rssAfter50Mb: round(after50.rssKb / 1024),
        rssAfterEndMb: round(atEnd.rssKb / 1024),
        peakPssMb: round(memory.peakPssKb / 1024),
        durationS: round((performance.now() - started) / 1000),
      };
      this.longRuns.push(long);
      this.problems += long.errors;
      console.log(
        `long run ${id}: ${long.captures} captures, ${long.errors} errors, PSS ${long.pssAfter50Mb} MiB after 50 → ${long.pssAfterEndMb} MiB at end` +
          (long.errors ? `\n    errors: ${long.errorSamples.join(' | ').slice(0, 400)}` : ''),
      );
    } finally {
      await engine.child.stop();
    }
  }
}

/** Counter by counter, after − before; null when either is missing (an older Shutter has no service.resolver). */
function resolverDelta(before: Record<string, number> | null, after: Record<string, number> | null): ResolverDelta | null {
  if (!before || !after) return null;
  const delta = Object.fromEntries(
    Object.keys(after)
      .filter((k) => k in before)
      .map((k) => [k, after[k]! - before[k]!]),
  );
  return { before, after, delta };
}

/**
 * The engine's own error log lines (pino level 50/60), which say what an HTTP 500 hides; and when
 * the engine is gone, how it ended and its last lines (a crash's stack), which ECONNREFUSED hides.
 */
function loggedErrors(engine: RunningEngine): string[] {
  const { child } = engine;
  const lines = child.tail(60).split('\n');
  const logged = lines.filter((line) => /"level":(50|60)/.test(line)).slice(-3);
  if (child.alive) return logged;
  const how = child.exitSignal ? `signal ${child.exitSignal}` : `code ${child.exitCode}`;
  const last = lines.filter((line) => line.trim() && !/"level":(50|60)/.test(line)).slice(-4);
  return [...logged, `${engine.spec.id} exited during the scenario (${how})${last.length ? `: ${last.join(' / ')}` : ''}`];
}

function commandLine(options: BenchOptions): string {
  const vars = Object.entries(process.env)
    .filter(([k, v]) => k.startsWith('BENCH_') && k !== 'BENCH_SMOKE' && k !== 'BENCH_NOTE' && v)
    .map(([k, v]) => `${k}=${v}`);
  return [...vars, options.smoke ? 'make bench-smoke' : 'make bench'].join(' ');
}

async function main(): Promise<number> {
  const options = readOptions();
  for (const built of ['dist/bundle/main.js', 'dist/bench/baselines/floor-server.js']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run \`make bench\`, which builds first`);
  }
  if (options.engines.includes('capture-website') && !existsSync(join(ROOT, 'bench/node_modules/capture-website/package.json'))) {
    throw new Error('capture-website is not installed: run `make bench` (or `cd bench && PUPPETEER_SKIP_DOWNLOAD=1 npm install`)');
  }
  const chromium = options.chromium ?? findChromium(process.env.SHUTTER_CHROMIUM_PATH);
  const machine = describeMachine(chromium);
  const started = performance.now();
  const date = new Date().toISOString();
  const shutter = new ShutterSetup();
  atExit.push(() => shutter.cleanup());
  console.log(
    `Shutter benchmark${options.smoke ? ' (smoke)' : ''}: ${machine.cpu}, ${machine.cores} cores, ${machine.chromium}, Node ${machine.node}, load ${machine.loadStart}`,
  );
  try {
    const { child: fixtures, base: fixtureBase } = await startFixtureServer(ROOT, options.verbose);
    const bench = new Bench(options, { root: ROOT, chromium, shutter, floorGotoTimeoutS: options.floorGotoTimeoutS }, fixtureBase);
    try {
      await bench.runScenarios(selectScenarios(options.scenarios, options.smoke));
      if (options.long)
        for (const id of (['shutter', 'floor'] as const).filter((e) => options.engines.includes(e))) await bench.longRun(id);
    } finally {
      await fixtures.stop();
    }
    finishMachine(machine);
    const partial = {
      date,
      command: commandLine(options),
      ...(process.env.BENCH_NOTE ? { note: process.env.BENCH_NOTE } : {}),
      smoke: options.smoke,
      options,
      machine,
      durationS: round((performance.now() - started) / 1000),
      scenarios: bench.results,
      coldStarts: [...bench.coldStarts.values()],
      longRuns: bench.longRuns,
      problems: bench.problems,
    };
    const report: RunReport = { ...partial, targets: evaluateTargets(partial) };
    const markdown = renderMarkdown(report, partial.command);
    console.log(`\n${markdown}\n`);
    const name = options.smoke ? 'smoke' : 'bench';
    const json = writeJson(join(ROOT, 'bench/results'), name, report);
    console.log(`JSON: ${json}`);
    // A smoke run's report is only its latest (git-ignored); a measured run keeps a dated copy too.
    const files = writeReport(join(ROOT, 'bench/results'), name, report, markdown, !options.smoke);
    console.log(`Report: ${files.filter((f) => f.endsWith('.md')).join(', ')} (chart: .svg beside it)`);
    if (options.writeDocs) {
      writeDocsSection(join(ROOT, 'docs/performance.md'), markdown);
      console.log('Results written to docs/performance.md.');
    }
    if (report.problems) console.error(`${report.problems} failed request(s) or engine start(s): see "Errors" above.`);
    return report.problems ? 1 : 0;
  } finally {
    killEverything();
    shutter.cleanup();
  }
}

/** Synchronous clean-ups that must run however the bench ends. */
const atExit: Array<() => void> = [killEverything];
process.on('exit', () => {
  for (const fn of atExit) fn();
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${signal}: stopping every engine`);
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
