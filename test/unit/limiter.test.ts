import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/capture/limiter.js';
import { AppError } from '../../src/errors/app-error.js';

describe('Limiter', () => {
  it('admits up to the concurrency at once and queues the rest in order', async () => {
    const limiter = new Limiter(2, 5);
    const r1 = await limiter.acquire();
    const r2 = await limiter.acquire();
    expect(limiter.busy).toBe(2);
    const order: number[] = [];
    const w3 = limiter.acquire().then((r) => (order.push(3), r));
    const w4 = limiter.acquire().then((r) => (order.push(4), r));
    expect(limiter.queued).toBe(2);
    r1();
    const r3 = await w3;
    expect(order).toEqual([3]);
    r2();
    const r4 = await w4;
    expect(order).toEqual([3, 4]);
    expect(limiter.busy).toBe(2);
    r3();
    r4();
    expect(limiter.busy).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('refuses at once with 503 overloaded and Retry-After when the queue is full', async () => {
    const limiter = new Limiter(1, 1);
    await limiter.acquire();
    void limiter.acquire();
    const error = await limiter.acquire().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('overloaded');
    expect((error as AppError).status).toBe(503);
    expect((error as AppError).extra.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('a release called twice frees one slot only', async () => {
    const limiter = new Limiter(1, 0);
    const release = await limiter.acquire();
    release();
    release();
    await limiter.acquire();
    await expect(limiter.acquire()).rejects.toMatchObject({ code: 'overloaded' });
  });

  it('a waiter whose signal aborts leaves the queue with the abort reason', async () => {
    const limiter = new Limiter(1, 3);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    const reason = new AppError('capture_timeout', 'too slow');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(limiter.queued).toBe(0);
    release();
    expect(limiter.busy).toBe(0);
  });
});
