import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { openAccountServices } from './accounts/open.js';
import { createAccountServices, type AccountServices } from './accounts/services.js';
import { AdblockEngineStore } from './capture/blocking/adblock-engine.js';
import { findChromium } from './capture/chromium-path.js';
import { ChromiumEngine } from './capture/chromium-engine.js';
import { findFfmpeg } from './encoders/ffmpeg-path.js';
import type { CaptureEngine } from './capture/engine.js';
import type { Config } from './config/schema.js';
import { openDatabase } from './db/database.js';
import { CountryProxies } from './egress/country-proxies.js';
import { EgressProxy } from './egress/egress-proxy.js';
import { createCachingResolver, type ResolverStats } from './egress/caching-resolver.js';
import type { Resolver } from './egress/resolver.js';
import { createTargetCheck } from './egress/target-check.js';
import { createApp } from './http/app.js';
import { CaptureCache } from './cache/capture-cache.js';
import { Coalescer } from './cache/coalescer.js';
import { createLogger } from './observability/logger.js';
import { createAddressGuard } from './egress/address-guard.js';
import { DbTaskQueue } from './jobs/db-task-queue.js';
import { JobIntake } from './jobs/job-intake.js';
import { JobRunner } from './jobs/job-runner.js';
import { JobStore } from './jobs/job-store.js';
import type { TaskQueue } from './jobs/task-queue.js';
import { Metrics } from './observability/metrics.js';
import { instrumentEngine } from './capture/instrumented-engine.js';
import { createStore } from './storage/create-store.js';
import { loadSigningSecret } from './storage/url-signer.js';
import type { FileStore } from './storage/file-store.js';
import { TakeCapture } from './take/take-capture.js';
import { VERSION } from './version.js';

/** What an engine built from config may have swapped in (tests). */
export interface EngineOverrides {
  /** Name resolution for the target check and the egress proxy, e.g. staticResolver({ 'ads.example': '127.0.0.1' }). */
  resolve?: Resolver | undefined;
  /** A shared filter engine, so test files need not each load one. */
  adblock?: AdblockEngineStore | undefined;
  /** The same for block_trackers. */
  trackers?: AdblockEngineStore | undefined;
}

/** The parts of a service; each defaults to the one the config describes. */
export interface ServiceParts extends EngineOverrides {
  logger?: Logger;
  /** The capture engine (default: Chromium from config; tests may pass a stub). */
  engine?: CaptureEngine;
  /**
   * Accounts, keys and limits: `'config'` (default) opens SHUTTER_DATABASE_URL or the SQLite file
   * and Redis; `'memory'` an empty in-memory SQLite database (CLI take, tests, the benchmark).
   */
  accounts?: AccountServices | 'config' | 'memory';
  /** Where upload=1 stores files (default: from config; `null`: none, upload answers 501). */
  store?: FileStore | null;
  /** all: the HTTP API and jobs; worker: jobs, and only health and metrics over HTTP (default SHUTTER_ROLE). */
  role?: 'all' | 'worker';
  /** Whether this process runs queued jobs once started (default: SHUTTER_JOB_CONCURRENCY > 0). */
  runJobs?: boolean;
  /** Launch the browser at once, while the database opens and the app is built (`serve`), not at start(). */
  launchEarly?: boolean;
  version?: string;
}

/** One Shutter: engine, accounts, storage and the HTTP app over them, wired once. */
export interface Service {
  readonly config: Config;
  readonly logger: Logger;
  readonly engine: CaptureEngine;
  /** The take use case every caller of a capture goes through (HTTP, CLI, jobs). */
  readonly take: TakeCapture;
  readonly accounts: AccountServices;
  readonly store: FileStore | undefined;
  readonly app: FastifyInstance;
  /** This service's GET /metrics registry (the jobs code feeds its job metrics here). */
  readonly metrics: Metrics;
  /** Async jobs: their records and the queue they travel on. */
  readonly jobs: { store: JobStore; queue: TaskQueue };
  /** Starts the browser and the filter lists' background load. */
  start(): Promise<void>;
  /** Closes the app, the engine, the store and the databases, in that order; safe to call twice. */
  close(): Promise<void>;
}

/**
 * The service `serve`, the CLI's `take`, the benchmark and the tests all run: nothing is started
 * (no browser, no listening socket) until `start()` / `app.listen()`.
 */
export async function createService(config: Config, parts: ServiceParts = {}): Promise<Service> {
  const logger = parts.logger ?? createLogger(config.SHUTTER_LOG_LEVEL);
  const adblock = parts.engine ? undefined : (parts.adblock ?? createAdblockStore(config, logger));
  const metrics = new Metrics();
  // Every capture of the service (HTTP, CLI, jobs) is counted: the engine it holds is instrumented.
  // One resolver for the engine's egress guard and webhook deliveries (the same rules, the same cache).
  const resolve = parts.resolve ?? createConfiguredResolver(config);
  const engine = instrumentEngine(parts.engine ?? createEngine(config, logger, { resolve, adblock }), metrics);
  // Chromium starts up in its own process, so the rest of the start-up need not wait for it; start() reports a failure.
  const launching = parts.launchEarly ? engine.start?.() : undefined;
  launching?.catch(() => undefined);
  const role = parts.role ?? config.SHUTTER_ROLE;
  const opened: Array<{ close(): Promise<void> }> = [];
  try {
    const accounts = await openAccounts(config, parts.accounts ?? 'config');
    if (typeof parts.accounts !== 'object') opened.push(accounts);
    const store = parts.store === undefined ? await createStore(config, logger) : (parts.store ?? undefined);
    if (store && parts.store === undefined) opened.push(store);
    const signingSecret = await loadSigningSecret(config.SHUTTER_SIGNING_SECRET, join(config.SHUTTER_DATA_DIR, 'signing-secret'));
    const cache = store ? new CaptureCache(accounts.db, store) : undefined;
    const coalescer = new Coalescer(accounts.redis ? { client: accounts.redis.client, prefix: accounts.redis.prefix } : undefined);
    if (cache) opened.push({ close: async () => cache.close() });
    const take = new TakeCapture({
      engine,
      store,
      cache,
      coalescer,
      meter: accounts.meter,
      usage: accounts.usage,
      requests: accounts.requests,
      keys: accounts.keys,
    });
    const jobs = await openJobs(config, logger, accounts);
    // A backend that is away fails one sweep or rescue: logged, and the next one tries again.
    const sweep = setInterval(
      () =>
        void jobs.store.sweep(new Date()).catch((error: unknown) => logger.warn({ err: error }, 'job sweep failed; retrying in 10 min')),
      10 * 60_000,
    );
    sweep.unref();
    opened.push({ close: async () => clearInterval(sweep) });
    opened.push({ close: () => jobs.queue.close(config.SHUTTER_SHUTDOWN_TIMEOUT * 1000) });
    metrics.onCollectQueued(() => jobs.store.backlog());
    // How capture options are parsed here, for the routes and the job runner alike.
    const parse = { countries: [...config.SHUTTER_PROXIES.keys()].sort(), maxPixels: config.SHUTTER_MAX_PIXELS };
    const runner = new JobRunner({
      jobs: jobs.store,
      quota: accounts.limits.quota,
      queue: jobs.queue,
      take,
      parse,
      guard: createAddressGuard({ allowed: config.SHUTTER_ALLOWED_PRIVATE_NETWORKS, resolve }),
      signingSecret,
      webhookRetryMs: config.SHUTTER_WEBHOOK_RETRY_MS,
      version: parts.version ?? VERSION,
      logger,
      accountDisabled: async (accountId) => (await accounts.accounts.findById(accountId))?.disabledAt != null,
      onFinished: (outcome, job) => metrics.jobFinished(outcome, (Date.now() - job.createdAt.getTime()) / 1000),
    });
    const intake = new JobIntake({
      jobs: jobs.store,
      queue: jobs.queue,
      meter: accounts.meter,
      checkTarget: createTargetCheck(config.SHUTTER_ALLOWED_PRIVATE_NETWORKS, resolve),
    });
    const jobConcurrency = config.SHUTTER_JOB_CONCURRENCY ?? config.SHUTTER_CONCURRENCY;
    const app = await createApp({
      signingSecret,
      take,
      engine,
      accounts,
      logger,
      version: parts.version ?? VERSION,
      parse,
      trustProxy: config.SHUTTER_TRUST_PROXY,
      ...(store ? { store } : {}),
      ...(config.SHUTTER_PUBLIC_URL ? { publicUrl: config.SHUTTER_PUBLIC_URL } : {}),
      metrics,
      api: role === 'all',
      jobs: { intake, store: jobs.store },
      ...(config.SHUTTER_METRICS_TOKEN ? { metricsToken: config.SHUTTER_METRICS_TOKEN } : {}),
    });
    let closed: Promise<void> | undefined;
    return {
      config,
      logger,
      engine,
      take,
      accounts,
      store,
      app,
      metrics,
      jobs,
      async start() {
        // Parsing the lists blocks the event loop ~1 s once: start it now, not on the first block_ads capture.
        if (parts.adblock === undefined) adblock?.start();
        await (launching ?? engine.start?.());
        if ((parts.runJobs ?? jobConcurrency > 0) && jobConcurrency > 0) {
          // Webhook deliveries wait on the network, not the browser: more of them than captures.
          jobs.queue.work(runner.handlers, { capture: jobConcurrency, webhook: Math.max(4, jobConcurrency * 2) });
          const rescue = setInterval(
            () =>
              void runner
                .requeueStranded()
                .catch((error: unknown) => logger.warn({ err: error }, 'requeueing stranded jobs failed; retrying in 1 min')),
            60_000,
          );
          rescue.unref();
          opened.push({ close: async () => clearInterval(rescue) });
        }
      },
      close() {
        closed ??= (async () => {
          await app.close();
          // Jobs running here finish (or go back to the queue at the grace period) before the browser goes.
          await jobs.queue.close(config.SHUTTER_SHUTDOWN_TIMEOUT * 1000);
          await engine.close();
          for (const part of opened.reverse()) await part.close();
        })();
        return closed;
      },
    };
  } catch (error) {
    await engine.close();
    for (const part of opened.reverse()) await part.close();
    throw error;
  }
}

/** The job store and the queue: BullMQ when SHUTTER_REDIS_URL is set, else the database's own table. */
async function openJobs(config: Config, logger: Logger, accounts: AccountServices): Promise<{ store: JobStore; queue: TaskQueue }> {
  const leaseMs = config.SHUTTER_JOB_LEASE_MS;
  // BullMQ is loaded only when configured: it costs ~0.2 s of start-up on every other install.
  const queue: TaskQueue = config.SHUTTER_REDIS_URL
    ? new (await import('./jobs/bullmq-task-queue.js')).BullmqTaskQueue(config.SHUTTER_REDIS_URL, config.SHUTTER_REDIS_PREFIX, logger, {
        leaseMs,
      })
    : new DbTaskQueue(accounts.db, logger, { leaseMs });
  return { store: new JobStore(accounts.db), queue };
}

/** The egress guard's resolver as configured (cached, bounded, SHUTTER_DNS_*). */
function createConfiguredResolver(config: Config): Resolver & { stats?: () => ResolverStats } {
  return createCachingResolver({ timeoutMs: config.SHUTTER_DNS_TIMEOUT_MS, servers: config.SHUTTER_DNS_SERVERS });
}

async function openAccounts(config: Config, accounts: AccountServices | 'config' | 'memory'): Promise<AccountServices> {
  if (typeof accounts === 'object') return accounts;
  if (accounts === 'config') return openAccountServices(config);
  return createAccountServices({ db: await openDatabase({ sqliteFile: ':memory:' }), signups: config.SHUTTER_SIGNUPS });
}

/**
 * The block_ads filter engine, cached under the data dir. Nothing is read until the first
 * block_ads capture or `start()`.
 */
export function createAdblockStore(config: Config, logger: Logger): AdblockEngineStore {
  return new AdblockEngineStore({
    lists: config.SHUTTER_ADBLOCK_LISTS,
    cacheDir: join(config.SHUTTER_DATA_DIR, 'adblock'),
    refreshHours: config.SHUTTER_ADBLOCK_REFRESH_HOURS,
    logger,
  });
}

/** The block_trackers engine: the EasyPrivacy list(s) among SHUTTER_ADBLOCK_LISTS, cached beside the other. */
export function createTrackerStore(config: Config, logger: Logger): AdblockEngineStore {
  return new AdblockEngineStore({
    lists: config.SHUTTER_ADBLOCK_LISTS.filter((list) => /easyprivacy/i.test(list)),
    cacheDir: join(config.SHUTTER_DATA_DIR, 'adblock-trackers'),
    refreshHours: config.SHUTTER_ADBLOCK_REFRESH_HOURS,
    logger,
  });
}

/** A Chromium engine configured from SHUTTER_* settings (not started). */
export function createEngine(config: Config, logger: Logger, overrides: EngineOverrides = {}): ChromiumEngine {
  const allowed = config.SHUTTER_ALLOWED_PRIVATE_NETWORKS;
  const resolve: Resolver & { stats?: () => ResolverStats } = overrides.resolve ?? createConfiguredResolver(config);
  const ffmpegPath = findFfmpeg(config.SHUTTER_FFMPEG_PATH);
  // Not a start failure: every other capture works; /v1/animate answers 503 and /readyz says ffmpeg: false.
  if (config.SHUTTER_FFMPEG_PATH && !ffmpegPath) {
    logger.warn(
      { path: config.SHUTTER_FFMPEG_PATH },
      'SHUTTER_FFMPEG_PATH is not an executable file: /v1/animate answers 503 ffmpeg_unavailable',
    );
  }
  return new ChromiumEngine({
    executablePath: findChromium(config.SHUTTER_CHROMIUM_PATH),
    concurrency: config.SHUTTER_CONCURRENCY,
    queueSize: config.SHUTTER_QUEUE_SIZE,
    maxCapturesPerBrowser: config.SHUTTER_BROWSER_MAX_CAPTURES,
    limits: { maxFullPageHeight: config.SHUTTER_MAX_FULL_PAGE_HEIGHT, maxPixels: config.SHUTTER_MAX_PIXELS },
    checkTarget: createTargetCheck(allowed, resolve),
    egress: new EgressProxy({ allowed, resolve, logger, countries: new CountryProxies(config.SHUTTER_PROXIES) }),
    jsHeapMb: config.SHUTTER_PAGE_MEMORY_MB,
    ...optional('ffmpegPath', ffmpegPath),
    ...(resolve.stats ? { resolverStats: resolve.stats } : {}),
    adblock: overrides.adblock ?? createAdblockStore(config, logger),
    trackers: overrides.trackers ?? createTrackerStore(config, logger),
    logger,
  });
}

/** `{ name: value }`, or nothing when the value is undefined (exactOptionalPropertyTypes). */
function optional<K extends string, V>(name: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [name]: value } as Record<K, V>);
}
