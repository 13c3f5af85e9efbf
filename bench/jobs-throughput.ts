/**
 * Async job throughput and latency (issue 18): N small captures queued with POST /v1/bulk, timed
 * until every job's webhook said it succeeded, on real `serve` processes spawned from this build's
 * dist/bundle/main.js (as test/e2e/jobs-cluster.test.ts does):
 *
 * - embedded: one `serve` (role all) on a SQLite file, the embedded queue, local file store;
 * - redis-1:  one API node (`serve`, SHUTTER_JOB_CONCURRENCY=0) + one `serve --role worker`, on
 *             Postgres (a schema of its own), BullMQ on Redis (a key prefix of its own) and s3rver;
 * - redis-2:  the same with two workers;
 * - pg-1:     (not in the default list) the embedded queue on Postgres, 1 API node + 1 worker, no Redis.
 *
 * Beside each queue, the sync baseline: the same captures through POST /v1/take with upload=1 (the
 * same work: render, store, charge) at the same concurrency, on the same node, so the difference is
 * what the queue costs per job. And on embedded and redis-1, sync captures one at a time on the API
 * node, idle and while a backlog of jobs drains (what jobs do to sync latency on a node that runs
 * both, against one that leaves them to a worker). Prints Markdown tables, writes
 * bench/results/jobs-throughput-<date>.json and jobs-throughput-latest.json; about 3 minutes. Run:
 *
 *   make build && node dist/bench/jobs-throughput.js
 *
 * Options (environment): BENCH_JOBS (100), BENCH_CONCURRENCY (4: SHUTTER_CONCURRENCY of every process,
 * hence its job slots, and the sync baseline's client concurrency), BENCH_ROUNDS (1: async and sync
 * alternate, their order swapped each round), BENCH_TOPOLOGIES (embedded,redis-1,redis-2), BENCH_PAGE
 * (html: bench/fixtures/simple.html sent as html=; url: the same page from bench/fixture-server.ts),
 * BENCH_SYNC (1; 0 skips the baseline), BENCH_MIXED (1; 0 skips the sync-latency-while-jobs-drain rows),
 * BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_VERBOSE=1.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadPlans } from '../src/accounts/plans.js';
import { createAccountServices } from '../src/accounts/services.js';
import { findChromium } from '../src/capture/chromium-path.js';
import { openDatabase } from '../src/db/database.js';
import { describeMachine, finishMachine } from './lib/machine.js';
import { Child, freePort, killEverything } from './lib/processes.js';
import { TreeSampler } from './lib/proc-tree.js';
import { percentile, round } from './lib/stats.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The service of the same build as this file (dist/bundle/main.js next to dist/bench/). */
const CLI = fileURLToPath(new URL('../bundle/main.js', import.meta.url));
const FIXTURE_SERVER = fileURLToPath(new URL('./fixture-server.js', import.meta.url));
const SIMPLE_HTML = readFileSync(join(ROOT, 'bench/fixtures/simple.html'), 'utf8');

const JOBS = Number(process.env.BENCH_JOBS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const TOPOLOGIES = (process.env.BENCH_TOPOLOGIES ?? 'embedded,redis-1,redis-2').split(',').map((s) => s.trim()) as TopologyId[];
const PAGE: 'html' | 'url' = process.env.BENCH_PAGE === 'url' ? 'url' : 'html';
const SYNC = process.env.BENCH_SYNC !== '0';
/** Sync captures one at a time on the API node, idle and while jobs drain (embedded and redis-1). */
const MIXED = process.env.BENCH_MIXED !== '0';
const MIXED_CAPTURES = 20;
const VERBOSE = process.env.BENCH_VERBOSE === '1';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PG_CANDIDATES = process.env.BENCH_DATABASE_URL
  ? [process.env.BENCH_DATABASE_URL]
  : ['postgres://postgres@127.0.0.1:5432/test', 'postgres://root@127.0.0.1:5432/test'];
/** POST /v1/bulk takes at most 50 captures. */
const BULK_MAX = 50;
const SIGNING_SECRET = `jobs-bench-signing-secret-${randomBytes(8).toString('hex')}`;
/** One account whose limits never stop the bench. */
const PLANS = {
  plans: [{ name: 'bench', max_keys: 5, monthly_quota: 1e9, rate_per_minute: 1e6, concurrency: 1000, max_queued_jobs: 100_000 }],
};

type TopologyId = 'embedded' | 'redis-1' | 'redis-2' | 'pg-1';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const ms = (value: number) => Math.round(value);
const tenths = (value: number) => Math.round(value * 10) / 10;

interface Spread {
  p50: number;
  p95: number;
  max: number;
}
const spread = (values: number[]): Spread => ({
  p50: ms(percentile(values, 0.5)),
  p95: ms(percentile(values, 0.95)),
  max: ms(percentile(values, 1)),
});

interface ProcUse {
  name: string;
  /** CPU time of the process and its browser over the measured phase, ms per capture. */
  cpuMsPerCapture: number;
  peakPssMb: number;
  peakRssMb: number;
}

interface Row {
  topology: TopologyId;
  /** sync-c1-idle / sync-c1-during-jobs: one sync capture at a time on the API node, alone, then while a backlog of jobs drains. */
  mode: 'async' | 'sync' | 'sync-c1-idle' | 'sync-c1-during-jobs';
  round: number;
  captures: number;
  ok: number;
  failed: number;
  errorSamples: string[];
  /** First request sent → last job's webhook received (async) or last answer (sync), s. */
  wallS: number;
  perSecond: number;
  /** Async: created_at → finished_at of each job (server clock). Sync: request → answer (client). */
  latency: Spread;
  /** Async only: created_at → started_at (waiting in the queue). */
  wait?: Spread;
  /** Async only: started_at → finished_at (the capture, its upload and the charge). */
  run?: Spread;
  /** Async only: first request sent → the job's webhook received (client clock). */
  notified?: Spread;
  /** Async only: each POST /v1/bulk's answer time, ms. */
  intakeMs?: number[];
  /** Async only: webhooks received more than once (at-least-once delivery), and jobs run more than once. */
  duplicateWebhooks?: number;
  processes: ProcUse[];
  loadAvg: number;
}

/** A `serve` process of the topology. */
interface Node {
  name: string;
  role: 'all' | 'api' | 'worker';
  child: Child;
  port: number;
}

/** Webhook receiver: the first delivery of each job, with its arrival time. */
class Receiver {
  readonly arrived = new Map<string, { at: number; body: Json }>();
  duplicates = 0;
  private waiters: Array<() => void> = [];
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const at = performance.now();
        response.writeHead(200).end('ok');
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
          if (this.arrived.has(body.job_id)) this.duplicates++;
          else this.arrived.set(body.job_id, { at, body });
        } catch {
          // Not a job: ignore.
        }
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}/hook/${path}`;
  }

  async until(ids: readonly string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ids.every((id) => this.arrived.has(id))) {
      const left = deadline - Date.now();
      if (left <= 0) {
        const missing = ids.filter((id) => !this.arrived.has(id)).length;
        throw new Error(`${missing} of ${ids.length} webhooks missing after ${timeoutMs} ms`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

async function probePostgres(): Promise<string | undefined> {
  for (const url of PG_CANDIDATES) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return url;
    } catch {
      // next candidate
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return undefined;
}

async function waitReady(node: { name: string; child: Child; port: number }, timeoutMs = 60_000, path = '/readyz'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!node.child.alive) throw new Error(`${node.name} exited ${node.child.exitCode}:\n${node.child.tail(30)}`);
    const ok = await fetch(`http://127.0.0.1:${node.port}${path}`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${node.name} not ready in ${timeoutMs} ms:\n${node.child.tail(30)}`);
    await sleep(200);
  }
}

/** The captures' parameters: the simple page, png, default viewport. */
function capture(i: number, url: string | undefined): Record<string, unknown> {
  // A comment makes each html different (no two jobs are the same capture), without changing the render.
  return url ? { url: `${url}?n=${i}` } : { html: `${SIMPLE_HTML}<!-- ${i} -->` };
}

class Topology {
  readonly nodes: Node[] = [];
  private s3?: Child;
  private dir!: string;
  private schema?: string;
  private prefix?: string;
  key!: string;
  api!: Node;

  constructor(
    readonly id: TopologyId,
    private readonly postgresUrl: string | undefined,
  ) {}

  get workers(): number {
    return this.id === 'redis-2' ? 2 : 1;
  }

  get captureSlots(): number {
    return this.workers * CONCURRENCY;
  }

  /** Every process of the topology (nodes and s3rver), for CPU and memory. */
  get children(): Array<{ name: string; child: Child }> {
    return [...this.nodes, ...(this.s3 ? [{ name: 's3rver', child: this.s3 }] : [])];
  }

  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), `shutter-bench-jobs-${this.id}-`));
    const plansFile = join(this.dir, 'plans.json');
    writeFileSync(plansFile, JSON.stringify(PLANS));
    const env: Record<string, string> = {
      SHUTTER_SIGNING_SECRET: SIGNING_SECRET,
      SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
      SHUTTER_PLANS_FILE: plansFile,
      SHUTTER_CONCURRENCY: String(CONCURRENCY),
      SHUTTER_HOST: '127.0.0.1',
      SHUTTER_LOG_LEVEL: 'info',
      MALLOC_ARENA_MAX: '2',
    };
    if (this.id === 'embedded') {
      const dataDir = join(this.dir, 'data');
      mkdirSync(dataDir);
      this.key = await seed({ sqliteFile: join(dataDir, 'shutter.db') }, plansFile);
      this.nodes.push(await this.spawn('serve', 'all', [], { ...env, SHUTTER_DATA_DIR: dataDir }));
    } else {
      if (!this.postgresUrl) throw new Error(`${this.id} needs Postgres on 127.0.0.1:5432 (or BENCH_DATABASE_URL)`);
      const suffix = randomBytes(5).toString('hex');
      this.schema = `shutter_bench_jobs_${suffix}`;
      const databaseUrl = new URL(this.postgresUrl);
      databaseUrl.searchParams.set('options', `-c search_path=${this.schema}`);
      this.key = await seed({ url: this.postgresUrl, sqliteFile: '', schema: this.schema }, plansFile);
      Object.assign(env, { SHUTTER_DATABASE_URL: databaseUrl.href });
      if (this.id !== 'pg-1') {
        this.prefix = `shutter-bench-jobs:${suffix}:`;
        Object.assign(env, { SHUTTER_REDIS_URL: REDIS_URL, SHUTTER_REDIS_PREFIX: this.prefix });
      }
      const s3Port = await freePort();
      const s3Dir = join(this.dir, 's3');
      this.s3 = new Child(
        's3rver',
        [
          process.execPath,
          '--input-type=module',
          '-e',
          `import S3rver from 's3rver'; await new S3rver({ port: ${s3Port}, address: '127.0.0.1', directory: ${JSON.stringify(s3Dir)}, silent: true, configureBuckets: [{ name: 'shots', configs: [] }] }).run();`,
        ],
        {},
        { cwd: ROOT, verbose: VERBOSE },
      );
      await waitReady({ name: 's3rver', child: this.s3, port: s3Port }, 20_000, '/');
      Object.assign(env, {
        SHUTTER_STORAGE: 's3',
        SHUTTER_S3_BUCKET: 'shots',
        SHUTTER_S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
        SHUTTER_S3_FORCE_PATH_STYLE: '1',
        SHUTTER_S3_ACCESS_KEY_ID: 'S3RVER',
        SHUTTER_S3_SECRET_ACCESS_KEY: 'S3RVER',
      });
      // The API node first (it migrates the schema), then the workers.
      this.nodes.push(
        await this.spawn('api', 'api', [], { ...env, SHUTTER_JOB_CONCURRENCY: '0', SHUTTER_DATA_DIR: join(this.dir, 'api') }),
      );
      await waitReady(this.nodes[0]!);
      for (let w = 1; w <= this.workers; w++)
        this.nodes.push(
          await this.spawn(`worker-${w}`, 'worker', ['--role', 'worker'], { ...env, SHUTTER_DATA_DIR: join(this.dir, `w${w}`) }),
        );
    }
    await Promise.all(this.nodes.map((n) => waitReady(n)));
    this.api = this.nodes[0]!;
  }

  private async spawn(name: string, role: Node['role'], args: string[], env: Record<string, string>): Promise<Node> {
    const port = await freePort();
    const child = new Child(
      name,
      [process.execPath, CLI, 'serve', ...args],
      { ...env, SHUTTER_PORT: String(port) },
      { cwd: ROOT, verbose: VERBOSE },
    );
    return { name, role, child, port };
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.child.stop(15_000)));
    await this.s3?.stop();
    if (this.schema && this.postgresUrl) {
      const admin = new pg.Client({ connectionString: this.postgresUrl });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`);
      await admin.end();
    }
    if (this.prefix) {
      const redis = new Redis(REDIS_URL);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 1000);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      redis.disconnect();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** One account on the bench plan with a key, in the database the nodes will open. */
async function seed(location: { url?: string; sqliteFile: string; schema?: string }, plansFile: string): Promise<string> {
  const services = createAccountServices({ db: await openDatabase(location), plans: loadPlans(plansFile) });
  try {
    const account = await services.accounts.create({ email: 'bench@example.com', plan: 'bench' });
    if (!account.ok) throw new Error(account.message);
    return (await services.keys.create({ name: 'bench', accountId: account.value.id })).key;
  } finally {
    await services.close();
  }
}

async function post(port: number, path: string, key: string, body: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

/** Samples every process of the topology over a phase: CPU per capture and peak memory. */
function sampleAll(topology: Topology) {
  const samplers = topology.children.map(({ name, child }) => ({ name, sampler: new TreeSampler(child.pid, 250, child.seen) }));
  for (const s of samplers) s.sampler.start();
  return (captures: number): ProcUse[] =>
    samplers.map(({ name, sampler }) => {
      const r = sampler.stop();
      return {
        name,
        cpuMsPerCapture: ms((r.cpuSeconds * 1000) / Math.max(1, captures)),
        peakPssMb: ms(r.peakPssKb / 1024),
        peakRssMb: ms(r.peakRssKb / 1024),
      };
    });
}

/** Queues `count` captures in bulks of 50 and waits for every webhook. */
async function runAsync(
  topology: Topology,
  receiver: Receiver,
  tag: string,
  count: number,
  url: string | undefined,
): Promise<Omit<Row, 'round'>> {
  const finish = sampleAll(topology);
  const load = loadavg()[0]!;
  const hook = receiver.url(tag);
  const ids: string[] = [];
  const intakeMs: number[] = [];
  const t0 = performance.now();
  for (let from = 0; from < count; from += BULK_MAX) {
    const n = Math.min(BULK_MAX, count - from);
    const sent = performance.now();
    const { status, json } = await post(topology.api.port, '/v1/bulk', topology.key, {
      requests: Array.from({ length: n }, (_, i) => ({ ...capture(from + i, url), external_id: `${tag}-${from + i}` })),
      webhook_url: hook,
    });
    intakeMs.push(ms(performance.now() - sent));
    if (status !== 202) throw new Error(`POST /v1/bulk answered ${status}: ${JSON.stringify(json)}`);
    for (const job of json.jobs as Json[]) ids.push(job.job_id as string);
  }
  await receiver.until(ids, Math.max(180_000, count * 3_000));
  const wallMs = Math.max(...ids.map((id) => receiver.arrived.get(id)!.at)) - t0;
  const processes = finish(count);
  const bodies = ids.map((id) => receiver.arrived.get(id)!.body);
  const time = (b: Json, field: string) => Date.parse(b[field] as string);
  const ok = bodies.filter((b) => b.status === 'succeeded');
  const failedBodies = bodies.filter((b) => b.status !== 'succeeded');
  return {
    topology: topology.id,
    mode: 'async',
    captures: count,
    ok: ok.length,
    failed: failedBodies.length,
    errorSamples: [...new Set(failedBodies.map((b) => `${b.error?.code}: ${b.error?.message}`))].slice(0, 3),
    wallS: tenths(wallMs / 1000),
    perSecond: round((count * 1000) / wallMs),
    latency: spread(ok.map((b) => time(b, 'finished_at') - time(b, 'created_at'))),
    wait: spread(ok.map((b) => time(b, 'started_at') - time(b, 'created_at'))),
    run: spread(ok.map((b) => time(b, 'finished_at') - time(b, 'started_at'))),
    notified: spread(ids.map((id) => receiver.arrived.get(id)!.at - t0)),
    intakeMs,
    duplicateWebhooks: receiver.duplicates,
    processes,
    loadAvg: round(load),
  };
}

/** The same captures through sync POST /v1/take with upload=1, `concurrency` in flight. */
async function runSync(
  topology: Topology,
  concurrency: number,
  count: number,
  url: string | undefined,
  mode: Row['mode'] = 'sync',
): Promise<Omit<Row, 'round'>> {
  const finish = sampleAll(topology);
  const load = loadavg()[0]!;
  const times: number[] = [];
  const errors: string[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const sent = performance.now();
        try {
          const { status, json } = await post(topology.api.port, '/v1/take', topology.key, { ...capture(i, url), upload: true });
          if (status === 200) times.push(performance.now() - sent);
          else errors.push(`${status} ${json.error?.code}: ${json.error?.message}`);
        } catch (error) {
          errors.push((error as Error).message);
        }
      }
    }),
  );
  const wallMs = performance.now() - t0;
  return {
    topology: topology.id,
    mode,
    captures: count,
    ok: times.length,
    failed: errors.length,
    errorSamples: [...new Set(errors)].slice(0, 3),
    wallS: tenths(wallMs / 1000),
    perSecond: round((times.length * 1000) / wallMs),
    latency: spread(times),
    processes: finish(count),
    loadAvg: round(load),
  };
}

async function waitForFixtures(base: string, child: Child): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (!child.alive) throw new Error(`fixture server exited:\n${child.tail()}`);
    if (
      await fetch(`${base}/simple.html`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(200);
  }
  throw new Error('fixture server not ready in 60 s');
}

const usage = (r: Row) => r.processes.map((p) => `${p.name} ${p.cpuMsPerCapture}`).join(', ');
const memory = (r: Row) => r.processes.map((p) => `${p.name} ${p.peakPssMb}`).join(', ');

function markdown(rows: Row[], header: string): string {
  const asyncRows = rows.filter((r) => r.mode === 'async');
  const syncRows = rows.filter((r) => r.mode === 'sync');
  const lines = [
    header,
    '',
    'Async: POST /v1/bulk (50 a request) → every webhook received. Latency = job created_at → finished_at (server clock); wait = created_at → started_at; run = started_at → finished_at.',
    '',
    '| topology | round | jobs | ok | wall s | jobs/s | p50 ms | p95 ms | wait p50 | run p50 | run p95 | bulk 202 ms | CPU ms/job by process | peak PSS MiB | load |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...asyncRows.map(
      (r) =>
        `| ${r.topology} | ${r.round} | ${r.captures} | ${r.ok} | ${r.wallS} | ${r.perSecond} | ${r.latency.p50} | ${r.latency.p95} | ${r.wait!.p50} | ${r.run!.p50} | ${r.run!.p95} | ${r.intakeMs!.join(' / ')} | ${usage(r)} | ${memory(r)} | ${r.loadAvg} |`,
    ),
  ];
  if (syncRows.length) {
    lines.push(
      '',
      `Sync baseline: POST /v1/take with upload=1, ${CONCURRENCY} in flight, on the same node (the API node for redis-*). Latency = request → answer (client).`,
      '',
      '| topology | round | captures | ok | wall s | captures/s | p50 ms | p95 ms | CPU ms/capture by process | peak PSS MiB | load |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...syncRows.map(
        (r) =>
          `| ${r.topology} | ${r.round} | ${r.captures} | ${r.ok} | ${r.wallS} | ${r.perSecond} | ${r.latency.p50} | ${r.latency.p95} | ${usage(r)} | ${memory(r)} | ${r.loadAvg} |`,
      ),
      '',
      'Queue overhead per job, same round and topology: (async wall − sync wall) / jobs.',
      '',
      '| topology | round | async s/job | sync s/capture | overhead ms/job |',
      '|---|---|---|---|---|',
      ...asyncRows.flatMap((a) => {
        const s = syncRows.find((r) => r.topology === a.topology && r.round === a.round);
        if (!s) return [];
        const overhead = ((a.wallS - s.wallS) * 1000) / a.captures;
        return [
          `| ${a.topology} | ${a.round} | ${(a.wallS / a.captures).toFixed(3)} | ${(s.wallS / s.captures).toFixed(3)} | ${overhead.toFixed(0)} |`,
        ];
      }),
    );
  }
  const mixed = rows.filter((r) => r.mode.startsWith('sync-c1'));
  if (mixed.length) {
    lines.push(
      '',
      `Sync captures one at a time on the API node (${MIXED_CAPTURES} each), idle and while ${JOBS} jobs drain (queued just before; on embedded the jobs share the node's ${CONCURRENCY} capture slots, on redis-1 they run on the worker process).`,
      '',
      '| topology | while | p50 ms | p95 ms | max ms |',
      '|---|---|---|---|---|',
      ...mixed.map(
        (r) =>
          `| ${r.topology} | ${r.mode === 'sync-c1-idle' ? 'idle' : `${JOBS} jobs drain`} | ${r.latency.p50} | ${r.latency.p95} | ${r.latency.max} |`,
      ),
    );
  }
  const failures = rows.filter((r) => r.failed > 0);
  if (failures.length) {
    lines.push(
      '',
      'Failures:',
      ...failures.map((r) => `- ${r.topology} ${r.mode} round ${r.round}: ${r.failed} — ${r.errorSamples.join('; ')}`),
    );
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  const chromium = findChromium(process.env.SHUTTER_CHROMIUM_PATH);
  const machine = describeMachine(chromium);
  const date = new Date().toISOString();
  const started = performance.now();
  console.log(
    `Jobs benchmark: ${JOBS} jobs, SHUTTER_CONCURRENCY=${CONCURRENCY}, ${ROUNDS} round(s), ${TOPOLOGIES.join(' → ')}, page ${PAGE}; ${machine.cpu}, ${machine.cores} cores, load ${machine.loadStart}`,
  );
  const postgresUrl = TOPOLOGIES.some((t) => t !== 'embedded') ? await probePostgres() : undefined;
  const receiver = new Receiver();
  await receiver.start();
  let fixtures: Child | undefined;
  let pageUrl: string | undefined;
  if (PAGE === 'url') {
    const port = await freePort();
    fixtures = new Child('fixtures', [process.execPath, FIXTURE_SERVER], { BENCH_PORT: String(port) }, { cwd: ROOT, verbose: VERBOSE });
    await waitForFixtures(`http://127.0.0.1:${port}`, fixtures);
    pageUrl = `http://127.0.0.1:${port}/simple.html`;
  }
  const rows: Row[] = [];
  const skipped: string[] = [];
  const problems: string[] = [];
  try {
    for (const id of TOPOLOGIES) {
      if (id !== 'embedded' && !postgresUrl) {
        skipped.push(`${id}: no Postgres answers at ${PG_CANDIDATES.join(' or ')}`);
        continue;
      }
      const topology = new Topology(id, postgresUrl);
      const startedAt = performance.now();
      try {
        await topology.start();
        console.log(
          `${id}: ${topology.nodes.map((n) => n.name).join(' + ')} ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
        );
        // Warm-up: every browser captures a few times before anything is measured.
        const warm = topology.captureSlots * 2;
        await runAsync(topology, receiver, `${id}-warm`, warm, pageUrl);
        if (SYNC) await runSync(topology, CONCURRENCY, CONCURRENCY * 2, pageUrl);
        for (let round = 1; round <= ROUNDS; round++) {
          // Async and sync alternate; the order flips each round, so drift does not favour one.
          const order: Array<'async' | 'sync'> = round % 2 === 1 ? ['async', 'sync'] : ['sync', 'async'];
          for (const mode of order) {
            if (mode === 'sync' && (!SYNC || id === 'redis-2')) continue; // redis-2's API node is redis-1's
            await sleep(1_000);
            const row =
              mode === 'async'
                ? await runAsync(topology, receiver, `${id}-r${round}`, JOBS, pageUrl)
                : await runSync(topology, CONCURRENCY, JOBS, pageUrl);
            rows.push({ ...row, round });
            console.log(
              `${id} ${mode} round ${round}: ${row.ok}/${row.captures} ok in ${row.wallS} s = ${row.perSecond}/s, p50 ${row.latency.p50} ms, p95 ${row.latency.p95} ms (load ${row.loadAvg})`,
            );
          }
        }
        if (MIXED && (id === 'embedded' || id === 'redis-1')) {
          await sleep(1_000);
          const idle = await runSync(topology, 1, MIXED_CAPTURES, pageUrl, 'sync-c1-idle');
          rows.push({ ...idle, round: 1 });
          await sleep(1_000);
          // The backlog is queued first; the sync captures start once jobs are running.
          const backlog = runAsync(topology, receiver, `${id}-mixed`, JOBS, pageUrl);
          await sleep(1_500);
          const during = await runSync(topology, 1, MIXED_CAPTURES, pageUrl, 'sync-c1-during-jobs');
          await backlog;
          rows.push({ ...during, round: 1 });
          console.log(`${id} sync c=1: p50 ${idle.latency.p50} ms idle, ${during.latency.p50} ms while ${JOBS} jobs drain`);
        }
      } catch (error) {
        // One layout failing (a process that would not start, webhooks that never came) does not lose the others' rows.
        const message = error instanceof Error ? error.message : String(error);
        problems.push(`${id}: ${message.split('\n')[0]}`);
        console.error(`${id} failed: ${message}`);
      } finally {
        await topology.stop().catch((error: unknown) => problems.push(`${id} clean-up: ${String(error)}`));
      }
    }
  } finally {
    await receiver.close();
    await fixtures?.stop();
  }
  finishMachine(machine);
  const durationS = round((performance.now() - started) / 1000);
  const header =
    `Run of ${date.slice(0, 16).replace('T', ' ')} UTC, ${durationS} s: ${JOBS} jobs per row, png 1280×800 of bench/fixtures/simple.html (${PAGE === 'html' ? 'sent as html=' : 'from the fixture server'}), ` +
    `SHUTTER_CONCURRENCY=${CONCURRENCY} on every process. ${machine.cpu}, ${machine.cores} cores, ${machine.chromium}, Node ${machine.node}; load ${machine.loadStart} at start, ${machine.loadEnd} at end.` +
    (skipped.length ? `\nSkipped: ${skipped.join('; ')}.` : '') +
    (problems.length ? `\nFailed: ${problems.join('; ')}.` : '');
  const text = markdown(rows, header);
  console.log(`\n${text}\n`);
  const dir = join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const report = {
    date,
    durationS,
    options: { jobs: JOBS, concurrency: CONCURRENCY, rounds: ROUNDS, topologies: TOPOLOGIES, page: PAGE, sync: SYNC, mixed: MIXED },
    machine,
    skipped,
    problems,
    rows,
  };
  const path = join(dir, `jobs-throughput-${date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(dir, 'jobs-throughput-latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`JSON: ${path}`);
  return problems.length > 0 || rows.some((r) => r.failed > 0) ? 1 : 0;
}

process.on('exit', killEverything);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${signal}: stopping every process`);
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
