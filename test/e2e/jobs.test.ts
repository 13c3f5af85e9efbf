import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver, type Resolver } from '../../src/egress/resolver.js';
import { verifyWebhook } from '../../src/jobs/webhook-signature.js';
import { startService, type Service } from './harness.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { redisUrl } from '../helpers/db.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PAGE = (text: string) => `<html><body style="margin:0;background:#fff"><h1>${text}</h1></body></html>`;

/** Polls GET /v1/jobs/{id} until the job has ended. */
async function waitJob(service: Service, id: string, apiKey = service.apiKey, timeoutMs = 30_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await service.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: { apikey: apiKey } });
    expect(res.statusCode).toBe(200);
    const job = res.json() as Json;
    if (job.status === 'succeeded' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function used(service: Service, apiKey = service.apiKey): Promise<number> {
  const res = await service.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: apiKey } });
  return (res.json() as Json).usage.used as number;
}

async function signingSecret(service: Service, apiKey = service.apiKey): Promise<string> {
  const res = await service.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: apiKey } });
  return (res.json() as Json).key.signing_secret as string;
}

/** A second account on `plan`, with its own key. */
async function accountOn(service: Service, plan: string, email: string): Promise<string> {
  const created = await service.accounts.accounts.create({ email, plan });
  if (!created.ok) throw new Error(created.message);
  return (await service.keys.create({ name: 'second', accountId: created.value.id })).key;
}

function take(service: Service, body: Json, headers: Record<string, string> = {}, apiKey = service.apiKey) {
  return service.app.inject({ method: 'POST', url: '/v1/take', headers: { apikey: apiKey, ...headers }, payload: body });
}

describe('async jobs on the embedded queue (real Chromium)', () => {
  let service: Service;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let answers: number[] = [];

  beforeAll(async () => {
    receiver = await startReceiver({ answer: (n) => answers[n - 1] ?? 200 });
    service = await startService({
      store: true,
      resolve: staticResolver({ 'hooks.test': '127.0.0.1' }),
      env: { SHUTTER_WEBHOOK_RETRY_MS: '50', SHUTTER_JOB_CONCURRENCY: '2' },
    });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
  });

  it('async=1 answers 202 with the job; the job succeeds, its file is stored, and one unit is charged on success', async () => {
    const before = await used(service);
    const res = await take(service, { html: PAGE('job one'), async: true, external_id: 'order-1' });
    expect(res.statusCode).toBe(202);
    const created = res.json() as Json;
    expect(created).toMatchObject({ status: 'queued', request_id: res.headers['x-request-id'] });
    expect(created.job_id).toMatch(/^job_[0-9a-f]{24}$/);
    expect(created.status_url).toBe(`http://localhost/v1/jobs/${created.job_id}`);
    const job = await waitJob(service, created.job_id);
    expect(job).toMatchObject({ job_id: created.job_id, status: 'succeeded', external_id: 'order-1', error: null });
    expect(job.result).toMatchObject({ format: 'png', content_type: 'image/png' });
    expect(Date.parse(job.finished_at)).toBeGreaterThanOrEqual(Date.parse(job.started_at));
    const file = await service.app.inject({ method: 'GET', url: new URL(job.result.url).pathname + new URL(job.result.url).search });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    expect(file.rawPayload.length).toBe(job.result.size);
    expect(await used(service)).toBe(before + 1);
  });

  it('a job that fails is not charged and says why; another account cannot see it', async () => {
    const before = await used(service);
    const res = await take(service, { url: 'http://nowhere.test/', async: true });
    expect(res.statusCode).toBe(202);
    const job = await waitJob(service, (res.json() as Json).job_id);
    expect(job.status).toBe('failed');
    expect(job.error.code).toBe('navigation_failed');
    expect(job.result).toBeNull();
    expect(await used(service)).toBe(before);
    const other = await accountOn(service, 'basic', 'other@example.com');
    const peek = await service.app.inject({ method: 'GET', url: `/v1/jobs/${job.job_id}`, headers: { apikey: other } });
    expect(peek.statusCode).toBe(404);
    expect((peek.json() as Json).error.code).toBe('not_found');
  });

  it('delivers a signed webhook, retrying non-2xx answers with backoff, and shows the attempts', async () => {
    answers = [500, 503, 200];
    receiver.received.length = 0;
    const res = await take(service, { html: PAGE('hooked'), async: true, webhook_url: receiver.url(), external_id: 'hook-1' });
    expect(res.statusCode).toBe(202);
    const id = (res.json() as Json).job_id as string;
    await receiver.until((hooks) => hooks.some((h) => h.status === 200));
    expect(receiver.received.map((h) => h.status)).toEqual([500, 503, 200]);
    const secret = await signingSecret(service);
    for (const hook of receiver.received) {
      const body = JSON.parse(hook.body) as Json;
      expect(body).toMatchObject({ job_id: id, status: 'succeeded', external_id: 'hook-1' });
      expect(hook.headers['content-type']).toBe('application/json');
      expect(verifyWebhook(secret, hook.body, String(hook.headers['x-shutter-signature']))).toBe(true);
      // Signed with this key's secret and this body only.
      expect(verifyWebhook(`${secret}x`, hook.body, String(hook.headers['x-shutter-signature']))).toBe(false);
      expect(verifyWebhook(secret, hook.body.replace('hook-1', 'hook-2'), String(hook.headers['x-shutter-signature']))).toBe(false);
    }
    // Backoff: the second pause (100 ms) is longer than the first (50 ms).
    const [a, b, c] = receiver.received.map((h) => h.at);
    expect(c! - b!).toBeGreaterThanOrEqual(90);
    expect(b! - a!).toBeGreaterThanOrEqual(40);
    const job = await waitJob(service, id);
    await expect
      .poll(
        async () =>
          ((await service.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: { apikey: service.apiKey } })).json() as Json)
            .webhook,
      )
      .toMatchObject({
        attempts: 3,
        last_status: 200,
        delivered_at: expect.any(String),
        next_attempt_at: null,
      });
    expect(job.status).toBe('succeeded');
  });

  it('refuses a webhook to a private address when the job is asked for, and queues nothing', async () => {
    const before = await used(service);
    const res = await take(service, { html: PAGE('x'), async: true, webhook_url: 'http://10.1.2.3/hook' });
    expect(res.statusCode).toBe(403);
    const error = (res.json() as Json).error;
    expect(error.code).toBe('target_forbidden');
    expect(error.details[0].parameter).toBe('webhook_url');
    expect(await used(service)).toBe(before);
  });

  it('webhook_url and external_id need async=1; async=1 does not combine with cache or response_type', async () => {
    for (const [body, parameter] of [
      [{ html: 'x', webhook_url: receiver.url() }, 'webhook_url'],
      [{ html: 'x', external_id: 'a' }, 'external_id'],
      [{ html: 'x', async: true, cache: true }, 'cache'],
      [{ html: 'x', async: true, response_type: 'json' }, 'response_type'],
      [{ html: 'x', async: true, webhook_url: 'ftp://example.com/' }, 'webhook_url'],
      [{ html: 'x', async: true, external_id: 'x'.repeat(129) }, 'external_id'],
    ] as const) {
      const res = await take(service, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(((res.json() as Json).error.details as Json[]).map((d) => d.parameter)).toContain(parameter);
    }
  });

  it('Idempotency-Key: the same key and body answer the same job; another body is a 409; a bad key is a 400', async () => {
    const body = { html: PAGE('idem'), async: true };
    const first = await take(service, body, { 'idempotency-key': 'k-123' });
    const again = await take(service, body, { 'idempotency-key': 'k-123' });
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect((again.json() as Json).job_id).toBe((first.json() as Json).job_id);
    const other = await take(service, { ...body, html: PAGE('other') }, { 'idempotency-key': 'k-123' });
    expect(other.statusCode).toBe(409);
    expect((other.json() as Json).error.code).toBe('idempotency_conflict');
    const bad = await take(service, body, { 'idempotency-key': 'x'.repeat(256) });
    expect(bad.statusCode).toBe(400);
    expect((bad.json() as Json).error.details[0].parameter).toBe('Idempotency-Key');
    await waitJob(service, (first.json() as Json).job_id);
  });

  it('POST /v1/bulk: defaults merged into each entry, a job per entry; one bad entry is a 400 naming its index and nothing is queued', async () => {
    const before = await used(service);
    const bad = await service.app.inject({
      method: 'POST',
      url: '/v1/bulk',
      headers: { apikey: service.apiKey },
      payload: {
        defaults: { format: 'jpg' },
        requests: [{ html: PAGE('a') }, { html: PAGE('b'), viewport_width: 5 }, { html: PAGE('c') }],
      },
    });
    expect(bad.statusCode).toBe(400);
    const error = (bad.json() as Json).error;
    expect(error.message).toMatch(/^requests\[1\]/);
    expect(error.details[0]).toMatchObject({ index: 1, parameter: 'requests[1].viewport_width' });
    const recent = await service.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: service.apiKey } });
    expect(recent.statusCode).toBe(200);

    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/bulk',
      headers: { apikey: service.apiKey, 'idempotency-key': 'bulk-1' },
      payload: {
        defaults: { format: 'jpg', viewport_width: 400 },
        requests: [{ html: PAGE('a'), external_id: 'a' }, { html: PAGE('b'), format: 'webp' }, { html: PAGE('c') }],
        webhook_url: receiver.url('/bulk'),
      },
    });
    expect(res.statusCode).toBe(202);
    const answer = res.json() as Json;
    expect(answer.jobs).toHaveLength(3);
    expect(answer.jobs[0].external_id).toBe('a');
    const jobs = await Promise.all((answer.jobs as Json[]).map((j) => waitJob(service, j.job_id)));
    expect(jobs.map((j) => j.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(jobs.map((j) => j.result.format)).toEqual(['jpg', 'webp', 'jpg']);
    expect(await used(service)).toBe(before + 3);
    await receiver.until((hooks) => (answer.jobs as Json[]).every((j) => hooks.some((h) => h.status === 200 && h.body.includes(j.job_id))));
    const replay = await service.app.inject({
      method: 'POST',
      url: '/v1/bulk',
      headers: { apikey: service.apiKey, 'idempotency-key': 'bulk-1' },
      payload: {
        defaults: { format: 'jpg', viewport_width: 400 },
        requests: [{ html: PAGE('a'), external_id: 'a' }, { html: PAGE('b'), format: 'webp' }, { html: PAGE('c') }],
        webhook_url: receiver.url('/bulk'),
      },
    });
    expect(replay.statusCode).toBe(202);
    expect(replay.json()).toEqual(answer);
    expect(await used(service)).toBe(before + 3);
  });

  it('bulk shapes: more than 50 entries, an unknown field and a non-object entry are 400s', async () => {
    const post = (payload: unknown) =>
      service.app.inject({ method: 'POST', url: '/v1/bulk', headers: { apikey: service.apiKey }, payload: payload as Json });
    const many = await post({ requests: Array.from({ length: 51 }, () => ({ html: 'x' })) });
    expect(many.statusCode).toBe(400);
    expect((many.json() as Json).error.details[0].parameter).toBe('requests');
    const unknown = await post({ requests: [{ html: 'x' }], callback: 'x' });
    expect(unknown.statusCode).toBe(400);
    expect((unknown.json() as Json).error.code).toBe('unknown_parameter');
    const notObject = await post({ requests: [{ html: 'x' }, 'nope'] });
    expect(notObject.statusCode).toBe(400);
    expect((notObject.json() as Json).error.details[0]).toMatchObject({ index: 1, parameter: 'requests[1]' });
  });

  it('a plan caps its queued jobs (429 queue_full), and a bulk needs quota for every entry (429 quota_exceeded), holding nothing after', async () => {
    const free = await accountOn(service, 'free', 'free@example.com');
    const entries = (n: number) => ({ requests: Array.from({ length: n }, (_, i) => ({ html: PAGE(`f${i}`) })) });
    const tooMany = await service.app.inject({ method: 'POST', url: '/v1/bulk', headers: { apikey: free }, payload: entries(11) });
    expect(tooMany.statusCode).toBe(429);
    expect((tooMany.json() as Json).error.code).toBe('queue_full');
    expect(tooMany.headers['retry-after']).toBeDefined();
    // The refused bulk held no quota: the whole free quota (100) minus nothing is still there for 10 jobs.
    expect(await used(service, free)).toBe(0);
    // Polling a job is not counted against the rate limit (the free plan allows 10 requests a minute).
    const ten = await service.app.inject({ method: 'POST', url: '/v1/bulk', headers: { apikey: free }, payload: entries(10) });
    expect(ten.statusCode).toBe(202);
    const polled = await Promise.all(((ten.json() as Json).jobs as Json[]).map((j) => waitJob(service, j.job_id, free)));
    expect(polled.every((j) => j.status === 'succeeded')).toBe(true);
    const overQuota = await service.accounts.accounts.create({ email: 'tiny@example.com', plan: 'free' });
    if (!overQuota.ok) throw new Error(overQuota.message);
    const tinyKey = (await service.keys.create({ name: 't', accountId: overQuota.value.id })).key;
    // Use up 95 of the free plan's 100 by hand, then ask for 6.
    const { periodOf } = await import('../../src/usage/period.js');
    await service.accounts.db.kysely
      .insertInto('quota_usage')
      .values({ account_id: overQuota.value.id, period: periodOf(new Date()).id, used: 95 })
      .execute();
    const six = await service.app.inject({ method: 'POST', url: '/v1/bulk', headers: { apikey: tinyKey }, payload: entries(6) });
    expect(six.statusCode).toBe(429);
    expect((six.json() as Json).error.code).toBe('quota_exceeded');
    const five = await service.app.inject({ method: 'POST', url: '/v1/bulk', headers: { apikey: tinyKey }, payload: entries(5) });
    expect(five.statusCode).toBe(202);
    const jobs = await Promise.all(((five.json() as Json).jobs as Json[]).map((j) => waitJob(service, j.job_id, tinyKey)));
    expect(jobs.every((j) => j.status === 'succeeded')).toBe(true);
    expect(await used(service, tinyKey)).toBe(100);
  });
});

describe('webhook deliveries obey the egress guard at delivery time', () => {
  it('a name that resolved to a public address when accepted and rebinds to a private one is not delivered to', async () => {
    // The receiver listens on 127.0.0.2, which this service does not allow (only 127.0.0.1/32 is open, for nothing here).
    const receiver = await startReceiver({ host: '127.0.0.2' });
    let lookups = 0;
    const rebinding: Resolver = async (host) => {
      if (host !== 'rebind.test') return staticResolver({})(host);
      lookups++;
      return lookups === 1 ? ['93.184.215.14'] : ['127.0.0.2'];
    };
    const service = await startService({
      store: true,
      allowedPrivateNetworks: '127.0.0.1/32',
      resolve: rebinding,
      env: { SHUTTER_WEBHOOK_RETRY_MS: '20' },
    });
    try {
      const res = await take(service, { html: PAGE('rebind'), async: true, webhook_url: `http://rebind.test:${receiver.port}/hook` });
      expect(res.statusCode).toBe(202);
      const id = (res.json() as Json).job_id as string;
      await waitJob(service, id);
      // Every attempt resolves afresh and is refused: 7 attempts with 20 ms doubling pauses take about 1.3 s.
      await expect
        .poll(
          async () =>
            ((await service.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: { apikey: service.apiKey } })).json() as Json)
              .webhook,
          { timeout: 15_000, interval: 200 },
        )
        .toMatchObject({ attempts: 7, last_error: 'forbidden', delivered_at: null, next_attempt_at: null });
      expect(lookups).toBe(8);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await service.close();
      await receiver.close();
    }
  }, 60_000);
});

describe.each([
  ['the embedded queue', {}],
  ...(redisUrl
    ? [['BullMQ on Redis', { SHUTTER_REDIS_URL: redisUrl, SHUTTER_REDIS_PREFIX: `shutter-fair-test:${Date.now()}:` }] as const]
    : []),
] as Array<[string, Record<string, string>]>)('per-account fairness on %s', (_name, env) => {
  let service: Service;
  beforeAll(async () => {
    service = await startService({ store: true, env: { SHUTTER_JOB_CONCURRENCY: '1', ...env } });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    if (env.SHUTTER_REDIS_PREFIX) {
      const { Redis } = await import('ioredis');
      const redis = new Redis(redisUrl!);
      const keys = await redis.keys(`${env.SHUTTER_REDIS_PREFIX}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it("one account's bulk of 20 does not starve another account's single job: it finishes before the bulk is half done", async () => {
    const other = await accountOn(service, 'basic', 'fair@example.com');
    const bulk = await service.app.inject({
      method: 'POST',
      url: '/v1/bulk',
      headers: { apikey: service.apiKey },
      payload: { requests: Array.from({ length: 20 }, (_, i) => ({ html: PAGE(`bulk ${i}`) })) },
    });
    expect(bulk.statusCode).toBe(202);
    const single = await take(service, { html: PAGE('single'), async: true }, {}, other);
    expect(single.statusCode).toBe(202);
    const mine = await waitJob(service, (single.json() as Json).job_id, other, 60_000);
    const theirs = await Promise.all(((bulk.json() as Json).jobs as Json[]).map((j) => waitJob(service, j.job_id, service.apiKey, 60_000)));
    const finished = theirs.map((j) => Date.parse(j.finished_at)).sort((a, b) => a - b);
    expect(mine.status).toBe('succeeded');
    expect(Date.parse(mine.finished_at)).toBeLessThan(finished[9]!);
  }, 90_000);
});

describe('old jobs are swept', () => {
  it('deletes jobs that ended more than 7 days ago (not queued ones, not ones whose webhook is still retried) and expired idempotency keys', async () => {
    const { openDatabase } = await import('../../src/db/database.js');
    const { JobStore } = await import('../../src/jobs/job-store.js');
    const db = await openDatabase({ sqliteFile: ':memory:' });
    const store = new JobStore(db);
    const now = new Date('2026-11-24T12:00:00Z');
    const old = new Date('2026-11-10T12:00:00Z');
    const job = (id: string) => ({
      id,
      accountId: 'acct',
      keyId: 'key',
      requestId: 'r',
      params: { html: 'x' },
      format: 'png',
      url: null,
      externalId: null,
      webhookUrl: null,
      baseUrl: null,
      held: null,
    });
    await store.create([job('job_old_done'), job('job_old_queued'), job('job_old_retrying'), job('job_new_done')], {
      accountId: 'acct',
      maxQueued: 10,
      now: old,
      idempotency: { key: 'k', bodyHash: 'h', answer: {} },
    });
    await db.kysely
      .updateTable('jobs')
      .set({ status: 'succeeded', finished_at: old.toISOString() })
      .where('id', 'in', ['job_old_done', 'job_old_retrying'])
      .execute();
    await db.kysely.updateTable('jobs').set({ webhook_next_at: now.toISOString() }).where('id', '=', 'job_old_retrying').execute();
    await db.kysely
      .updateTable('jobs')
      .set({ status: 'failed', finished_at: now.toISOString() })
      .where('id', '=', 'job_new_done')
      .execute();
    expect(await store.sweep(now)).toBe(1);
    expect((await db.kysely.selectFrom('jobs').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual([
      'job_new_done',
      'job_old_queued',
      'job_old_retrying',
    ]);
    expect(await db.kysely.selectFrom('idempotency_keys').selectAll().execute()).toEqual([]);
    await db.close();
  });
});
