import type { Logger } from 'pino';
import type { Db } from '../db/db.js';
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

/**
 * The embedded queue: tasks are rows of `queue_tasks` in the SQLite file or Postgres, so they
 * survive a restart and every process on the database shares them. A worker claims a task by a
 * conditional update that sets its lease; it renews the lease while it runs; a worker that dies
 * stops renewing and the task is claimed again once the lease has lapsed. Idle workers poll.
 */
export class DbTaskQueue implements TaskQueue {
  readonly backend = 'database';
  private readonly running = new Set<Promise<void>>();
  private readonly wakers = new Set<() => void>();
  private stopped = false;
  private counter = 0;
  private readonly leaseMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    options: { leaseMs?: number; pollMs?: number } = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = options.pollMs ?? 250;
  }

  async add(tasks: readonly Task[]): Promise<void> {
    if (tasks.length === 0) return;
    const now = Date.now();
    const stamp = new Date(now).toISOString();
    await this.db.kysely
      .insertInto('queue_tasks')
      .values(
        tasks.map((task) => ({
          id: task.id,
          kind: task.kind,
          job_id: task.jobId,
          lane: task.lane,
          // Tasks of one lane in the order they were added (a bulk's entries share the instant).
          seq: `${stamp}#${String(this.counter++ % 1e9).padStart(9, '0')}`,
          run_at: new Date(now + (task.delayMs ?? 0)).toISOString(),
          lease_until: null,
        })),
      )
      .onConflict((c) => c.column('id').doNothing())
      .execute();
    this.wake();
  }

  work(handlers: Record<TaskKind, TaskHandler>, concurrency: Concurrency): void {
    for (const kind of KINDS) {
      if (concurrency[kind] > 0) void this.dispatch(kind, handlers[kind], concurrency[kind]);
    }
  }

  private closing: Promise<void> | undefined;

  close(graceMs = 30_000): Promise<void> {
    this.closing ??= this.stop(graceMs);
    return this.closing;
  }

  private async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    this.wake();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }

  private wake() {
    for (const waker of this.wakers) waker();
    this.wakers.clear();
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  /** Claims tasks of one kind while it has free slots; waits (poll or a local add) when there is none. */
  private async dispatch(kind: TaskKind, handler: TaskHandler, slots: number): Promise<void> {
    let busy = 0;
    while (!this.stopped) {
      if (busy >= slots) {
        await this.pause(this.pollMs);
        continue;
      }
      let claimed: { id: string; jobId: string; claims: number } | undefined;
      try {
        claimed = await this.claim(kind);
      } catch (error) {
        this.logger.warn({ err: error, kind }, 'could not claim a queued task; retrying');
        await this.pause(1_000);
        continue;
      }
      if (!claimed) {
        await this.pause(this.pollMs);
        continue;
      }
      busy++;
      const run = this.run(claimed, handler).finally(() => {
        busy--;
        this.running.delete(run);
        this.wake();
      });
      this.running.add(run);
    }
  }

  private async claim(kind: TaskKind): Promise<{ id: string; jobId: string; claims: number } | undefined> {
    for (let tries = 0; tries < 5; tries++) {
      const now = new Date().toISOString();
      const head = await this.db.kysely
        .selectFrom('queue_tasks')
        .select(['id', 'job_id', 'claims'])
        .where('kind', '=', kind)
        .where('run_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
        .orderBy('lane')
        .orderBy('seq')
        .limit(1)
        .executeTakeFirst();
      if (!head) return undefined;
      // Compare-and-set on the claim count: of two workers that read the same head, one wins.
      const updated = await this.db.kysely
        .updateTable('queue_tasks')
        .set({ lease_until: new Date(Date.now() + this.leaseMs).toISOString(), claims: Number(head.claims) + 1 })
        .where('id', '=', head.id)
        .where('claims', '=', head.claims)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 1) return { id: head.id, jobId: head.job_id, claims: Number(head.claims) + 1 };
    }
    return undefined;
  }

  private async run(task: { id: string; jobId: string; claims: number }, handler: TaskHandler): Promise<void> {
    const renew = setInterval(() => {
      void this.ownTask(task)
        .set({ lease_until: new Date(Date.now() + this.leaseMs).toISOString() })
        .execute()
        .catch(() => undefined);
    }, this.leaseMs / 3);
    try {
      await handler({ id: task.id, jobId: task.jobId });
      clearInterval(renew);
      await this.db.kysely.deleteFrom('queue_tasks').where('id', '=', task.id).where('claims', '=', task.claims).execute();
    } catch (error) {
      clearInterval(renew);
      if (task.claims >= MAX_TASK_FAILURES) {
        this.logger.error({ err: error, task: task.id }, 'a queued task failed too often; dropping it');
        await this.db.kysely.deleteFrom('queue_tasks').where('id', '=', task.id).where('claims', '=', task.claims).execute();
        return;
      }
      this.logger.warn({ err: error, task: task.id }, 'a queued task failed; it runs again shortly');
      await this.ownTask(task)
        .set({ lease_until: null, run_at: new Date(Date.now() + RETRY_PAUSE_MS).toISOString() })
        .execute()
        .catch(() => undefined);
    }
  }

  /** An update of the task that applies only while this claim holds it. */
  private ownTask(task: { id: string; claims: number }) {
    return this.db.kysely.updateTable('queue_tasks').where('id', '=', task.id).where('claims', '=', task.claims);
  }
}
