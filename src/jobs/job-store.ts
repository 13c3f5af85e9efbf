import { randomUUID } from 'node:crypto';
import type { Selectable, Transaction } from 'kysely';
import type { Db } from '../db/db.js';
import type { JobsTable, Tables } from '../db/tables.js';

export type JobStatus = JobsTable['status'];

/** Where a succeeded job's file is: the upload=1 answer's fields (`url` may be a path on this service). */
export interface JobResult {
  url: string;
  expires_at: string | null;
  format: string;
  content_type: string;
  size: number;
  /** extra_formats: each one's stored file. */
  extra?: Record<string, { url: string; content_type: string; size: number }>;
}

export interface JobError {
  code: string;
  message: string;
}

/** The quota unit a job holds while queued or running. */
export interface HeldUnit {
  id: string;
  period: string;
}

/** One job as the code sees it. */
export interface Job {
  id: string;
  accountId: string;
  keyId: string;
  requestId: string;
  status: JobStatus;
  params: Record<string, unknown>;
  format: string;
  url: string | null;
  externalId: string | null;
  webhookUrl: string | null;
  baseUrl: string | null;
  lane: number;
  held: HeldUnit | null;
  runToken: string | null;
  runs: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  result: JobResult | null;
  error: JobError | null;
  webhook: { attempts: number; lastStatus: number | null; lastError: string | null; deliveredAt: Date | null; nextAt: Date | null };
}

/** What a request queues: everything but the lane, which the store assigns. */
export interface NewJob {
  id: string;
  accountId: string;
  keyId: string;
  requestId: string;
  params: Record<string, unknown>;
  format: string;
  url: string | null;
  externalId: string | null;
  webhookUrl: string | null;
  baseUrl: string | null;
  held: HeldUnit | null;
}

/** An Idempotency-Key's record: the body it came with and the answer it got. */
export interface IdempotentAnswer {
  bodyHash: string;
  answer: unknown;
}

export type CreateOutcome =
  | { created: true; lanes: number[] }
  | { created: false; reason: 'replay'; existing: IdempotentAnswer }
  | { created: false; reason: 'queue_full'; queued: number };

export const IDEMPOTENCY_HOURS = 24;
/** Ended jobs are kept (readable, listed on the dashboard) this long, like the request log. */
export const JOB_KEEP_DAYS = 7;

/** A new job id: `job_` and 24 hex digits (unguessable; ids are only shown to the account that owns them anyway). */
export const newJobId = () => `job_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

const date = (value: string | null) => (value === null ? null : new Date(value));
const json = <T>(value: string | null): T | null => (value === null ? null : (JSON.parse(value) as T));

function toJob(row: Selectable<JobsTable>): Job {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    requestId: row.request_id,
    status: row.status,
    params: JSON.parse(row.params) as Record<string, unknown>,
    format: row.format,
    url: row.url,
    externalId: row.external_id,
    webhookUrl: row.webhook_url,
    baseUrl: row.base_url,
    lane: row.lane,
    held: json<HeldUnit>(row.reservation),
    runToken: row.run_token,
    runs: row.runs,
    createdAt: new Date(row.created_at),
    startedAt: date(row.started_at),
    finishedAt: date(row.finished_at),
    result: json<JobResult>(row.result),
    error: json<JobError>(row.error),
    webhook: {
      attempts: Number(row.webhook_attempts),
      lastStatus: row.webhook_last_status,
      lastError: row.webhook_last_error,
      deliveredAt: date(row.webhook_delivered_at),
      nextAt: date(row.webhook_next_at),
    },
  };
}

/**
 * Jobs in the shared database: the one record of what was asked, who holds it and how it ended,
 * whichever queue carries the work. Every change of state is a conditional update, so two
 * workers that both believe they own a job cannot both finish it.
 */
export class JobStore {
  constructor(private readonly db: Db) {}

  /**
   * Creates the jobs in one transaction, under the account's lock: refused when they would take
   * the account past `maxQueued` jobs queued or running, or when `idempotency` names a key the
   * account used in the last 24 h (then the stored answer is returned and nothing is created).
   * Each job gets the lane after the account's own backlog, so a new account's job is not queued
   * behind another account's bulk.
   */
  async create(
    jobs: readonly NewJob[],
    input: { accountId: string; maxQueued: number; now: Date; idempotency?: { key: string; bodyHash: string; answer: unknown } },
  ): Promise<CreateOutcome> {
    const { accountId, now } = input;
    return this.db.kysely.transaction().execute(async (trx) => {
      // Serializes job creation per account (SQLite: one writer at a time anyway).
      if (this.db.dialect === 'postgres') {
        await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
      }
      if (input.idempotency) {
        const { key, bodyHash, answer } = input.idempotency;
        await trx
          .deleteFrom('idempotency_keys')
          .where('account_id', '=', accountId)
          .where('key', '=', key)
          .where('expires_at', '<=', now.toISOString())
          .execute();
        const existing = await trx
          .selectFrom('idempotency_keys')
          .select(['body_hash', 'answer'])
          .where('account_id', '=', accountId)
          .where('key', '=', key)
          .executeTakeFirst();
        if (existing) {
          return {
            created: false,
            reason: 'replay',
            existing: { bodyHash: existing.body_hash, answer: JSON.parse(existing.answer) },
          } as const;
        }
        await trx
          .insertInto('idempotency_keys')
          .values({
            account_id: accountId,
            key,
            body_hash: bodyHash,
            answer: JSON.stringify(answer),
            created_at: now.toISOString(),
            expires_at: new Date(now.getTime() + IDEMPOTENCY_HOURS * 3600_000).toISOString(),
          })
          .execute();
      }
      const backlog = await trx
        .selectFrom('jobs')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('lane').as('top')])
        .where('account_id', '=', accountId)
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      const queued = Number(backlog.n);
      if (queued + jobs.length > input.maxQueued) return { created: false, reason: 'queue_full', queued } as const;
      const first = queued === 0 ? 0 : Number(backlog.top ?? -1) + 1;
      const lanes = jobs.map((_, i) => first + i);
      await trx
        .insertInto('jobs')
        .values(
          jobs.map((job, i) => ({
            id: job.id,
            account_id: job.accountId,
            key_id: job.keyId,
            request_id: job.requestId,
            status: 'queued' as const,
            params: JSON.stringify(job.params),
            format: job.format,
            url: job.url?.slice(0, 2048) ?? null,
            external_id: job.externalId,
            webhook_url: job.webhookUrl,
            base_url: job.baseUrl,
            lane: lanes[i]!,
            reservation: job.held ? JSON.stringify(job.held) : null,
            run_token: null,
            runs: 0,
            created_at: now.toISOString(),
            started_at: null,
            finished_at: null,
            result: null,
            error: null,
            webhook_last_status: null,
            webhook_last_error: null,
            webhook_delivered_at: null,
            webhook_next_at: null,
          })),
        )
        .execute();
      return { created: true, lanes } as const;
    });
  }

  /** The stored answer of an Idempotency-Key still in force, if any. */
  async idempotent(accountId: string, key: string, now: Date): Promise<IdempotentAnswer | undefined> {
    const row = await this.db.kysely
      .selectFrom('idempotency_keys')
      .select(['body_hash', 'answer'])
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    return row ? { bodyHash: row.body_hash, answer: JSON.parse(row.answer) } : undefined;
  }

  async forgetIdempotency(accountId: string, key: string): Promise<void> {
    await this.db.kysely.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key).execute();
  }

  /** Marks the run's job succeeded on its own (a job that holds no quota unit). */
  async succeedAlone(id: string, token: string, result: JobResult, now: Date): Promise<boolean> {
    return this.db.kysely.transaction().execute((trx) => this.succeed(trx, id, token, result, now));
  }

  async get(id: string): Promise<Job | undefined> {
    const row = await this.db.kysely.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toJob(row) : undefined;
  }

  /** The account's jobs, newest first (the dashboard's Jobs page). */
  async recent(accountId: string, limit = 50): Promise<Job[]> {
    const rows = await this.db.kysely
      .selectFrom('jobs')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toJob);
  }

  /** Jobs waiting to run, all accounts (shutter_jobs_queued, which the worker HPA scales on). */
  async backlog(): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'queued')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * A run begins: the job becomes running under a new token (a run of a worker given up for dead
   * loses its token and cannot finish the job). Undefined when the job has ended already.
   */
  async start(id: string, now: Date): Promise<{ job: Job; token: string } | undefined> {
    const token = randomUUID();
    const updated = await this.db.kysely
      .updateTable('jobs')
      .set((eb) => ({ status: 'running', run_token: token, runs: eb('runs', '+', 1), started_at: now.toISOString() }))
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return undefined;
    const job = await this.get(id);
    return job ? { job, token } : undefined;
  }

  /** Marks the run's job succeeded inside `trx` (the quota's commit); false when the run lost the job. */
  async succeed(trx: Transaction<Tables>, id: string, token: string, result: JobResult, now: Date): Promise<boolean> {
    const updated = await trx
      .updateTable('jobs')
      .set({ status: 'succeeded', result: JSON.stringify(result), finished_at: now.toISOString(), reservation: null })
      .where('id', '=', id)
      .where('run_token', '=', token)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  /** Marks the job failed; with a token, only if that run still owns it. */
  async fail(id: string, token: string | null, error: JobError, now: Date): Promise<boolean> {
    const updated = await this.db.kysely
      .updateTable('jobs')
      .set({ status: 'failed', error: JSON.stringify(error), finished_at: now.toISOString(), reservation: null })
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .$if(token !== null, (q) => q.where('run_token', '=', token!))
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  /** Gives the job back to the queue (its worker is stopping); false when the run lost it. */
  async requeue(id: string, token: string): Promise<boolean> {
    const updated = await this.db.kysely
      .updateTable('jobs')
      .set({ status: 'queued', run_token: null })
      .where('id', '=', id)
      .where('run_token', '=', token)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  /**
   * Jobs that may have lost their task: queued for longer than `queuedMs`, or running for longer than
   * `runningMs` (past any capture's timeout); the oldest first, at most `limit`.
   */
  async stranded(now: Date, input: { queuedMs: number; runningMs: number; limit: number }): Promise<Array<{ id: string; lane: number }>> {
    return this.db.kysely
      .selectFrom('jobs')
      .select(['id', 'lane'])
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('created_at', '<', new Date(now.getTime() - input.queuedMs).toISOString())]),
          eb.and([eb('status', '=', 'running'), eb('started_at', '<', new Date(now.getTime() - input.runningMs).toISOString())]),
        ]),
      )
      .orderBy('created_at')
      .limit(input.limit)
      .execute();
  }

  /** Deletes jobs that ended more than JOB_KEEP_DAYS ago and expired Idempotency-Keys; returns how many jobs went. */
  async sweep(now: Date): Promise<number> {
    const before = new Date(now.getTime() - JOB_KEEP_DAYS * 86_400_000).toISOString();
    const gone = await this.db.kysely
      .deleteFrom('jobs')
      .where('status', 'in', ['succeeded', 'failed'])
      .where('finished_at', '<', before)
      // A webhook still being retried keeps its job.
      .where('webhook_next_at', 'is', null)
      .executeTakeFirst();
    await this.db.kysely.deleteFrom('idempotency_keys').where('expires_at', '<=', now.toISOString()).execute();
    return Number(gone.numDeletedRows);
  }

  /** Records one webhook delivery attempt and when the next one is due (null: none). */
  async recordDelivery(
    id: string,
    attempt: { number: number; status: number | null; error: string | null; deliveredAt: Date | null; nextAt: Date | null },
  ): Promise<void> {
    await this.db.kysely
      .updateTable('jobs')
      .set({
        webhook_attempts: attempt.number,
        webhook_last_status: attempt.status,
        webhook_last_error: attempt.error,
        webhook_delivered_at: attempt.deliveredAt?.toISOString() ?? null,
        webhook_next_at: attempt.nextAt?.toISOString() ?? null,
      })
      .where('id', '=', id)
      .where('webhook_attempts', '<', attempt.number)
      .execute();
  }
}
