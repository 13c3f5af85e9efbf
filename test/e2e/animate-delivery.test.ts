import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { verifyWebhook } from '../../src/jobs/webhook-signature.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { probe } from '../helpers/video.js';
import { startService, type Service } from './harness.js';

/**
 * /v1/animate as a capture like any other (issue 36, DESIGN.md §5.3): upload=1, async=1 jobs, cache=1,
 * signed links and quota, end to end: the real Chromium and ffmpeg, accounts, usage and jobs in a
 * SQLite file, files in the local store or on a real S3-protocol server (s3rver) on 127.0.0.1. Every
 * video is read back with ffprobe. Videos are tiny (320×200, a few frames) to keep it quick.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let fixtures: FixtureServer;
beforeAll(async () => {
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await stopFixtureServer(fixtures);
});

const SMALL = { viewport_width: 320, viewport_height: 200, duration: 1, fps: 4 };
const box = () => ({ url: `${fixtures.baseUrl}/animate/moving-box.html`, ...SMALL });

const query = (params: Record<string, string | number | boolean>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();

function animate(service: Service, params: Record<string, string | number | boolean>, apiKey = service.apiKey) {
  return service.app.inject({ method: 'GET', url: `/v1/animate?${query(params)}`, headers: { apikey: apiKey } });
}

const errorCode = (res: LightMyRequestResponse) => res.json<{ error: { code: string } }>().error.code;

async function status(service: Service, apiKey = service.apiKey): Promise<Json> {
  return (await service.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: apiKey } })).json() as Json;
}
const used = async (service: Service, apiKey = service.apiKey) => (await status(service, apiKey)).usage.used as number;

/** The bytes behind a link to a stored file: the service's own signed path, or any other URL (S3). */
async function download(service: Service, url: string): Promise<{ status: number; type: string | undefined; body: Buffer }> {
  const link = new URL(url);
  if (link.hostname === 'localhost') {
    const res = await service.app.inject({ method: 'GET', url: link.pathname + link.search });
    return { status: res.statusCode, type: res.headers['content-type'] as string | undefined, body: res.rawPayload };
  }
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type') ?? undefined, body: Buffer.from(await res.arrayBuffer()) };
}

async function waitJob(service: Service, id: string, timeoutMs = 120_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await service.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: { apikey: service.apiKey } });
    expect(res.statusCode).toBe(200);
    const job = res.json() as Json;
    if (job.status === 'succeeded' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('with the local store and accounts in a SQLite file', () => {
  let service: Service;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shutter-animate-plans-'));
    const plansFile = join(dir, 'plans.json');
    // tiny: one capture a month, to see one animation take exactly one.
    await writeFile(
      plansFile,
      JSON.stringify({
        plans: [{ name: 'tiny', max_keys: 1, monthly_quota: 1, rate_per_minute: 100, concurrency: 2, max_queued_jobs: 5 }],
      }),
    );
    service = await startService({ store: true, accounts: 'config', env: { SHUTTER_PLANS_FILE: plansFile } });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('upload=1 stores the video and answers JSON whose signed link serves it', async () => {
    const before = await used(service);
    const res = await animate(service, { ...box(), format: 'webm', upload: true, attachment_name: 'clip' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Json;
    expect(body).toMatchObject({ format: 'webm', content_type: 'video/webm' });
    expect(body.url).toMatch(/^http:\/\/localhost\/v1\/files\/\w+\.webm\?expires=\d+&sig=/);
    const file = await download(service, body.url as string);
    expect(file.status).toBe(200);
    expect(file.type).toBe('video/webm');
    expect(file.body.length).toBe(body.size);
    expect(await probe(file.body)).toMatchObject({ codec: 'vp9', width: 320, height: 200, frames: 4 });
    // An altered link serves nothing.
    const altered = await download(
      service,
      (body.url as string).replace(/sig=(.)/, (_m, c: string) => `sig=${c === 'a' ? 'b' : 'a'}`),
    );
    expect(altered.status).not.toBe(200);
    expect(await used(service)).toBe(before + 1);
  }, 120_000);

  it('cache=1: the same request again is a hit with the same bytes, not charged; other animate options are another entry', async () => {
    const params = { ...box(), format: 'gif', cache: true };
    const before = await used(service);
    const miss = await animate(service, params);
    expect(miss.statusCode, miss.body).toBe(200);
    expect(miss.headers['x-shutter-cache']).toBe('MISS');
    expect(miss.headers['content-type']).toBe('image/gif');
    const hit = await animate(service, params);
    expect(hit.statusCode, hit.body).toBe(200);
    expect(hit.headers['x-shutter-cache']).toBe('HIT');
    expect(hit.rawPayload.equals(miss.rawPayload)).toBe(true);
    expect(await probe(hit.rawPayload)).toMatchObject({ codec: 'gif', frames: 4 });
    expect(await used(service)).toBe(before + 1);

    // Each of these changes the video: none may be answered from the entry above.
    const changes: Array<Record<string, string | number>> = [{ fps: 2 }, { duration: 2 }, { format: 'mp4' }, { scenario: 'scroll' }];
    for (const change of changes) {
      const other = await animate(service, { ...params, ...change });
      expect(other.statusCode, other.body).toBe(200);
      expect(other.headers['x-shutter-cache'], JSON.stringify(change)).toBe('MISS');
    }
    // And the animation's entry is not a still capture's: /v1/take of the same page and cache options misses.
    const take = await service.app.inject({
      method: 'GET',
      url: `/v1/take?${query({ url: box().url, viewport_width: 320, viewport_height: 200, format: 'gif', cache: true })}`,
      headers: { apikey: service.apiKey },
    });
    expect(take.statusCode, take.body).toBe(200);
    expect(take.headers['x-shutter-cache']).toBe('MISS');
  }, 180_000);

  it('a signed link records without the API key, is charged once, and refuses an altered parameter', async () => {
    const { key } = await status(service);
    expect(typeof key.signing_secret).toBe('string');
    const signed = `${query({ ...box(), format: 'mp4', expires: Math.floor(Date.now() / 1000) + 600 })}&access_key=${key.id as string}`;
    const link = (q: string) =>
      `/v1/animate?${q}&signature=${createHmac('sha256', key.signing_secret as string)
        .update(q)
        .digest('hex')}`;
    const before = await used(service);
    const res = await service.app.inject({ method: 'GET', url: link(signed) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(await probe(res.rawPayload)).toMatchObject({ codec: 'h264', width: 320, height: 200, frames: 4 });
    expect(await used(service)).toBe(before + 1);

    const altered = link(signed).replace('fps=4', 'fps=5');
    const refused = await service.app.inject({ method: 'GET', url: altered });
    expect(refused.statusCode).toBe(403);
    expect(errorCode(refused)).toBe('signature_invalid');
    expect(await used(service)).toBe(before + 1);
  }, 120_000);

  it('quota: one animation is one capture; a failed one is not charged; the next over the quota is 429 before recording', async () => {
    const account = await service.accounts.accounts.create({ email: 'tiny@example.com', plan: 'tiny' });
    if (!account.ok) throw new Error(account.message);
    const { key } = await service.keys.create({ name: 'tiny', accountId: account.value.id });
    expect(await used(service, key)).toBe(0);

    const failed = await animate(service, { ...box(), scenario: 'scroll', scroll_till_selector: '#nowhere' }, key);
    expect(failed.statusCode, failed.body).toBe(422);
    expect(await used(service, key)).toBe(0);

    const ok = await animate(service, { ...box(), duration: 2 }, key);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.headers['x-quota-remaining']).toBe('0');
    // Two seconds at 4 fps, one unit: an animation is charged per video, not per frame or second.
    expect(await probe(ok.rawPayload)).toMatchObject({ frames: 8 });
    expect(await used(service, key)).toBe(1);

    const started = performance.now();
    const over = await animate(service, { ...box(), duration: 30 }, key);
    expect(over.statusCode, over.body).toBe(429);
    expect(errorCode(over)).toBe('quota_exceeded');
    // Refused up front: a 30 s recording was not made first.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(await used(service, key)).toBe(1);
  }, 180_000);
});

describe('on an S3-protocol store (s3rver)', () => {
  let service: Service;
  let s3: S3rver;
  let dir: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    dir = await mkdtemp(join(tmpdir(), 'shutter-animate-s3-'));
    s3 = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: 'shots', configs: [] }] });
    const { port } = (await s3.run()) as AddressInfo;
    service = await startService({
      store: true,
      accounts: 'config',
      // The webhook receiver under a name, as a customer's endpoint would be; pages and S3 by address.
      resolve: staticResolver({ 'hooks.test': '127.0.0.1' }),
      env: {
        SHUTTER_STORAGE: 's3',
        SHUTTER_S3_BUCKET: 'shots',
        SHUTTER_S3_ENDPOINT: `http://127.0.0.1:${port}`,
        SHUTTER_S3_FORCE_PATH_STYLE: '1',
        SHUTTER_S3_ACCESS_KEY_ID: 'S3RVER',
        SHUTTER_S3_SECRET_ACCESS_KEY: 'S3RVER',
        SHUTTER_JOB_CONCURRENCY: '1',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('async=1 answers 202 and the job ends as a stored video, charged once, with a signed webhook', async () => {
    const before = await used(service);
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/animate',
      headers: { apikey: service.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({
        ...box(),
        format: 'mp4',
        scenario: 'scroll',
        async: true,
        external_id: 'video-1',
        webhook_url: receiver.url().replace('127.0.0.1', 'hooks.test'),
      }),
    });
    expect(res.statusCode, res.body).toBe(202);
    const created = res.json() as Json;
    expect(created).toMatchObject({ status: 'queued', job_id: expect.stringMatching(/^job_/) });
    const job = await waitJob(service, created.job_id as string);
    expect(job.error).toBeNull();
    expect(job).toMatchObject({ status: 'succeeded', external_id: 'video-1' });
    expect(job.result).toMatchObject({ format: 'mp4', content_type: 'video/mp4' });
    expect(job.result.url).toContain('/shots/');
    expect(job.result.url).toContain('X-Amz-Signature=');
    const file = await download(service, job.result.url as string);
    expect(file.status).toBe(200);
    expect(file.type).toBe('video/mp4');
    expect(file.body.length).toBe(job.result.size);
    const info = await probe(file.body);
    expect(info).toMatchObject({ codec: 'h264', width: 320, height: 200, rate: '4/1', frames: 4 });
    expect(Math.abs(info.duration - 1)).toBeLessThanOrEqual(0.25);
    expect(await used(service)).toBe(before + 1);

    await receiver.until((hooks) => hooks.length > 0, 60_000);
    const [hook] = receiver.received;
    expect(
      verifyWebhook((await status(service)).key.signing_secret as string, hook!.body, String(hook!.headers['x-shutter-signature'])),
    ).toBe(true);
    expect(JSON.parse(hook!.body)).toMatchObject({
      job_id: created.job_id,
      status: 'succeeded',
      external_id: 'video-1',
      result: { format: 'mp4', content_type: 'video/mp4', url: job.result.url },
    });
  }, 180_000);

  it('an async animation that fails is a failed job, not charged', async () => {
    const before = await used(service);
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/animate',
      headers: { apikey: service.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ ...box(), scenario: 'scroll', scroll_till_selector: '#nowhere', async: true }),
    });
    expect(res.statusCode, res.body).toBe(202);
    const job = await waitJob(service, (res.json() as Json).job_id as string);
    expect(job.status).toBe('failed');
    expect(job.error.code).toBe('selector_not_found');
    expect(job.result).toBeNull();
    expect(await used(service)).toBe(before);
  }, 180_000);

  it('upload=1 puts the video in the bucket and answers a presigned link that serves it', async () => {
    const res = await animate(service, { ...box(), format: 'gif', upload: true });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Json;
    expect(body).toMatchObject({ format: 'gif', content_type: 'image/gif' });
    expect(body.url).toContain('X-Amz-Signature=');
    const file = await download(service, body.url as string);
    expect(file.status).toBe(200);
    expect(file.type).toBe('image/gif');
    expect(await probe(file.body)).toMatchObject({ codec: 'gif', width: 320, height: 200, frames: 4 });
  }, 120_000);
});
