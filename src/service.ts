import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { openAccountServices } from './accounts/open.js';
import { createAccountServices, type AccountServices } from './accounts/services.js';
import { AdblockEngineStore } from './capture/blocking/adblock-engine.js';
import { findChromium } from './capture/chromium-path.js';
import { ChromiumEngine } from './capture/chromium-engine.js';
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
import { createStore } from './storage/create-store.js';
import { loadSigningSecret } from './storage/url-signer.js';
import type { FileStore } from './storage/file-store.js';
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
  version?: string;
}

/** One Shutter: engine, accounts, storage and the HTTP app over them, wired once. */
export interface Service {
  readonly config: Config;
  readonly logger: Logger;
  readonly engine: CaptureEngine;
  readonly accounts: AccountServices;
  readonly store: FileStore | undefined;
  readonly app: FastifyInstance;
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
  const engine = parts.engine ?? createEngine(config, logger, { resolve: parts.resolve, adblock });
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
    const app = await createApp({
      signingSecret,
      coalescer,
      ...(cache ? { cache } : {}),
      engine,
      accounts,
      logger,
      version: parts.version ?? VERSION,
      countries: [...config.SHUTTER_PROXIES.keys()].sort(),
      maxPixels: config.SHUTTER_MAX_PIXELS,
      trustProxy: config.SHUTTER_TRUST_PROXY,
      ...(store ? { store } : {}),
      ...(config.SHUTTER_PUBLIC_URL ? { publicUrl: config.SHUTTER_PUBLIC_URL } : {}),
    });
    let closed: Promise<void> | undefined;
    return {
      config,
      logger,
      engine,
      accounts,
      store,
      app,
      async start() {
        // Parsing the lists blocks the event loop ~1 s once: start it now, not on the first block_ads capture.
        if (parts.adblock === undefined) adblock?.start();
        await engine.start?.();
      },
      close() {
        closed ??= (async () => {
          await app.close();
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
  const resolve: Resolver & { stats?: () => ResolverStats } =
    overrides.resolve ?? createCachingResolver({ timeoutMs: config.SHUTTER_DNS_TIMEOUT_MS, servers: config.SHUTTER_DNS_SERVERS });
  return new ChromiumEngine({
    executablePath: findChromium(config.SHUTTER_CHROMIUM_PATH),
    concurrency: config.SHUTTER_CONCURRENCY,
    queueSize: config.SHUTTER_QUEUE_SIZE,
    maxCapturesPerBrowser: config.SHUTTER_BROWSER_MAX_CAPTURES,
    limits: { maxFullPageHeight: config.SHUTTER_MAX_FULL_PAGE_HEIGHT, maxPixels: config.SHUTTER_MAX_PIXELS },
    checkTarget: createTargetCheck(allowed, resolve),
    egress: new EgressProxy({ allowed, resolve, logger, countries: new CountryProxies(config.SHUTTER_PROXIES) }),
    jsHeapMb: config.SHUTTER_PAGE_MEMORY_MB,
    ...(resolve.stats ? { resolverStats: resolve.stats } : {}),
    adblock: overrides.adblock ?? createAdblockStore(config, logger),
    trackers: overrides.trackers ?? createTrackerStore(config, logger),
    logger,
  });
}
