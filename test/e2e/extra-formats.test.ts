import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/usage/period.js';
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

  it('refuses what cannot work, naming extra_formats, and charges nothing', async () => {
    const before = await used();
    for (const [body, text] of [
      [{ extra_formats: ['pdf'] }, 'needs response_type=json'],
      [{ extra_formats: ['png'], response_type: 'json' }, 'format already'],
      [{ extra_formats: ['pdf', 'pdf'], response_type: 'json' }, 'twice'],
      [{ extra_formats: ['jpg', 'webp', 'avif', 'gif', 'pdf'], response_type: 'json' }, 'at most 4'],
      [{ extra_formats: ['mp4'], response_type: 'json' }, 'extra_formats'],
      [{ extra_formats: ['pdf'], response_type: 'json', cache: true }, 'cache'],
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
