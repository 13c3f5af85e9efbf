/** What a worker does: run a job's capture, or deliver its webhook. */
export type TaskKind = 'capture' | 'webhook';

/** One unit of queued work; the job's state itself is in the database (JobStore). */
export interface Task {
  /** Unique per piece of work (no `:`, which BullMQ refuses): adding a task whose id is still queued adds nothing. */
  id: string;
  kind: TaskKind;
  jobId: string;
  /** Lower lanes run first (the job's place in its account's backlog). */
  lane: number;
  /** Not before this many ms from now. */
  delayMs?: number;
}

/**
 * Runs a task. Resolving means done (the task is removed); throwing means "not now" (the task runs
 * again after a pause, up to a few times). A worker that dies mid-task loses its lease and another
 * worker runs the task again: handlers must be safe to run twice.
 */
export type TaskHandler = (task: { id: string; jobId: string }) => Promise<void>;

/** How many tasks of a kind one process runs at once. */
export type Concurrency = Record<TaskKind, number>;

/**
 * The queue behind jobs: BullMQ on Redis when SHUTTER_REDIS_URL is set, else a table in the
 * database (bullmq-task-queue.ts, db-task-queue.ts). Both hand a task to one worker at a time,
 * give it back when that worker stops renewing its lease, and take lanes in order.
 */
export interface TaskQueue {
  readonly backend: 'redis' | 'database';
  add(tasks: readonly Task[]): Promise<void>;
  /** Starts running tasks in this process. */
  work(handlers: Record<TaskKind, TaskHandler>, concurrency: Concurrency): void;
  /** Stops taking tasks and waits up to `graceMs` for the running ones; the rest go back to the queue. */
  close(graceMs?: number): Promise<void>;
}

/** How long a worker holds a task without renewing: after that, the task is given to another. */
export const DEFAULT_LEASE_MS = 30_000;
/** Pause before a task that threw runs again, and how often it may throw. */
export const RETRY_PAUSE_MS = 5_000;
export const MAX_TASK_FAILURES = 5;
