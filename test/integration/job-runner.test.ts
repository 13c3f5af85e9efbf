import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountServices } from '../../src/accounts/services.js';
import { DEFAULT_PLANS, Plans } from '../../src/accounts/plans.js';
import type { Caller } from '../../src/accounts/meter.js';
import { AppError } from '../../src/errors/app-error.js';
import { JobIntake } from '../../src/jobs/job-intake.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { JobStore } from '../../src/jobs/job-store.js';
import type { Task, TaskQueue } from '../../src/jobs/task-queue.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';
import type { FileStore } from '../../src/storage/file-store.js';
import { periodOf } from '../../src/usage/period.js';
import { BACKENDS, testPlace, type TestPlace } from '../helpers/db.js';
import { StubEngine } from '../helpers/stub-engine.js';
import { TakeCapture } from '../../src/take/take-capture.js';
import type { CaptureEngine } from '../../src/capture/engine.js';

/** The take use case a job runner calls, over `engine` and the test's file store. */
const takeWith = (engine: CaptureEngine, services: AccountServices) =>
  new TakeCapture({
    engine,
    store: files,
    cache: undefined,
    coalescer: undefined,
    meter: services.meter,
    usage: services.usage,
    requests: services.requests,
    keys: services.keys,
  });

/** A queue that only records what it is given: the test runs the handlers itself. */
class RecordingQueue implements TaskQueue {
  readonly backend = 'database' as const;
  readonly tasks: Task[] = [];
  async add(tasks: readonly Task[]) {
    this.tasks.push(...tasks);
  }
  work() {}
  async close() {}
}

const files: FileStore = {
  put: async (input) => ({ url: `https://files.test/${input.body.length}.${input.extension}`, expiresAt: null }),
  putObject: async () => undefined,
  getObject: async () => null,
  deleteObject: async () => undefined,
  close: async () => undefined,
};

// The exactly-once rules of job-runner.ts, on each database (and Redis for the quota): a job whose
// task runs twice, or on two workers at once, is charged once; a failure or a disabled account is not charged.
describe.each(BACKENDS)('job runner on %s', (backend) => {
  let place: TestPlace;
  let services: AccountServices;
  let jobs: JobStore;
  let queue: RecordingQueue;
  let engine: StubEngine;
  let caller: Caller;

  const runner = () =>
    new JobRunner({
      jobs,
      quota: services.limits.quota,
      queue,
      take: takeWith(engine, services),
      parse: { countries: [] },
      guard: async () => ({ ok: true, addresses: ['93.184.215.14'] }),
      signingSecret: Buffer.from('job-runner-test-secret'),
      webhookRetryMs: 10,
      version: 'test',
      logger: pino({ level: 'silent' }),
      accountDisabled: async (id) => (await services.accounts.findById(id))?.disabledAt != null,
    });

  async function queueJob(): Promise<string> {
    const intake = new JobIntake({ jobs, queue, meter: services.meter, checkTarget: async () => undefined });
    const params = { html: '<h1>x</h1>', async: true };
    const answer = await intake.accept({
      caller,
      requestId: 'req',
      baseUrl: 'http://localhost',
      entries: [{ params, options: parseTakeOptions(params, { countries: [] }) }],
      body: params,
      idempotencyKey: undefined,
      answer: (ids) => ids[0]!,
    });
    return answer;
  }

  const used = () => services.limits.quota.used(caller.account.id, periodOf(new Date()));

  beforeEach(async () => {
    place = await testPlace(backend);
    services = await place.open({
      plans: new Plans([
        ...DEFAULT_PLANS,
        { name: 'small', maxKeys: 2, monthlyQuota: 3, ratePerMinute: 1000, concurrency: 5, maxQueuedJobs: 10 },
      ]),
    });
    jobs = new JobStore(services.db);
    queue = new RecordingQueue();
    engine = new StubEngine({ delayMs: 50 });
    const account = await services.accounts.create({ email: `runner-${backend}@example.com`, plan: 'small' });
    if (!account.ok) throw new Error(account.message);
    const { record } = await services.keys.create({ name: 'k', accountId: account.value.id });
    caller = { key: record, account: account.value, plan: services.plans.resolve('small') };
  });
  afterEach(async () => {
    await place.cleanup();
  });

  it('captures with async set (the stored params leave it out), so encoders may spend time for fewer bytes', async () => {
    const id = await queueJob();
    await runner().capture(id);
    expect(engine.calls.map((o) => [o.async, o.upload])).toEqual([[true, true]]);
  });

  it('a capture task handed out again after the job succeeded does nothing more: charged once', async () => {
    const id = await queueJob();
    await runner().capture(id);
    await runner().capture(id);
    expect(engine.calls).toHaveLength(1);
    expect((await jobs.get(id))?.status).toBe('succeeded');
    expect(await used()).toBe(1);
  });

  it('two workers running the same job at once: one finishes it, the account is charged once', async () => {
    const id = await queueJob();
    await Promise.all([runner().capture(id), runner().capture(id)]);
    expect(engine.calls).toHaveLength(2);
    const job = await jobs.get(id);
    expect(job?.status).toBe('succeeded');
    expect(job?.runs).toBe(2);
    expect(await used()).toBe(1);
  });

  it('a failed capture is not charged and gives its quota unit back', async () => {
    engine.error = new AppError('navigation_failed', 'nope');
    const id = await queueJob();
    await runner().capture(id);
    const job = await jobs.get(id);
    expect(job?.status).toBe('failed');
    expect(job?.error?.code).toBe('navigation_failed');
    expect(await used()).toBe(0);
    // The unit is free again: the plan's whole quota can still be held.
    const held = await services.meter.hold(caller, caller.plan.monthlyQuota, 60_000);
    expect(held).toHaveLength(caller.plan.monthlyQuota);
    await services.meter.release(held);
  });

  it('a job whose account was disabled after it was queued fails uncharged, without a capture', async () => {
    const id = await queueJob();
    await services.db.kysely
      .updateTable('accounts')
      .set({ disabled_at: new Date().toISOString() })
      .where('id', '=', caller.account.id)
      .execute();
    await runner().capture(id);
    const job = await jobs.get(id);
    expect(job?.status).toBe('failed');
    expect(job?.error?.code).toBe('account_disabled');
    expect(engine.calls).toHaveLength(0);
    expect(await used()).toBe(0);
  });

  it('a browser that is restarting sends the job back to the queue (the task throws and runs again), uncharged', async () => {
    engine.error = new AppError('browser_unavailable', 'restarting');
    const id = await queueJob();
    await expect(runner().capture(id)).rejects.toThrow('restarting');
    expect((await jobs.get(id))?.status).toBe('queued');
    engine.error = undefined;
    await runner().capture(id);
    expect((await jobs.get(id))?.status).toBe('succeeded');
    expect(await used()).toBe(1);
  });
});

describe('stranded jobs', () => {
  it('a queued job whose task was lost (Redis lost its data, a task dropped) gets a task again after 2 minutes; a fresh one does not', async () => {
    const place = await testPlace('sqlite');
    const services = await place.open();
    try {
      const jobs = new JobStore(services.db);
      const queue = new RecordingQueue();
      const account = await services.accounts.create({ email: 'stranded@example.com', plan: 'basic' });
      if (!account.ok) throw new Error(account.message);
      const { record } = await services.keys.create({ name: 'k', accountId: account.value.id });
      const caller: Caller = { key: record, account: account.value, plan: services.plans.resolve('basic') };
      const intake = new JobIntake({ jobs, queue, meter: services.meter, checkTarget: async () => undefined });
      const params = { html: '<p>x</p>', async: true };
      const id = await intake.accept({
        caller,
        requestId: 'r',
        baseUrl: 'http://localhost',
        entries: [{ params, options: parseTakeOptions(params, { countries: [] }) }],
        body: params,
        idempotencyKey: undefined,
        answer: (ids) => ids[0]!,
      });
      queue.tasks.length = 0; // the task is lost
      const runner = new JobRunner({
        jobs,
        quota: services.limits.quota,
        queue,
        take: takeWith(new StubEngine(), services),
        parse: { countries: [] },
        guard: async () => ({ ok: true, addresses: ['93.184.215.14'] }),
        signingSecret: Buffer.from('s'),
        webhookRetryMs: 10,
        version: 'test',
        logger: pino({ level: 'silent' }),
      });
      expect(await runner.requeueStranded(new Date(Date.now() + 60_000))).toBe(0);
      expect(await runner.requeueStranded(new Date(Date.now() + 3 * 60_000))).toBe(1);
      expect(queue.tasks).toEqual([{ id: `capture.${id}`, kind: 'capture', jobId: id, lane: 0 }]);
      await runner.capture(id);
      expect((await jobs.get(id))?.status).toBe('succeeded');
      expect(await runner.requeueStranded(new Date(Date.now() + 3 * 60_000))).toBe(0);
    } finally {
      await place.cleanup();
    }
  });
});
