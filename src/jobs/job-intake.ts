import { createHash } from 'node:crypto';
import type { Caller, Meter } from '../accounts/meter.js';
import { AppError } from '../errors/app-error.js';
import { backendUnavailable, isBackendUnavailable } from '../errors/backend-unavailable.js';
import type { TakeOptions } from '../options/schema.js';
import type { Reservation } from '../ratelimit/quota-store.js';
import { newJobId, type JobStore, type NewJob } from './job-store.js';
import type { TaskQueue } from './task-queue.js';

/** A queued job holds its quota unit this long at most (then it stops counting against the quota if never run). */
export const JOB_HOLD_MS = 24 * 3600_000;
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** One capture to queue: its parameters as given (validated), and what parsing made of them. */
export interface JobEntry {
  params: Record<string, unknown>;
  options: TakeOptions;
}

/** Parameters that describe the job rather than the capture: kept in columns, not passed to the worker. */
const JOB_PARAMETERS = new Set(['async', 'webhook_url', 'external_id', 'apikey']);

/** Canonical JSON (sorted keys) for the Idempotency-Key's body comparison. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The Idempotency-Key header, checked (≤ 255 printable ASCII characters), or undefined. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header[0] : header;
  if (key === undefined || !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new AppError(
      'invalid_parameter',
      `Idempotency-Key must be 1–${MAX_IDEMPOTENCY_KEY_CHARS} printable ASCII characters without spaces`,
      {
        details: [
          { parameter: 'Idempotency-Key', message: `must be 1–${MAX_IDEMPOTENCY_KEY_CHARS} printable ASCII characters without spaces` },
        ],
      },
    );
  }
  return key;
}

/**
 * Accepts async captures: checks each webhook address against the egress rules, holds a quota unit
 * per job, records the jobs (and the Idempotency-Key's answer) in one transaction under the plan's
 * cap on queued jobs, then hands them to the queue. Whatever refuses the request gives the units back.
 */
export class JobIntake {
  constructor(
    private readonly deps: {
      jobs: JobStore;
      queue: TaskQueue;
      meter: Meter;
      /** The egress guard's target check: throws target_forbidden (or navigation_failed) for a webhook address it refuses. */
      checkTarget: (url: string) => Promise<void>;
      clock?: () => Date;
    },
  ) {}

  /**
   * Queues the entries for `caller` and returns the 202 body `answer` builds from the new job ids,
   * or, for an Idempotency-Key seen before with the same body, the body it got then.
   */
  async accept<A>(input: {
    caller: Caller;
    requestId: string;
    baseUrl: string;
    entries: readonly JobEntry[];
    /** What the key's body is compared by (the whole request). */
    body: unknown;
    idempotencyKey: string | undefined;
    answer: (ids: string[]) => A;
  }): Promise<A> {
    const { caller, entries } = input;
    const now = (this.deps.clock ?? (() => new Date()))();
    const bodyHash = createHash('sha256').update(canonical(input.body)).digest('hex');
    if (input.idempotencyKey !== undefined) {
      const seen = await this.deps.jobs.idempotent(caller.account.id, input.idempotencyKey, now);
      if (seen) return this.replay<A>(seen.bodyHash, bodyHash, seen.answer);
    }
    await this.checkWebhooks(entries);
    const ids = entries.map(() => newJobId());
    const answer = input.answer(ids);
    const held = await this.deps.meter.hold(caller, entries.length, JOB_HOLD_MS);
    let queued = false;
    try {
      const jobs = entries.map((entry, i) => this.newJob(ids[i]!, entry, input, held[i]));
      const outcome = await this.deps.jobs.create(jobs, {
        accountId: caller.account.id,
        maxQueued: caller.plan.maxQueuedJobs,
        now,
        ...(input.idempotencyKey !== undefined ? { idempotency: { key: input.idempotencyKey, bodyHash, answer } } : {}),
      });
      if (!outcome.created && outcome.reason === 'replay')
        return this.replay<A>(outcome.existing.bodyHash, bodyHash, outcome.existing.answer);
      if (!outcome.created) {
        throw new AppError(
          'queue_full',
          `the ${caller.plan.name} plan allows ${caller.plan.maxQueuedJobs} jobs queued or running; ${outcome.queued} are, and this request adds ${entries.length}`,
          { retryAfterSeconds: 10 },
        );
      }
      try {
        await this.deps.queue.add(
          jobs.map((job, i) => ({ id: `capture.${job.id}`, kind: 'capture', jobId: job.id, lane: outcome.lanes[i]! })),
        );
      } catch (error) {
        for (const job of jobs)
          await this.deps.jobs.fail(job.id, null, { code: 'overloaded', message: 'the job queue was unreachable' }, new Date());
        // A retry with the same Idempotency-Key should queue afresh, not answer these failed jobs.
        if (input.idempotencyKey !== undefined) await this.deps.jobs.forgetIdempotency(caller.account.id, input.idempotencyKey);
        if (isBackendUnavailable(error)) throw backendUnavailable(error);
        throw Object.assign(new AppError('overloaded', 'the job queue is unreachable; retry shortly', { retryAfterSeconds: 5 }), {
          cause: error,
        });
      }
      queued = true;
      return answer;
    } finally {
      if (!queued) await this.deps.meter.release(held);
    }
  }

  private replay<A>(storedHash: string, bodyHash: string, answer: unknown): A {
    if (storedHash !== bodyHash) {
      throw new AppError('idempotency_conflict', 'this Idempotency-Key was used in the last 24 hours with a different body; use a new key');
    }
    return answer as A;
  }

  private async checkWebhooks(entries: readonly JobEntry[]): Promise<void> {
    const urls = new Set(entries.map((e) => e.options.webhook_url).filter((url): url is string => url !== undefined));
    for (const url of urls) {
      try {
        await this.deps.checkTarget(url);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const why = error.code === 'target_forbidden' ? 'resolves to an address that is not allowed' : 'could not be resolved';
        throw new AppError(error.code, `webhook_url ${why}: ${error.message}`, {
          details: [{ parameter: 'webhook_url', message: why, value: url }],
        });
      }
    }
  }

  private newJob(
    id: string,
    entry: JobEntry,
    input: { caller: Caller; requestId: string; baseUrl: string },
    held: Reservation | undefined,
  ): NewJob {
    const { options } = entry;
    const params = Object.fromEntries(Object.entries(entry.params).filter(([name]) => !JOB_PARAMETERS.has(name)));
    return {
      id,
      accountId: input.caller.account.id,
      keyId: input.caller.key.id,
      requestId: input.requestId,
      params,
      format: options.format,
      url: options.url ?? null,
      externalId: options.external_id ?? null,
      webhookUrl: options.webhook_url ?? null,
      baseUrl: input.baseUrl,
      held: held ? { id: held.id, period: held.period.id } : null,
    };
  }
}
