/**
 * Settles as `work` does, or rejects with the signal's reason as soon as it aborts.
 *
 * Unlike `Promise.race([work, neverSettling])`, nothing stays attached afterwards: every race
 * against a long-lived promise adds a reaction to it that holds the race's result until that
 * promise settles — with a browser's "lost" promise, every capture's body until the browser is
 * replaced (~1 MB a capture of heavy pages; see docs/performance.md).
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/** Settles as `work` does, or rejects with `onTimeout()` after `ms` (the timer is cleared either way). */
export async function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Error = () => new Error(`timed out after ${ms} ms`),
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(onTimeout()), ms);
  try {
    return await raceAbort(work, controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
