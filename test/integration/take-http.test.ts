import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import type * as PinoModule from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/errors/app-error.js';
import type { ErrorCode } from '../../src/errors/error-codes.js';
import { buildTestApp, sampleFile, samplePng, type TestApp } from '../helpers/stub-engine.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let t: TestApp;

beforeEach(async () => {
  t = await buildTestApp();
});

afterEach(async () => {
  await t.app.close();
  t.keys.close();
});

const query = (params: Array<[string, string]> | Record<string, string>) => new URLSearchParams(params).toString();

function get(params: Array<[string, string]> | Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url: `/v1/take?${query(params)}`, headers: { apikey: t.key, ...headers } });
}

function postJson(body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/take',
    headers: { apikey: t.key, 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

interface ErrorBody {
  error: { code: string; message: string; details?: Array<Record<string, unknown>> };
  request_id: string;
}

/** Asserts the error contract: status, JSON body shape, code, and the request id in header and body. */
function expectError(res: LightMyRequestResponse, status: number, code: ErrorCode): ErrorBody {
  expect(res.statusCode, res.payload).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as ErrorBody;
  expect(Object.keys(body).sort()).toEqual(['error', 'request_id']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  const requestId = res.headers['x-request-id'];
  expect(typeof requestId).toBe('string');
  expect(requestId).not.toBe('');
  expect(body.request_id).toBe(requestId);
  return body;
}

describe('options reach the engine', () => {
  it('GET parses query parameters into typed options with defaults', async () => {
    const res = await get([
      ['url', 'https://example.com/page?x=1'],
      ['format', 'jpeg'],
      ['quality', '55'],
      ['full_page', '1'],
      ['block_ads', 'true'],
      ['block_chats', '0'],
      ['block_cookie_banners', 'false'],
      ['viewport_width', '1024'],
      ['device_scale_factor', '1.5'],
      ['wait_until', 'networkidle'],
      ['delay', '0.5'],
      ['hide_selectors[]', '.ad'],
      ['hide_selectors[]', '#cookie > .banner'],
    ]);
    expect(res.statusCode, res.payload).toBe(200);
    expect(t.engine.calls).toHaveLength(1);
    expect(t.engine.last).toMatchObject({
      url: 'https://example.com/page?x=1',
      format: 'jpg',
      quality: 55,
      full_page: true,
      block_ads: true,
      block_chats: false,
      block_cookie_banners: false,
      viewport_width: 1024,
      viewport_height: 800,
      device_scale_factor: 1.5,
      wait_until: 'networkidle0',
      delay: 0.5,
      timeout: 60,
      upload: false,
      hide_selectors: ['.ad', '#cookie > .banner'],
    });
    expect(t.engine.last?.html).toBeUndefined();
  });

  it('GET applies every default when only url is given', async () => {
    const res = await get({ url: 'https://example.com/' });
    expect(res.statusCode).toBe(200);
    expect(t.engine.last).toMatchObject({
      url: 'https://example.com/',
      format: 'png',
      full_page: false,
      viewport_width: 1280,
      viewport_height: 800,
      device_scale_factor: 1,
      wait_until: 'load',
      delay: 0,
      timeout: 60,
      hide_selectors: [],
      block_ads: false,
      block_cookie_banners: false,
      block_chats: false,
    });
  });

  it('GET treats hide_selectors and hide_selectors[] as one parameter', async () => {
    const single = await get([
      ['url', 'https://example.com/'],
      ['hide_selectors', '.one'],
    ]);
    expect(single.statusCode).toBe(200);
    expect(t.engine.last?.hide_selectors).toEqual(['.one']);

    const bracketSingle = await get([
      ['url', 'https://example.com/'],
      ['hide_selectors[]', '.only'],
    ]);
    expect(bracketSingle.statusCode).toBe(200);
    expect(t.engine.last?.hide_selectors).toEqual(['.only']);

    const mixed = await get([
      ['url', 'https://example.com/'],
      ['hide_selectors', '.a'],
      ['hide_selectors[]', '.b'],
      ['hide_selectors[]', '.c'],
    ]);
    expect(mixed.statusCode).toBe(200);
    expect([...(t.engine.last?.hide_selectors ?? [])].sort()).toEqual(['.a', '.b', '.c']);
  });

  it('POST application/json takes typed fields', async () => {
    const res = await postJson({
      url: 'https://example.com/',
      format: 'webp',
      quality: 90,
      full_page: true,
      block_ads: 1,
      block_chats: 0,
      viewport_width: 800,
      viewport_height: 600,
      device_scale_factor: 2,
      hide_selectors: ['.x', '.y'],
      timeout: 30,
    });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(t.engine.last).toMatchObject({
      url: 'https://example.com/',
      format: 'webp',
      quality: 90,
      full_page: true,
      block_ads: true,
      block_chats: false,
      viewport_width: 800,
      viewport_height: 600,
      device_scale_factor: 2,
      hide_selectors: ['.x', '.y'],
      timeout: 30,
    });
  });

  it('POST application/json takes html, whose timeout defaults to 12 s', async () => {
    const res = await postJson({ html: '<h1>Hello</h1>', format: 'pdf', pdf_landscape: 'true', pdf_margin: '10mm' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(t.engine.last).toMatchObject({
      html: '<h1>Hello</h1>',
      format: 'pdf',
      pdf_landscape: true,
      pdf_margin: { top: '10mm', right: '10mm', bottom: '10mm', left: '10mm' },
      pdf_print_background: true,
      timeout: 12,
    });
    expect(t.engine.last?.url).toBeUndefined();
  });

  it('POST application/x-www-form-urlencoded takes the same fields, repeated hide_selectors[] as a list', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/take',
      headers: { apikey: t.key, 'content-type': 'application/x-www-form-urlencoded' },
      payload: query([
        ['url', 'https://example.com/form'],
        ['full_page', 'true'],
        ['block_cookie_banners', '1'],
        ['viewport_height', '900'],
        ['hide_selectors[]', '.a'],
        ['hide_selectors[]', '.b'],
      ]),
    });
    expect(res.statusCode, res.payload).toBe(200);
    expect(t.engine.last).toMatchObject({
      url: 'https://example.com/form',
      full_page: true,
      block_cookie_banners: true,
      viewport_height: 900,
      hide_selectors: ['.a', '.b'],
    });
  });

  it('POST lets body fields win over query parameters', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/take?format=jpg&viewport_width=500',
      headers: { apikey: t.key },
      payload: { url: 'https://example.com/', format: 'png' },
    });
    expect(res.statusCode).toBe(200);
    expect(t.engine.last).toMatchObject({ format: 'png', viewport_width: 500 });
  });
});

describe('successful response', () => {
  it('sends the file with Content-Type, Content-Length, inline Content-Disposition and Server-Timing', async () => {
    const png = await samplePng();
    const res = await get({ url: 'https://example.com/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.rawPayload.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(res.rawPayload.equals(png)).toBe(true);
    expect(res.headers['content-length']).toBe(String(png.length));
    expect(res.headers['content-disposition']).toBe('inline; filename="screenshot.png"');
    expect(res.headers['server-timing']).toMatch(/(^|, )capture;dur=\d+(\.\d+)?(,|$)/);
    expect(res.headers['server-timing']).toMatch(/(^|, )queue;dur=\d+(\.\d+)?(,|$)/);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.headers['x-shutter-truncated']).toBeUndefined();
  });

  it('names the inline file after the format', async () => {
    const jpg = await get({ url: 'https://example.com/', format: 'jpg' });
    expect(jpg.headers['content-type']).toBe('image/jpeg');
    expect(jpg.headers['content-disposition']).toBe('inline; filename="screenshot.jpg"');
    expect(jpg.rawPayload.equals(await sampleFile('jpg'))).toBe(true);

    const md = await get({ url: 'https://example.com/', format: 'md' });
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(md.headers['content-disposition']).toBe('inline; filename="screenshot.md"');
    expect(t.engine.last?.format).toBe('markdown');
  });

  it('makes attachment_name an attachment and appends the extension', async () => {
    const res = await get({ url: 'https://example.com/', attachment_name: 'report' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="report.png"');

    const jpg = await get({ url: 'https://example.com/', format: 'jpeg', attachment_name: 'holiday' });
    expect(jpg.headers['content-disposition']).toBe('attachment; filename="holiday.jpg"');
  });

  it('keeps an extension that is already there (any case)', async () => {
    const res = await get({ url: 'https://example.com/', attachment_name: 'Shot.PNG' });
    expect(res.headers['content-disposition']).toBe('attachment; filename="Shot.PNG"');
    const other = await get({ url: 'https://example.com/', attachment_name: 'shot.jpg' });
    expect(other.headers['content-disposition']).toBe('attachment; filename="shot.jpg.png"');
  });

  it('adds an RFC 6266 filename* for a non-ASCII attachment_name', async () => {
    const res = await get({ url: 'https://example.com/', attachment_name: 'résumé 日本' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="r_sum_ __.png"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%E6%97%A5%E6%9C%AC.png`,
    );
  });

  it('rejects an attachment_name with a path separator', async () => {
    const res = await get({ url: 'https://example.com/', attachment_name: '../etc/passwd' });
    const body = expectError(res, 400, 'invalid_parameter');
    expect(body.error.details?.map((d) => d.parameter)).toEqual(['attachment_name']);
    expect(t.engine.calls).toHaveLength(0);
  });

  it('says when a full-page capture was cut at the height cap', async () => {
    t.engine.truncated = 'height';
    const res = await get({ url: 'https://example.com/', full_page: '1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-shutter-truncated']).toBe('height');
  });

  it('records that the key was used', async () => {
    expect((await t.keys.findActive(t.key))?.lastUsedAt).toBeNull();
    await get({ url: 'https://example.com/' });
    expect((await t.keys.findActive(t.key))?.lastUsedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('rewrites the last use at most once a minute (one write less on most requests)', async () => {
    const setLastUse = (at: string) =>
      t.accounts.db.kysely.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', t.record.id).execute();
    const lastUse = async () => (await t.keys.findActive(t.key))?.lastUsedAt;
    const recent = new Date(Date.now() - 30_000).toISOString();
    await setLastUse(recent);
    await get({ url: 'https://example.com/' });
    expect(await lastUse()).toBe(recent);
    const old = new Date(Date.now() - 61_000).toISOString();
    await setLastUse(old);
    await get({ url: 'https://example.com/' });
    await vi.waitFor(async () => expect(Date.parse((await lastUse())!)).toBeGreaterThan(Date.now() - 5_000));
  });
});

describe('X-Request-Id', () => {
  it('echoes a safe caller id on success and in error bodies', async () => {
    const ok = await get({ url: 'https://example.com/' }, { 'x-request-id': 'client-req_1.2:3' });
    expect(ok.headers['x-request-id']).toBe('client-req_1.2:3');

    const bad = await get({ url: 'ftp://example.com/' }, { 'x-request-id': 'client-req_2' });
    const body = expectError(bad, 400, 'invalid_parameter');
    expect(body.request_id).toBe('client-req_2');
  });

  it('accepts exactly 128 characters', async () => {
    const id = 'a'.repeat(128);
    const res = await get({ url: 'https://example.com/' }, { 'x-request-id': id });
    expect(res.headers['x-request-id']).toBe(id);
  });

  it('replaces an unsafe or too long caller id with a new one', async () => {
    for (const unsafe of ['a'.repeat(129), 'b'.repeat(300), 'has spaces in it', 'semi;colon', '<script>']) {
      const res = await get({ url: 'https://example.com/' }, { 'x-request-id': unsafe });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-request-id']).not.toBe(unsafe);
      expect(res.headers['x-request-id']).toMatch(UUID);
    }
  });

  it('gives each request its own id when the caller sends none', async () => {
    const a = await get({ url: 'https://example.com/' });
    const b = await get({ url: 'https://example.com/' });
    expect(a.headers['x-request-id']).toMatch(UUID);
    expect(b.headers['x-request-id']).toMatch(UUID);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});

describe('validation errors', () => {
  it('reports every problem of a request together', async () => {
    const res = await get({
      url: 'ftp://example.com/',
      viewport_width: '50',
      delay: 'abc',
      wait_until: 'never',
    });
    const body = expectError(res, 400, 'invalid_parameter');
    const details = body.error.details!;
    expect(details.map((d) => d.parameter).sort()).toEqual(['delay', 'url', 'viewport_width', 'wait_until']);
    for (const d of details) {
      expect(d.code).toBe('invalid_parameter');
      expect(typeof d.message).toBe('string');
    }
    expect(details.find((d) => d.parameter === 'viewport_width')?.value).toBe('50');
    expect(body.error.message).toMatch(/^(delay|url|viewport_width|wait_until): .*\(and 3 more problems\)$/);
    expect(t.engine.calls).toHaveLength(0);
  });

  it('answers missing_source when neither url nor html is given', async () => {
    const body = expectError(await get({ format: 'png' }), 400, 'missing_source');
    expect(body.error.details?.[0]).toMatchObject({ code: 'missing_source' });
  });

  it('answers conflicting_source when both url and html are given', async () => {
    const body = expectError(await postJson({ url: 'https://example.com/', html: '<p>x</p>' }), 400, 'conflicting_source');
    expect(body.error.details?.map((d) => d.code)).toEqual(['conflicting_source']);
  });

  it('answers parameter_not_applicable for quality with png', async () => {
    const body = expectError(await get({ url: 'https://example.com/', quality: '50' }), 400, 'parameter_not_applicable');
    expect(body.error.details).toEqual([expect.objectContaining({ code: 'parameter_not_applicable', parameter: 'quality' })]);
  });

  it('answers unknown_parameter with a suggestion and keeps the other problems', async () => {
    const res = await get({ url: 'https://example.com/', widht: '800', quality: '50' });
    const body = expectError(res, 400, 'unknown_parameter');
    const details = body.error.details!;
    expect(details).toHaveLength(2);
    expect(details).toContainEqual(
      expect.objectContaining({ code: 'unknown_parameter', parameter: 'widht', suggestion: 'viewport_width' }),
    );
    expect(details).toContainEqual(expect.objectContaining({ code: 'parameter_not_applicable', parameter: 'quality' }));
    expect(body.error.message).toContain('(and 1 more problem)');
  });

  it('validates POST JSON fields by type', async () => {
    const res = await postJson({ url: 'https://example.com/', full_page: 'yes', hide_selectors: 5, viewport_width: 10.5 });
    const body = expectError(res, 400, 'invalid_parameter');
    expect(body.error.details?.map((d) => d.parameter).sort()).toEqual(['full_page', 'hide_selectors', 'viewport_width']);
    expect(t.engine.calls).toHaveLength(0);
  });

  it('rejects an invalid hide selector', async () => {
    const res = await get([
      ['url', 'https://example.com/'],
      ['hide_selectors[]', '.ok'],
      ['hide_selectors[]', 'div[['],
    ]);
    const body = expectError(res, 400, 'invalid_parameter');
    expect(body.error.details).toEqual([expect.objectContaining({ parameter: 'hide_selectors', value: 'div[[' })]);
  });
});

describe('engine errors', () => {
  const cases: Array<{ code: ErrorCode; status: number; retryAfter?: number }> = [
    { code: 'capture_timeout', status: 504 },
    { code: 'overloaded', status: 503, retryAfter: 5 },
    { code: 'browser_unavailable', status: 503, retryAfter: 10 },
    { code: 'target_forbidden', status: 403 },
    { code: 'navigation_failed', status: 422 },
    { code: 'selector_invalid', status: 422 },
  ];

  for (const { code, status, retryAfter } of cases) {
    it(`maps ${code} to ${status}`, async () => {
      const message = `stub says ${code}`;
      t.engine.error = new AppError(code, message, retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter });
      const res = await get({ url: 'https://example.com/' }, { 'x-request-id': `req-${code}` });
      const body = expectError(res, status, code);
      expect(body.error.message).toBe(message);
      expect(body.request_id).toBe(`req-${code}`);
      if (retryAfter === undefined) {
        expect(res.headers['retry-after']).toBeUndefined();
      } else {
        expect(res.headers['retry-after']).toBe(String(retryAfter));
      }
      expect(res.headers['content-disposition']).toBeUndefined();
      expect(t.engine.calls).toHaveLength(1);
    });
  }

  it('does not mark the key as used when the capture fails', async () => {
    t.engine.error = new AppError('capture_timeout', 'too slow');
    await get({ url: 'https://example.com/' });
    expect((await t.keys.findActive(t.key))?.lastUsedAt).toBeNull();
  });

  it('answers an unexpected engine Error with 500 internal_error and does not leak it', async () => {
    const secret = 'ECONNRESET talking to /srv/secret-chromium at 10.1.2.3';
    t.engine.error = new Error(secret);
    const res = await get({ url: 'https://example.com/' });
    const body = expectError(res, 500, 'internal_error');
    expect(res.payload).not.toContain('ECONNRESET');
    expect(res.payload).not.toContain('secret-chromium');
    expect(res.payload).not.toContain('10.1.2.3');
    expect(body.error.details).toBeUndefined();
  });

  it('answers an engine error carrying its own statusCode with 500, not that status', async () => {
    t.engine.error = Object.assign(new TypeError('cannot read x of undefined'), { statusCode: 404, code: 'ERR_X' });
    const res = await get({ url: 'https://example.com/' });
    expectError(res, 500, 'internal_error');
    expect(res.payload).not.toContain('cannot read');
  });

  // KNOWN SRC BUG: toErrorResponse reads `.code` of the rejection value (src/http/error-response.ts), which
  // throws for null/undefined; Fastify's default handler then answers in its own format and leaks
  // "Cannot read properties of null (reading 'code')". Turn this back into `it` once fixed.
  it('answers a rejection with null with 500 internal_error in the error format', async () => {
    t.engine.error = null;
    const res = await get({ url: 'https://example.com/' });
    expectError(res, 500, 'internal_error');
    expect(res.payload).not.toContain('Cannot read properties');
  });

  it('answers a rejection with a non-Error value with 500 internal_error', async () => {
    t.engine.error = 'a bare string';
    const res = await get({ url: 'https://example.com/' });
    expectError(res, 500, 'internal_error');
    expect(res.payload).not.toContain('bare string');
  });
});

describe('body errors', () => {
  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await postJson('{"url": "https://example.com/",');
    expectError(res, 400, 'invalid_json');
    expect(t.engine.calls).toHaveLength(0);
  });

  it('answers an empty JSON body with 400 invalid_json', async () => {
    const res = await postJson('');
    expectError(res, 400, 'invalid_json');
  });

  // KNOWN SRC BUG: Fastify's built-in text/plain parser is still registered (src/http/app.ts), so the
  // text body is accepted as a string, ignored, and the request fails as 400 missing_source instead.
  // Turn this back into `it` once the app removes that parser.
  it('answers a text/plain body with 415 unsupported_media_type', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/take',
      headers: { apikey: t.key, 'content-type': 'text/plain' },
      payload: 'url=https://example.com/',
    });
    expectError(res, 415, 'unsupported_media_type');
    expect(t.engine.calls).toHaveLength(0);
  });

  it('answers an application/xml body with 415 unsupported_media_type', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/take',
      headers: { apikey: t.key, 'content-type': 'application/xml' },
      payload: '<take url="https://example.com/"/>',
    });
    expectError(res, 415, 'unsupported_media_type');
  });

  it('answers a JSON body over the limit (about 7 MB) with 413 payload_too_large', async () => {
    const payload = JSON.stringify({ html: 'a'.repeat(7 * 1024 * 1024) });
    const res = await postJson(payload);
    expectError(res, 413, 'payload_too_large');
    expect(t.engine.calls).toHaveLength(0);
  });

  it('answers a form body over the limit with 413 payload_too_large', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/take',
      headers: { apikey: t.key, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `html=${'a'.repeat(7 * 1024 * 1024)}`,
    });
    expectError(res, 413, 'payload_too_large');
  });

  it('accepts html just under 5 MB in a JSON body', async () => {
    const html = `<p>${'a'.repeat(5 * 1024 * 1024 - 100)}</p>`;
    const res = await postJson({ html });
    expect(res.statusCode, res.payload.slice(0, 300)).toBe(200);
    expect(t.engine.last?.html).toHaveLength(html.length);
  });
});

describe('routing errors', () => {
  it('answers an unknown route with 404 not_found JSON', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/nope?apikey=x' });
    const body = expectError(res, 404, 'not_found');
    expect(body.error.message).not.toContain('apikey');
    expectError(await t.app.inject({ method: 'GET', url: '/' }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'POST', url: '/v2/take', payload: {} }), 404, 'not_found');
  });

  it('answers PUT /v1/take with 405 method_not_allowed and an Allow header', async () => {
    const res = await t.app.inject({ method: 'PUT', url: '/v1/take', headers: { apikey: t.key }, payload: {} });
    expectError(res, 405, 'method_not_allowed');
    const allow = String(res.headers.allow)
      .split(',')
      .map((m) => m.trim())
      .sort();
    expect(allow).toEqual(['GET', 'POST']);
    expect(t.engine.calls).toHaveLength(0);
  });

  it('answers HEAD /v1/take with 405 without rendering anything', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/v1/take?url=https://example.com', headers: { apikey: t.key } });
    expect(res.statusCode).toBe(405);
    expect(t.engine.calls).toHaveLength(0);
  });

  it('answers DELETE /v1/status with 405 and Allow: GET, HEAD (query string ignored)', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: `/v1/status?apikey=${t.key}` });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});

describe('GET /v1/status', () => {
  it('describes the key and the engine pool', async () => {
    t.engine.engineStatus = { browser: 'StubChromium/9.9', pool: { size: 4, busy: 1, queued: 3 } };
    const res = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: t.key } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toMatch(UUID);
    const body = res.json();
    expect(body.status).toBe('ok');
    expect(body.version).toBe('test');
    expect(body.key).toEqual({
      id: t.record.id,
      name: 'test',
      prefix: t.key.slice(0, 8),
      created_at: t.record.createdAt,
      last_used_at: null,
      signing_secret: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(body.key.prefix).toMatch(/^shk_/);
    expect(body.service).toEqual({ browser: 'StubChromium/9.9', pool: { size: 4, busy: 1, queued: 3 } });
    expect(res.payload).not.toContain(t.key);
  });

  it('shows last_used_at after a capture', async () => {
    await get({ url: 'https://example.com/' });
    const res = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: t.key } });
    expect(res.json().key.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});

describe('logging', () => {
  it('never writes the apikey query value (or header) to the service log', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString());
        callback();
      },
    });
    // The service logger writes to stdout; route its output into `sink` instead.
    vi.resetModules();
    vi.doMock('pino', async (importOriginal) => {
      const actual = await importOriginal<typeof PinoModule>();
      const original = actual.default;
      const wrapped = Object.assign((options: Parameters<typeof original>[0]) => original(options!, sink), original);
      return { ...actual, default: wrapped };
    });
    try {
      const { createLogger } = await import('../../src/observability/logger.js');
      const logged = await buildTestApp({ logger: createLogger('debug') });
      const { app, key, engine } = logged;
      const secretQuery = `apikey=${key}`;
      try {
        expect((await app.inject({ method: 'GET', url: `/v1/take?url=https%3A%2F%2Fexample.com%2F&${secretQuery}` })).statusCode).toBe(200);
        expect((await app.inject({ method: 'GET', url: `/v1/take?${secretQuery}&url=ftp%3A%2F%2Fx` })).statusCode).toBe(400);
        expect((await app.inject({ method: 'GET', url: `/v1/nowhere?${secretQuery}` })).statusCode).toBe(404);
        expect((await app.inject({ method: 'PUT', url: `/v1/take?${secretQuery}` })).statusCode).toBe(405);
        expect((await app.inject({ method: 'GET', url: `/v1/status?APIKEY=${key}` })).statusCode).toBe(401);
        expect(
          (await app.inject({ method: 'POST', url: `/v1/take?${secretQuery}`, payload: { url: 'https://example.com/' } })).statusCode,
        ).toBe(200);
        expect((await app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: key } })).statusCode).toBe(200);
        expect((await app.inject({ method: 'GET', url: '/v1/status', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);
        engine.error = new Error('boom');
        expect((await app.inject({ method: 'GET', url: `/v1/take?url=https%3A%2F%2Fexample.com%2F&${secretQuery}` })).statusCode).toBe(500);
      } finally {
        await app.close();
        logged.keys.close();
      }
      const output = lines.join('');
      // The log did record these requests, with the query value redacted.
      expect(output).toContain('/v1/take');
      expect(output).toContain('[REDACTED]');
      expect(output).toContain('unhandled error');
      expect(output).not.toContain(key);
      expect(output).not.toContain(key.slice(4));
    } finally {
      vi.doUnmock('pino');
      vi.resetModules();
    }
  });
});
