import { join } from 'node:path';
import type { Logger } from 'pino';
import { AdblockEngineStore } from './capture/blocking/adblock-engine.js';
import { findChromium } from './capture/chromium-path.js';
import { ChromiumEngine } from './capture/chromium-engine.js';
import type { Config } from './config/schema.js';
import { CountryProxies } from './egress/country-proxies.js';
import { EgressProxy } from './egress/egress-proxy.js';
import { createCachingResolver, type ResolverStats } from './egress/caching-resolver.js';
import type { Resolver } from './egress/resolver.js';
import { createTargetCheck } from './egress/target-check.js';

/** Accounts, keys, usage and limits on the configured database (SQLite or Postgres) and Redis. */
export { openAccountServices } from './accounts/open.js';

/** What tests may swap in an engine built from config. */
export interface EngineOverrides {
  /** Name resolution for the target check and the egress proxy, e.g. staticResolver({ 'ads.example': '127.0.0.1' }). */
  resolve?: Resolver;
  /** A shared filter engine, so test files need not each load one. */
  adblock?: AdblockEngineStore;
}

/**
 * The block_ads filter engine, cached under the data dir. Nothing is read until the first
 * block_ads capture; `serve` loads it before listening (parsing blocks the event loop ~1 s once).
 */
export function createAdblockStore(config: Config, logger: Logger): AdblockEngineStore {
  return new AdblockEngineStore({
    lists: config.SHUTTER_ADBLOCK_LISTS,
    cacheDir: join(config.SHUTTER_DATA_DIR, 'adblock'),
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
    logger,
  });
}
