import { AppError } from '../errors/app-error.js';

/**
 * A counting semaphore with a bounded wait queue: at most `concurrency` holders, at most
 * `queueSize` waiters; one more is refused at once with 503 overloaded.
 */
export class Limiter {
  private active = 0;
  private readonly waiters: Array<{ grant: () => void; fail: (e: Error) => void }> = [];

  constructor(
    readonly concurrency: number,
    readonly queueSize: number,
  ) {}

  get busy(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiters.length;
  }

  /** Resolves with a release function once a slot is free; rejects if the signal aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiters.length >= this.queueSize) {
      return Promise.reject(
        new AppError('overloaded', 'all capture slots are busy and the queue is full; retry shortly', {
          retryAfterSeconds: 2,
        }),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser());
        },
        fail: reject,
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        // The caller says why it gave up (e.g. its capture timeout) through the abort reason.
        reject(signal?.reason instanceof Error ? signal.reason : new AppError('overloaded', 'gave up waiting for a free capture slot'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next.grant();
      else this.active--;
    };
  }
}
