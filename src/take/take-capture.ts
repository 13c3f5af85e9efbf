import type { Caller, Meter } from '../accounts/meter.js';
import type { KeyStore } from '../accounts/key-store.js';
import { cacheIdentity } from '../cache/cache-identity.js';
import type { CachedCapture, CaptureCache } from '../cache/capture-cache.js';
import type { Coalescer } from '../cache/coalescer.js';
import { newDebugTrace, type DebugTrace } from '../capture/debug-trace.js';
import type { CaptureEngine, CaptureResult } from '../capture/engine.js';
import type { Timings } from '../capture/timings.js';
import { AppError } from '../errors/app-error.js';
import { knownAppError } from '../errors/backend-unavailable.js';
import type { TakeOptions } from '../options/schema.js';
import type { RequestLog } from '../requests/request-log.js';
import type { FileStore, StoredFile } from '../storage/file-store.js';
import type { UsageStore } from '../usage/usage-store.js';
import { recordRequest, type RecordedRequest, type WarnLog } from './request-record.js';
import { storeCapture, storeExtras } from './store-capture.js';

/** How a cache=1 answer came about. */
export interface CacheAnswer {
  state: 'HIT' | 'MISS';
  entry: CachedCapture;
}

/** What a take produced: the file, where it was stored (upload=1) and whether the cache answered. */
export interface TakeOutcome {
  result: CaptureResult;
  stored?: StoredFile | undefined;
  /** extra_formats stored with upload=1, by format. */
  extraStored?: Record<string, StoredFile> | undefined;
  cached?: CacheAnswer;
}

/** Who pays for a take and how the answer shows it. Absent: nobody is charged (CLI, a job that holds its unit). */
export interface TakeBilling {
  caller: Caller;
  /** Logged under this id (the request log, debug bundles). */
  requestId: string;
  /** Gets the quota headers as they stand after the charge. */
  onCharged: (headers: Record<string, string>) => void;
  /** A stored file's link as the caller will use it (debug bundles). */
  linkOf: (stored: StoredFile) => string;
  /** Where warnings go (the request's logger). */
  log: WarnLog;
}

/** One capture asked for. */
export interface TakeCall {
  options: TakeOptions;
  timings: Timings;
  billing?: TakeBilling;
}

/** The narrow parts the take use case works with. */
export interface TakeDeps {
  engine: CaptureEngine;
  /** Where upload=1, the cache and debug bundles keep files; absent, those answer 501. */
  store: FileStore | undefined;
  cache: CaptureCache | undefined;
  coalescer: Coalescer | undefined;
  meter: Meter;
  usage: Pick<UsageStore, 'countCacheHit'>;
  requests: RequestLog;
  keys: Pick<KeyStore, 'touch'>;
}

/** A key's last_used_at is rewritten at most this often (it tells people whether a key is in use, not when exactly). */
export const TOUCH_EVERY_MS = 60_000;

/**
 * The take use case, the same for the HTTP API, `shutter take`, the job runner and MCP: the cache and
 * coalescing (cache=1), the charge (only a capture that succeeds, and its upload, is charged), the
 * engine, the store (upload=1), and the request log with its debug bundle.
 */
export class TakeCapture {
  constructor(private readonly deps: TakeDeps) {}

  async take({ options, timings, billing }: TakeCall): Promise<TakeOutcome> {
    const startedAt = new Date();
    const trace = options.debug && billing ? newDebugTrace() : undefined;
    const record = billing && { ...billing, options, startedAt, trace };
    let outcome: TakeOutcome;
    try {
      outcome = options.cache ? await this.cached(options, timings, trace, billing) : await this.render(options, timings, trace, billing);
      // cache=1 with upload=1: the cached (or just cached) outputs are stored like a fresh capture's.
      if (options.upload && !outcome.stored) {
        outcome.stored = await storeCapture(this.deps.store, options, outcome.result);
        outcome.extraStored = await storeExtras(this.deps.store, options, outcome.result);
      }
    } catch (error) {
      if (record) await recordRequest(this.deps, record, { status: knownAppError(error)?.status ?? 500, error });
      throw error;
    }
    if (record) {
      await recordRequest(this.deps, record, { status: 200 });
      this.touchKey(record);
    }
    return outcome;
  }

  /** A capture, charged to the caller only when it (and its upload) succeeds. */
  private render(
    options: TakeOptions,
    timings: Timings,
    trace: DebugTrace | undefined,
    billing: TakeBilling | undefined,
  ): Promise<TakeOutcome> {
    const run = async (): Promise<TakeOutcome> => {
      const captured = await this.deps.engine.capture(options, timings, trace);
      if (!options.upload) return { result: captured };
      return {
        result: captured,
        stored: await storeCapture(this.deps.store, options, captured),
        extraStored: await storeExtras(this.deps.store, options, captured),
      };
    };
    return billing ? this.deps.meter.charge(billing.caller, run, billing.onCharged) : run();
  }

  /**
   * cache=1: the account's stored file for the same output (HIT, not charged), or a render that is
   * stored for cache_ttl (MISS, charged) and shared with identical requests arriving meanwhile, on
   * this node and, with Redis, on others (they answer HIT: one render, one charge).
   */
  private async cached(
    options: TakeOptions,
    timings: Timings,
    trace: DebugTrace | undefined,
    billing: TakeBilling | undefined,
  ): Promise<TakeOutcome> {
    const { cache, coalescer } = this.deps;
    if (!cache || !coalescer) throw new AppError('not_implemented', 'cache=1 needs a file store, and this server has none');
    if (!billing) throw new AppError('not_implemented', 'cache=1 needs an account: the cache is kept per account');
    const { caller } = billing;
    const key = cacheIdentity(caller.account.id, options);
    const countHit = () => this.deps.usage.countCacheHit({ keyId: caller.key.id, accountId: caller.account.id, at: new Date() });
    const hit = await cache.get(key);
    if (hit) {
      await countHit();
      return { result: hit.result, cached: { state: 'HIT', entry: hit } };
    }
    const { value, led } = await coalescer.run(
      key,
      async () => {
        const { result } = await this.render({ ...options, upload: false }, timings, trace, billing);
        // A cache that cannot store is no reason to fail a capture that was made and charged.
        const entry = await cache.put(key, caller.account.id, result, options.cache_ttl).catch((error: unknown) => {
          billing.log.warn({ err: error }, 'could not store the capture in the cache');
          return undefined;
        });
        return { result, entry };
      },
      async () => {
        const found = await cache.get(key);
        return found ? { result: found.result, entry: found } : null;
      },
      options.timeout * 1000 + 5_000,
    );
    if (!led) await countHit();
    return { result: value.result, ...(value.entry ? { cached: { state: led ? 'MISS' : 'HIT', entry: value.entry } } : {}) };
  }

  /** Records that the key was used, unless the time read with it (this request) is recent enough. */
  private touchKey({ caller }: RecordedRequest, now = Date.now()): void {
    const last = caller.key.lastUsedAt === null ? Number.NaN : Date.parse(caller.key.lastUsedAt);
    if (!(now - last < TOUCH_EVERY_MS)) void this.deps.keys.touch(caller.key.id);
  }
}
