import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';
import {
  DEFAULT_LEASE_MS,
  MAX_TASK_FAILURES,
  RETRY_PAUSE_MS,
  type Concurrency,
  type Task,
  type TaskHandler,
  type TaskKind,
  type TaskQueue,
} from './task-queue.js';

const KINDS: readonly TaskKind[] = ['capture', 'webhook'];
/** BullMQ's highest priority number (lowest priority). */
const MAX_PRIORITY = 2_097_151;

/**
 * The queue on Redis (BullMQ), for many API and worker nodes: one BullMQ queue per task kind.
 * A job's lane becomes its BullMQ priority, so accounts take turns; BullMQ's lock is the lease
 * (a worker SIGKILLed mid-task stops renewing it, and the stalled-job check hands the task to
 * another worker).
 */
export class BullmqTaskQueue implements TaskQueue {
  readonly backend = 'redis';
  private readonly queues: Record<TaskKind, Queue>;
  private readonly workers: Worker[] = [];
  private readonly connection: ConnectionOptions;
  private readonly prefix: string;
  private readonly leaseMs: number;

  constructor(
    redisUrl: string,
    prefix: string,
    private readonly logger: Logger,
    options: { leaseMs?: number } = {},
  ) {
    // BullMQ blocks on Redis in its workers: it needs its own connections, and no per-command retry limit.
    this.connection = { url: redisUrl, maxRetriesPerRequest: null };
    this.prefix = `${prefix}bull`;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    // Adding is on the request path: with Redis away it should fail after one reconnection attempt
    // (503 backend_unavailable), not wait in ioredis' offline queue until Redis is back.
    const adding = { url: redisUrl, maxRetriesPerRequest: 1 };
    this.queues = {
      capture: new Queue('capture', { connection: adding, prefix: this.prefix }),
      webhook: new Queue('webhook', { connection: adding, prefix: this.prefix }),
    };
    for (const kind of KINDS) this.queues[kind].on('error', (error) => this.logger.warn({ err: error, kind }, 'job queue: Redis error'));
  }

  async add(tasks: readonly Task[]): Promise<void> {
    for (const kind of KINDS) {
      const mine = tasks.filter((task) => task.kind === kind);
      if (mine.length === 0) continue;
      await this.queues[kind].addBulk(
        mine.map((task) => ({
          name: kind,
          data: { jobId: task.jobId },
          opts: {
            jobId: task.id,
            priority: Math.min(MAX_PRIORITY, task.lane + 1),
            ...(task.delayMs ? { delay: task.delayMs } : {}),
            attempts: MAX_TASK_FAILURES,
            backoff: { type: 'fixed', delay: RETRY_PAUSE_MS },
            // Gone once done or given up (logged), so that the same id can be queued again (job-runner.ts requeueStranded).
            removeOnComplete: true,
            removeOnFail: true,
          },
        })),
      );
    }
  }

  work(handlers: Record<TaskKind, TaskHandler>, concurrency: Concurrency): void {
    for (const kind of KINDS) {
      if (concurrency[kind] <= 0) continue;
      const worker = new Worker(kind, async (job) => handlers[kind]({ id: job.id ?? '', jobId: (job.data as { jobId: string }).jobId }), {
        connection: this.connection,
        prefix: this.prefix,
        concurrency: concurrency[kind],
        lockDuration: this.leaseMs,
        stalledInterval: Math.max(1_000, Math.floor(this.leaseMs / 2)),
        // The job's own run count decides when to give up (job-runner.ts); BullMQ should not fail it first.
        maxStalledCount: 100,
      });
      worker.on('error', (error) => this.logger.warn({ err: error, kind }, 'job worker: Redis error'));
      worker.on('failed', (job, error) => this.logger.warn({ err: error, task: job?.id, kind }, 'a queued task failed'));
      this.workers.push(worker);
    }
  }

  private closing: Promise<void> | undefined;

  close(graceMs = 30_000): Promise<void> {
    this.closing ??= this.stop(graceMs);
    return this.closing;
  }

  private async stop(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    // close() waits for running tasks; past the grace period, force: their locks lapse and another worker takes them.
    const graceful = Promise.all(this.workers.map((worker) => worker.close()));
    const late = await Promise.race([
      graceful.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (late) await Promise.all(this.workers.map((worker) => worker.close(true)));
    await Promise.all(KINDS.map((kind) => this.queues[kind].close()));
  }
}
