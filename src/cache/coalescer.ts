import type { Redis } from 'ioredis';
import { AppError } from '../errors/app-error.js';
import type { ErrorCode } from '../errors/error-codes.js';

/** How often a waiter on another node looks for the leader's result. */
const POLL_MS = 100;
/** A failure is shared with the waiters for this long, then forgotten (never cached). */
const FAILURE_MS = 5_000;

/** Cross-node coordination through Redis (SHUTTER_REDIS_URL); without it, coalescing is per process. */
export interface CoalescerRedis {
  client: Redis;
  prefix: string;
}

/**
 * Identical requests arriving while one renders wait for it (DESIGN.md §4.2): one render, one
 * charge, everyone answered, and a failure answered to everyone as the same error. In a process
 * the waiters share the leader's promise; across nodes the leader holds a Redis lock and the
 * others poll for its result (the cache index) until it appears or the lock is gone.
 */
export class Coalescer {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(private readonly redis?: CoalescerRedis) {}

  /**
   * Runs `lead` once per key at a time. `led` is false for a caller that got another's result.
   * `find` looks for a result a leader elsewhere produced; `maxWaitMs` bounds the wait for it.
   */
  async run<T>(key: string, lead: () => Promise<T>, find: () => Promise<T | null>, maxWaitMs: number): Promise<{ value: T; led: boolean }> {
    const local = this.inFlight.get(key) as Promise<T> | undefined;
    if (local) return { value: await local, led: false };
    const work = this.redis ? this.acrossNodes(key, lead, find, maxWaitMs) : lead().then((value) => ({ value, led: true }));
    const shared = work.then((r) => r.value);
    this.inFlight.set(key, shared);
    shared.catch(() => undefined).finally(() => this.inFlight.delete(key));
    return work;
  }

  private async acrossNodes<T>(
    key: string,
    lead: () => Promise<T>,
    find: () => Promise<T | null>,
    maxWaitMs: number,
  ): Promise<{ value: T; led: boolean }> {
    const { client, prefix } = this.redis!;
    const lock = `${prefix}coalesce:lock:${key}`;
    const failure = `${prefix}coalesce:fail:${key}`;
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      if ((await client.set(lock, '1', 'PX', maxWaitMs, 'NX')) === 'OK') {
        try {
          // A leader stores its result before it lets go of the lock: a waiter that saw no result,
          // then no lock, takes the lock after that result exists. Look once more, or it renders twice.
          const found = await find();
          if (found !== null) return { value: found, led: false };
          await client.del(failure).catch(() => undefined);
          const value = await lead();
          return { value, led: true };
        } catch (error) {
          if (error instanceof AppError) {
            await client
              .set(failure, JSON.stringify({ code: error.code, message: error.message }), 'PX', FAILURE_MS)
              .catch(() => undefined);
          }
          throw error;
        } finally {
          await client.del(lock).catch(() => undefined);
        }
      }
      // Another node renders: wait for its result, its failure, or its lock to go.
      while (Date.now() < deadline) {
        const found = await find();
        if (found !== null) return { value: found, led: false };
        const failed = await client.get(failure);
        if (failed) {
          const { code, message } = JSON.parse(failed) as { code: ErrorCode; message: string };
          throw new AppError(code, message);
        }
        if (!(await client.exists(lock))) break;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      if (Date.now() >= deadline) throw new AppError('capture_timeout', 'an identical capture on another node did not finish in time');
    }
  }
}
