/**
 * The engines under test, each an HTTP server in a process of its own answering the same
 * `GET /v1/take?url=…` request, so that their memory is measured the same way: Shutter itself and
 * the three baselines.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineId } from './options.js';

export interface EngineSpec {
  id: EngineId;
  label: string;
  argv: string[];
  env: Record<string, string>;
  headers: Record<string, string>;
  /** Launches a browser per request: fewer rounds. */
  slow: boolean;
}

export const ENGINE_LABELS: Record<EngineId, string> = {
  shutter: 'Shutter',
  floor: 'floor: warm Playwright',
  bare: 'bound: bare CDP',
  launch: 'launch per request',
  'capture-website': 'capture-website',
};

/** What every Shutter start shares: a data dir, a plans file without limits, a bootstrap key. */
export class ShutterSetup {
  readonly dataRoot = mkdtempSync(join(tmpdir(), 'shutter-bench-'));
  readonly key = `bench${randomBytes(24).toString('hex')}`;
  readonly plansFile = join(this.dataRoot, 'plans.json');
  /** One data dir for every start, as a restarted service has: only the first start creates the database. */
  readonly dataDir = join(this.dataRoot, 'data');

  constructor() {
    // The bootstrap key's plan (scale) allows 150 requests a minute: lift it so the bench measures
    // the engine, not the rate limiter.
    const plans = {
      plans: [{ name: 'scale', max_keys: 100, monthly_quota: 1_000_000_000, rate_per_minute: 1_000_000, concurrency: 10_000 }],
    };
    writeFileSync(this.plansFile, JSON.stringify(plans));
  }

  cleanup(): void {
    rmSync(this.dataRoot, { recursive: true, force: true });
  }
}

export interface EngineContext {
  root: string;
  chromium: string;
  shutter: ShutterSetup;
  /** The floor's bound on page.goto, s. */
  floorGotoTimeoutS: number;
}

/** How to start an engine on a port; `concurrency` sizes Shutter's pool. */
export function engineSpec(id: EngineId, port: number, concurrency: number, ctx: EngineContext): EngineSpec {
  const base = { BENCH_PORT: String(port), BENCH_CHROMIUM: ctx.chromium };
  const node = process.execPath;
  switch (id) {
    case 'shutter':
      return {
        id,
        label: ENGINE_LABELS[id],
        argv: [node, join(ctx.root, 'dist/bundle/main.js'), 'serve'],
        env: {
          SHUTTER_PORT: String(port),
          SHUTTER_HOST: '127.0.0.1',
          SHUTTER_DATA_DIR: ctx.shutter.dataDir,
          SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
          SHUTTER_BOOTSTRAP_KEY: ctx.shutter.key,
          SHUTTER_LOG_LEVEL: 'warn',
          SHUTTER_CONCURRENCY: String(Math.min(64, Math.max(1, concurrency))),
          SHUTTER_CHROMIUM_PATH: ctx.chromium,
          SHUTTER_PLANS_FILE: ctx.shutter.plansFile,
          // As `make start` runs it (docs/performance.md, memory): fewer glibc arenas for libvips' threads.
          MALLOC_ARENA_MAX: '2',
        },
        headers: { apikey: ctx.shutter.key },
        slow: false,
      };
    case 'floor':
      return {
        id,
        label: ENGINE_LABELS[id],
        argv: [node, join(ctx.root, 'dist/bench/baselines/floor-server.js')],
        env: { ...base, BENCH_FLOOR_GOTO_TIMEOUT_S: String(ctx.floorGotoTimeoutS) },
        headers: {},
        slow: false,
      };
    case 'bare':
      return {
        id,
        label: ENGINE_LABELS[id],
        argv: [node, join(ctx.root, 'dist/bench/baselines/bare-cdp-server.js')],
        env: base,
        headers: {},
        slow: false,
      };
    case 'launch':
      return {
        id,
        label: ENGINE_LABELS[id],
        argv: [node, join(ctx.root, 'dist/bench/baselines/launch-per-request-server.js')],
        env: base,
        headers: {},
        slow: true,
      };
    case 'capture-website':
      return {
        id,
        label: ENGINE_LABELS[id],
        argv: [node, join(ctx.root, 'bench/baselines/capture-website-server.mjs')],
        env: base,
        headers: {},
        slow: true,
      };
  }
}
