import type { Logger } from 'pino';
import { keySigningSecret } from '../accounts/signing-secret.js';
import { Timings } from '../capture/timings.js';
import type { GuardVerdict } from '../egress/address-guard.js';
import { knownAppError } from '../errors/backend-unavailable.js';
import { parseJobParams } from '../options/job-params.js';
import type { ParseContext } from '../options/parse-take-options.js';
import type { QuotaStore, Reservation } from '../ratelimit/quota-store.js';
import type { TakeCapture } from '../take/take-capture.js';
import { periodOf } from '../usage/period.js';
import { jobJson } from './job-json.js';
import type { Job, JobError, JobResult, JobStore } from './job-store.js';
import type { TaskQueue } from './task-queue.js';
import { deliverWebhook } from './webhook-delivery.js';
import { signWebhook } from './webhook-signature.js';

/** A job whose run was cut this often (its worker died or stopped) fails instead of running again. */
export const MAX_RUNS = 5;
/** Webhook tries in all; the pause doubles after each failed one (1, 2, 4 … 32 × the base). */
export const WEBHOOK_ATTEMPTS = 7;

/** Errors that say "this worker cannot capture now" rather than "this page cannot be captured". */
const TRANSIENT = new Set(['browser_unavailable', 'overloaded', 'backend_unavailable']);

export interface JobRunnerDeps {
  jobs: JobStore;
  quota: QuotaStore;
  queue: TaskQueue;
  /** The take use case; a job's unit was held at intake, so the take itself charges nobody. */
  take: TakeCapture;
  parse: ParseContext;
  /** The egress guard's host check (webhook deliveries). */
  guard: (host: string) => Promise<GuardVerdict>;
  /** SHUTTER_SIGNING_SECRET: each key's webhook secret derives from it. */
  signingSecret: Buffer;
  /** First pause before a webhook is retried (SHUTTER_WEBHOOK_RETRY_MS). */
  webhookRetryMs: number;
  version: string;
  logger: Logger;
  /** Whether the job's account was disabled by the operator since it was queued (its jobs then fail, uncharged). */
  accountDisabled?: (accountId: string) => Promise<boolean>;
  /** Told of every job that ends (metrics). */
  onFinished?: (outcome: 'succeeded' | 'failed', job: Job) => void;
}

/** The unit a job holds, as the quota store knows it. */
function reservationOf(job: Job): Reservation | undefined {
  if (!job.held) return undefined;
  return { id: job.held.id, accountId: job.accountId, keyId: job.keyId, period: periodOf(new Date(`${job.held.period}-01T00:00:00Z`)) };
}

/**
 * What a worker does with a task: run a job's capture (store the file, charge the account exactly
 * once, in the same transaction as the job's success) and deliver its signed webhook with retries.
 * Both are safe to run twice: a task handed to a second worker finds the job's state and acts on it.
 */
export class JobRunner {
  constructor(private readonly deps: JobRunnerDeps) {}

  readonly handlers = {
    capture: (task: { jobId: string }) => this.capture(task.jobId),
    webhook: (task: { id: string; jobId: string }) => this.webhook(task.id, task.jobId),
  };

  async capture(jobId: string): Promise<void> {
    const { jobs, logger } = this.deps;
    const begun = await jobs.start(jobId, new Date());
    if (!begun) {
      // Ended already: this is a task handed out again after its worker stopped. Its webhook may still be owed.
      const job = await jobs.get(jobId);
      if (job && job.webhookUrl && job.webhook.attempts === 0 && !job.webhook.deliveredAt) await this.queueWebhook(job, 1, 0);
      return;
    }
    const { job, token } = begun;
    const held = reservationOf(job);
    if (job.runs > MAX_RUNS) {
      await this.end(job, token, held, {
        code: 'internal_error',
        message: `the job was interrupted ${MAX_RUNS} times; it was not charged`,
      });
      return;
    }
    if (await this.deps.accountDisabled?.(job.accountId)) {
      await this.end(job, token, held, {
        code: 'account_disabled',
        message: 'the account was disabled before the job ran; it was not charged',
      });
      return;
    }
    try {
      // async: the stored params leave it out (it is the job itself); set, the encoders may spend
      // time for fewer bytes, since nobody waits on this capture's answer.
      const options = { ...parseJobParams({ ...job.params, upload: true }, this.deps.parse), async: true };
      const { result: captured, stored, extraStored } = await this.deps.take.take({ options, timings: new Timings() });
      if (!stored) throw new Error('a job capture was not stored');
      const result: JobResult = {
        url: stored.url,
        expires_at: stored.expiresAt?.toISOString() ?? null,
        format: captured.format,
        content_type: captured.contentType,
        size: captured.body.length,
        ...(extraStored
          ? {
              extra: Object.fromEntries(
                (captured.extra ?? []).map((e) => [
                  e.format,
                  { url: extraStored[e.format]!.url, content_type: e.contentType, size: e.body.length },
                ]),
              ),
            }
          : {}),
      };
      const at = new Date();
      const won = held
        ? await this.deps.quota.commitIf(held, at, (trx) => jobs.succeed(trx, job.id, token, result, at))
        : await this.deps.jobs.succeedAlone(job.id, token, result, at);
      if (!won) return;
      logger.info({ job: job.id, account: job.accountId, runs: job.runs }, 'job succeeded');
      this.deps.onFinished?.('succeeded', job);
    } catch (thrown) {
      const known = knownAppError(thrown);
      const code = known?.code ?? 'internal_error';
      if (TRANSIENT.has(code)) {
        // This worker cannot capture now (its browser restarts, it is stopping, or Redis or the
        // database went away): the job goes back, the task runs again.
        await jobs.requeue(job.id, token);
        throw thrown;
      }
      if (!known) logger.error({ err: thrown, job: job.id }, 'job failed unexpectedly');
      const message = known?.message ?? 'the capture failed unexpectedly';
      await this.end(job, token, held, { code, message });
      return;
    }
    if (job.webhookUrl) await this.queueWebhook(job, 1, 0);
  }

  /**
   * Gives a task again to jobs that wait without one: a Redis that lost its data, a task dropped
   * after failing too often, a run whose worker vanished unnoticed. Adding a task that is still
   * queued adds nothing (same id), so a job that is merely waiting its turn is not doubled.
   */
  async requeueStranded(now = new Date()): Promise<number> {
    const stranded = await this.deps.jobs.stranded(now, { queuedMs: 2 * 60_000, runningMs: 15 * 60_000, limit: 200 });
    await this.deps.queue.add(
      stranded.map((job) => ({ id: `capture.${job.id}`, kind: 'capture' as const, jobId: job.id, lane: job.lane })),
    );
    return stranded.length;
  }

  /** Fails the job (if this run still owns it), gives its quota unit back and queues its webhook. */
  private async end(job: Job, token: string, held: Reservation | undefined, error: JobError): Promise<boolean> {
    if (!(await this.deps.jobs.fail(job.id, token, error, new Date()))) return false;
    if (held) await this.deps.quota.release(held).catch(() => undefined);
    this.deps.logger.info({ job: job.id, account: job.accountId, code: error.code }, 'job failed');
    this.deps.onFinished?.('failed', job);
    if (job.webhookUrl) await this.queueWebhook(job, 1, 0);
    return true;
  }

  private queueWebhook(job: Job, attempt: number, delayMs: number): Promise<void> {
    return this.deps.queue.add([{ id: `webhook.${job.id}.${attempt}`, kind: 'webhook', jobId: job.id, lane: 0, delayMs }]);
  }

  /** One delivery attempt; a failed one queues the next (before recording this one, so a crash between cannot lose it). */
  async webhook(taskId: string, jobId: string): Promise<void> {
    const attempt = Number(taskId.split('.').at(-1));
    const job = await this.deps.jobs.get(jobId);
    if (!job?.webhookUrl || job.webhook.deliveredAt || job.webhook.attempts >= attempt || !Number.isInteger(attempt)) return;
    const body = JSON.stringify(jobJson(job));
    const secret = keySigningSecret(this.deps.signingSecret, job.keyId);
    const outcome = await deliverWebhook({
      url: job.webhookUrl,
      body,
      guard: this.deps.guard,
      headers: {
        'user-agent': `Shutter-Webhook/${this.deps.version}`,
        'x-shutter-signature': signWebhook(secret, body, Math.floor(Date.now() / 1000)),
        'x-shutter-job-id': job.id,
        'x-shutter-attempt': String(attempt),
      },
    });
    const delivered = outcome.error === null;
    const pause = delivered || attempt >= WEBHOOK_ATTEMPTS ? undefined : this.deps.webhookRetryMs * 2 ** (attempt - 1);
    if (pause !== undefined) await this.queueWebhook(job, attempt + 1, pause);
    await this.deps.jobs.recordDelivery(job.id, {
      number: attempt,
      status: outcome.status,
      error: outcome.error,
      deliveredAt: delivered ? new Date() : null,
      nextAt: pause === undefined ? null : new Date(Date.now() + pause),
    });
    if (!delivered) this.deps.logger.warn({ job: job.id, attempt, error: outcome.error }, 'webhook delivery failed');
  }
}
