import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/jobs/webhook-signature.js';
import { periodOf } from '../../src/usage/period.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { startService, type Service } from './harness.js';

/** extra_formats (DESIGN.md §5.2): one capture of the page, several outputs, one charge. */
let service: Service;
let key: string;
let accountId: string;

const HTML = '<h1>Quarterly report</h1><p>Revenue grew in every region.</p><ul><li>North</li><li>South</li></ul>';

const take = (body: Record<string, unknown>) =>
  service.app.inject({ method: 'POST', url: '/v1/take', headers: { apikey: key }, payload: { html: HTML, ...body } });
const used = () => service.accounts.limits.quota.used(accountId, periodOf(new Date()));

beforeAll(async () => {
  service = await startService({ store: true });
  const created = await service.keys.create({ name: 'extra' });
  key = created.key;
  accountId = created.record.accountId;
});
afterAll(async () => {
  await service?.close();
});

describe('extra_formats', () => {
  it('renders the same page into every output in one capture, charged once', async () => {
    const before = await used();
    const res = await take({
      format: 'png',
      extra_formats: ['markdown', 'pdf', 'jpeg', 'html'],
      response_type: 'json',
      viewport_width: 800,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.format).toBe('png');
    expect(Object.keys(body.extra).sort()).toEqual(['html', 'jpg', 'markdown', 'pdf']);
    expect(body.extra.markdown).toMatchObject({ content_type: 'text/markdown; charset=utf-8' });
    expect(body.extra.markdown.text).toContain('# Quarterly report');
    expect(body.extra.html.text).toContain('<h1>Quarterly report</h1>');
    expect(Buffer.from(body.extra.pdf.data_base64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    const jpg = Buffer.from(body.extra.jpg.data_base64, 'base64');
    expect(body.extra.jpg.size).toBe(jpg.length);
    expect(await sharp(jpg).metadata()).toMatchObject({ format: 'jpeg', width: 800 });
    expect(await sharp(Buffer.from(body.data_base64, 'base64')).metadata()).toMatchObject({ format: 'png', width: 800 });
    expect(await used()).toBe(before + 1);
  });

  it('in a GET query, as one comma list or the parameter repeated', async () => {
    const html = encodeURIComponent(HTML);
    for (const extras of ['extra_formats=png,pdf', 'extra_formats=png&extra_formats=pdf', 'extra_formats[]=png&extra_formats[]=pdf']) {
      const res = await service.app.inject({
        method: 'GET',
        url: `/v1/take?html=${html}&format=markdown&response_type=json&${extras}`,
        headers: { apikey: key },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(Object.keys(res.json().extra), extras).toEqual(['png', 'pdf']);
    }
  });

  it('with upload=1 every output is stored and linked', async () => {
    const res = await take({ format: 'markdown', extra_formats: ['png'], upload: true });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.url).toBeTruthy();
    expect(body.extra.png).toMatchObject({ content_type: 'image/png', url: expect.any(String) });
    const file = await service.app.inject({
      method: 'GET',
      url: new URL(body.extra.png.url).pathname + new URL(body.extra.png.url).search,
    });
    expect(file.statusCode).toBe(200);
    expect((await sharp(file.rawPayload).metadata()).format).toBe('png');
  });

  it('with cache=1 the entry holds every output: MISS charged, HIT the same outputs uncharged; without extras another entry', async () => {
    const cached = { format: 'png', extra_formats: ['markdown', 'pdf'], response_type: 'json', cache: true, cache_key: 'extras-1' };
    const before = await used();
    const miss = await take(cached);
    expect(miss.statusCode, miss.body.slice(0, 300)).toBe(200);
    expect(miss.json().cache).toBe('miss');
    expect(miss.json().extra.markdown.text).toContain('# Quarterly report');
    expect(await used()).toBe(before + 1);
    const hit = await take(cached);
    expect(hit.json().cache).toBe('hit');
    expect(hit.json().extra).toEqual(miss.json().extra);
    expect(hit.json().data_base64).toBe(miss.json().data_base64);
    expect(Buffer.from(hit.json().extra.pdf.data_base64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    expect(await used()).toBe(before + 1);
    // extra_formats is part of the entry's identity: the same capture without them is a capture of its own.
    const alone = await take({ ...cached, extra_formats: undefined });
    expect(alone.json().cache).toBe('miss');
    expect(alone.json().extra).toBeUndefined();
    expect(await used()).toBe(before + 2);
    // And stored with upload=1 from a hit: every output linked.
    const uploaded = await take({ ...cached, response_type: undefined, upload: true });
    expect(uploaded.statusCode).toBe(200);
    expect(uploaded.headers['x-shutter-cache']).toBe('HIT');
    const link = uploaded.json().extra.markdown.url as string;
    const file = await service.app.inject({ method: 'GET', url: new URL(link).pathname + new URL(link).search });
    expect(file.body).toBe(miss.json().extra.markdown.text);
    expect(await used()).toBe(before + 2);
  });

  it('with async=1 the job stores every output, its result and its signed webhook link each one, charged once', async () => {
    const receiver = await startReceiver();
    const before = await used();
    const res = await take({ format: 'jpg', extra_formats: ['html', 'webp'], async: true, webhook_url: receiver.url() });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(202);
    const id = res.json().job_id as string;
    let job: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const deadline = Date.now() + 30_000; ;) {
      job = (await service.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: { apikey: key } })).json();
      if (job.status === 'succeeded' || job.status === 'failed' || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({ format: 'jpg', content_type: 'image/jpeg' });
    expect(Object.keys(job.result.extra).sort()).toEqual(['html', 'webp']);
    const fetchLink = (link: string) => service.app.inject({ method: 'GET', url: new URL(link).pathname + new URL(link).search });
    const html = await fetchLink(job.result.extra.html.url);
    expect(html.statusCode).toBe(200);
    expect(html.body).toContain('<h1>Quarterly report</h1>');
    expect(html.rawPayload.length).toBe(job.result.extra.html.size);
    const webp = await fetchLink(job.result.extra.webp.url);
    expect(await sharp(webp.rawPayload).metadata()).toMatchObject({ format: 'webp' });
    expect(job.result.extra.webp).toMatchObject({ content_type: 'image/webp', size: webp.rawPayload.length });
    // The webhook carries the same result, every extra linked, signed with the key's secret.
    await receiver.until((hooks) => hooks.length > 0);
    const hook = receiver.received[0]!;
    const payload = JSON.parse(hook.body) as typeof job;
    expect(payload).toMatchObject({ job_id: id, status: 'succeeded' });
    expect(payload.result.extra).toEqual(job.result.extra);
    const secret = (await service.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: key } })).json().key
      .signing_secret as string;
    expect(verifyWebhook(secret, hook.body, String(hook.headers['x-shutter-signature']))).toBe(true);
    expect(await used()).toBe(before + 1);
    await receiver.close();
  });

  it('refuses what cannot work, naming extra_formats, and charges nothing', async () => {
    const before = await used();
    for (const [body, text] of [
      [{ extra_formats: ['pdf'] }, 'needs response_type=json'],
      [{ extra_formats: ['png'], response_type: 'json' }, 'format already'],
      [{ extra_formats: ['pdf', 'pdf'], response_type: 'json' }, 'twice'],
      [{ extra_formats: ['jpg', 'webp', 'avif', 'gif', 'pdf'], response_type: 'json' }, 'at most 4'],
      [{ extra_formats: 'jpg,webp,avif,gif,pdf', response_type: 'json' }, 'at most 4'],
      [{ extra_formats: 'jpg,png', response_type: 'json' }, 'format already'],
      [{ extra_formats: ['mp4'], response_type: 'json' }, 'extra_formats'],
    ] as const) {
      const res = await take(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      const error = res.json().error;
      expect(error.details.map((d: { parameter: string }) => d.parameter)).toContain('extra_formats');
      expect(JSON.stringify(error)).toContain(text);
    }
    expect(await used()).toBe(before);
  });
});
