// Retries, timeouts and errors against small local HTTP servers scripted per request, and a real
// Shutter whose plan has no captures left (429 quota_exceeded, no browser needed).
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ShutterClient, ShutterError } from '../src/index.js';
import { startShutter, type RunningShutter } from './helpers/shutter.js';
import { sendBytes, sendError, sendJson, startStub, type Stub, type StubHandler } from './helpers/stub-server.js';

const BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const KEY = 'shk_test_key';

let stubs: Stub[] = [];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutter-client-retries-'));
});

afterEach(async () => {
  await Promise.all(stubs.map((s) => s.close()));
  stubs = [];
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function stub(handler: StubHandler): Promise<Stub> {
  const s = await startStub(handler);
  stubs.push(s);
  return s;
}

const clientFor = (s: Stub, options: Partial<ConstructorParameters<typeof ShutterClient>[0]> = {}) =>
  new ShutterClient({ apiKey: KEY, baseUrl: s.baseUrl, ...options });

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject');
}

describe('requests', () => {
  it('authenticate with the apikey header only, and send the options as a JSON body', async () => {
    const s = await stub((_req, res) => sendBytes(res, BYTES));
    await clientFor(s).take({ url: 'https://example.com', full_page: true, hide_selectors: ['.a', '.b'] });
    const [req] = s.requests;
    expect(req).toMatchObject({ method: 'POST', url: '/v1/take' });
    expect(req!.headers.apikey).toBe(KEY);
    expect(req!.headers.authorization).toBeUndefined();
    expect(req!.url).not.toContain('apikey');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.body)).toEqual({ url: 'https://example.com', full_page: true, hide_selectors: ['.a', '.b'] });
    expect(req!.headers['user-agent']).toMatch(/^shutter-client-typescript\/\d+\.\d+\.\d+/);
  });

  it('accept a base URL with a trailing slash or /v1', async () => {
    const s = await stub((_req, res) => sendJson(res, 200, { devices: [] }));
    await new ShutterClient({ apiKey: KEY, baseUrl: `${s.baseUrl}/v1/` }).devices();
    await new ShutterClient({ apiKey: KEY, baseUrl: `${s.baseUrl}/` }).devices();
    expect(s.requests.map((r) => r.url)).toEqual(['/v1/devices', '/v1/devices']);
  });
});

describe('retries', () => {
  it('retry a 503 after its Retry-After, then answer the 200', async () => {
    const s = await stub((_req, res, n) => (n === 0 ? sendError(res, 503, 'overloaded', { 'retry-after': '1' }) : sendBytes(res, BYTES)));
    const bytes = await clientFor(s).take({ url: 'https://example.com' });
    expect([...bytes]).toEqual([...BYTES]);
    expect(s.requests).toHaveLength(2);
    const gap = s.requests[1]!.at - s.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(950);
    expect(gap).toBeLessThan(3000);
    expect(s.requests[1]!.body).toBe(s.requests[0]!.body);
  });

  it('retry a 429 too, and an HTTP-date Retry-After', async () => {
    const s = await stub((_req, res, n) =>
      n === 0
        ? sendError(res, 429, 'rate_limited', { 'retry-after': new Date(Date.now() + 1000).toUTCString() })
        : sendJson(res, 200, { devices: [{ name: 'x' }] }),
    );
    expect(await clientFor(s).devices()).toEqual([{ name: 'x' }]);
    expect(s.requests).toHaveLength(2);
  });

  it('never retry a 400, and surface it as a ShutterError', async () => {
    const s = await stub((_req, res) => sendError(res, 400, 'invalid_parameter', {}, 'req-400'));
    const e = (await rejectionOf(clientFor(s).take({ url: 'https://example.com' }))) as ShutterError;
    expect(e).toBeInstanceOf(ShutterError);
    expect(e).toMatchObject({ status: 400, code: 'invalid_parameter', message: 'stub invalid_parameter', requestId: 'req-400' });
    expect(s.requests).toHaveLength(1);
  });

  it('never retry other statuses: 401, 404, 500, 504', async () => {
    for (const [status, code] of [
      [401, 'invalid_api_key'],
      [404, 'not_found'],
      [500, 'internal_error'],
      [504, 'capture_timeout'],
    ] as const) {
      const s = await stub((_req, res) => sendError(res, status, code, { 'retry-after': '0' }));
      expect(await rejectionOf(clientFor(s).status())).toMatchObject({ status, code });
      expect(s.requests).toHaveLength(1);
    }
  });

  it('stop after maxRetries and surface the last answer', async () => {
    const s = await stub((_req, res) => sendError(res, 503, 'overloaded', { 'retry-after': '0' }));
    const e = (await rejectionOf(clientFor(s, { maxRetries: 2 }).status())) as ShutterError;
    expect(e).toMatchObject({ status: 503, code: 'overloaded', retryAfter: 0 });
    expect(s.requests).toHaveLength(3);
  });

  it('answer at once when Retry-After would pass maxRetryTimeMs (a quota that resets next month)', async () => {
    const s = await stub((_req, res) => sendError(res, 429, 'quota_exceeded', { 'retry-after': '86400' }));
    const started = Date.now();
    const e = (await rejectionOf(clientFor(s, { maxRetryTimeMs: 5000 }).take({ url: 'https://example.com' }))) as ShutterError;
    expect(e).toMatchObject({ status: 429, code: 'quota_exceeded', retryAfter: 86400 });
    expect(s.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('retry a connection reset by the server', async () => {
    const s = await stub((req, res, n) => (n === 0 ? req.socket.destroy() : sendBytes(res, BYTES)));
    const bytes = await clientFor(s).take({ url: 'https://example.com' });
    expect(bytes.length).toBe(BYTES.length);
    expect(s.requests).toHaveLength(2);
  });

  it('give up on resets after maxRetries with a ShutterError network_error', async () => {
    const s = await stub((req) => req.socket.destroy());
    const e = (await rejectionOf(clientFor(s, { maxRetries: 1 }).status())) as ShutterError;
    expect(e).toBeInstanceOf(ShutterError);
    expect(e).toMatchObject({ status: 0, code: 'network_error' });
    expect(s.requests).toHaveLength(2);
  });

  it('do not retry with maxRetries: 0', async () => {
    const s = await stub((_req, res) => sendError(res, 503, 'overloaded', { 'retry-after': '0' }));
    await rejectionOf(clientFor(s, { maxRetries: 0 }).status());
    expect(s.requests).toHaveLength(1);
  });

  it('send the same Idempotency-Key on every try of jobs.create, so a retry never queues twice', async () => {
    const s = await stub((_req, res, n) =>
      n === 0
        ? sendError(res, 503, 'overloaded', { 'retry-after': '0' })
        : sendJson(res, 202, { job_id: 'j1', status: 'queued', status_url: '/v1/jobs/j1', request_id: 'r' }),
    );
    const created = await clientFor(s).jobs.create({ url: 'https://example.com', webhook_url: 'https://hooks.example.com/x' });
    expect(created).toMatchObject({ job_id: 'j1', status: 'queued' });
    expect(s.requests).toHaveLength(2);
    const [first, second] = s.requests;
    expect(first!.headers['idempotency-key']).toMatch(/.{16,}/);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(JSON.parse(first!.body)).toEqual({ url: 'https://example.com', webhook_url: 'https://hooks.example.com/x', async: true });

    await clientFor(s).jobs.create({ url: 'https://example.com' }, { idempotencyKey: 'mine-1' });
    expect(s.requests[2]!.headers['idempotency-key']).toBe('mine-1');
  });
});

describe('timeouts and cancelling', () => {
  const hang: StubHandler = () => undefined;

  it('a call that gets no answer ends at its timeout with a ShutterError timeout', async () => {
    const s = await stub(hang);
    const started = Date.now();
    const e = (await rejectionOf(clientFor(s, { timeoutMs: 400 }).status())) as ShutterError;
    expect(e).toBeInstanceOf(ShutterError);
    expect(e).toMatchObject({ status: 0, code: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('the per-call timeout overrides the client’s, and covers the waits between retries', async () => {
    const s = await stub((_req, res) => sendError(res, 503, 'overloaded', { 'retry-after': '10' }));
    const started = Date.now();
    const e = (await rejectionOf(clientFor(s, { timeoutMs: 60_000 }).status({ timeoutMs: 500 }))) as ShutterError;
    expect(e.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('an AbortSignal ends a call at once, during a request or a Retry-After wait', async () => {
    const s = await stub(hang);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const e = await rejectionOf(clientFor(s).status({ signal: controller.signal }));
    expect((e as Error).name).toBe('AbortError');

    const waiting = await stub((_req, res) => sendError(res, 503, 'overloaded', { 'retry-after': '10' }));
    const c2 = new AbortController();
    setTimeout(() => c2.abort(new Error('enough')), 200);
    const started = Date.now();
    expect(await rejectionOf(clientFor(waiting).status({ signal: c2.signal }))).toMatchObject({ message: 'enough' });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(waiting.requests).toHaveLength(1);
  });
});

describe('answers that are not Shutter’s', () => {
  it('an HTML error page from a proxy is a ShutterError unexpected_response with the status', async () => {
    const s = await stub((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    });
    const e = (await rejectionOf(clientFor(s).status())) as ShutterError;
    expect(e).toMatchObject({ status: 502, code: 'unexpected_response' });
    expect(e.message).toMatch(/502 Bad Gateway/);
  });

  it('a 200 that is not JSON where JSON is due is a ShutterError unexpected_response', async () => {
    const s = await stub((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('hello');
    });
    expect(await rejectionOf(clientFor(s).status())).toMatchObject({ status: 200, code: 'unexpected_response' });
  });
});

describe('jobs and bulk (client side)', () => {
  it('jobs.wait polls until the job succeeds', async () => {
    const states = ['queued', 'running', 'succeeded'];
    const s = await stub((_req, res, n) =>
      sendJson(res, 200, {
        job_id: 'j1',
        status: states[Math.min(n, 2)],
        result: n >= 2 ? { url: 'http://x/f.png', format: 'png', content_type: 'image/png', size: 1, expires_at: 'z' } : null,
        error: null,
      }),
    );
    const job = await clientFor(s).jobs.wait('j1', { intervalMs: 50 });
    expect(job.status).toBe('succeeded');
    expect(s.requests.map((r) => r.url)).toEqual(['/v1/jobs/j1', '/v1/jobs/j1', '/v1/jobs/j1']);
  });

  it('jobs.wait rejects with the job’s error when it fails, and with timeout when it takes too long', async () => {
    const failed = await stub((_req, res) =>
      sendJson(res, 200, { job_id: 'j2', status: 'failed', result: null, error: { code: 'navigation_failed', message: 'DNS' } }),
    );
    const e = (await rejectionOf(clientFor(failed).jobs.wait('j2'))) as ShutterError;
    expect(e).toMatchObject({ status: 0, code: 'navigation_failed', message: 'DNS' });

    const slow = await stub((_req, res) => sendJson(res, 200, { job_id: 'j3', status: 'running', result: null, error: null }));
    const started = Date.now();
    expect(await rejectionOf(clientFor(slow).jobs.wait('j3', { timeoutMs: 300, intervalMs: 50 }))).toMatchObject({ code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('bulk posts requests, defaults and webhook_url with an Idempotency-Key', async () => {
    const s = await stub((_req, res) => sendJson(res, 202, { jobs: [{ job_id: 'a' }, { job_id: 'b' }], request_id: 'r' }));
    const result = await clientFor(s).bulk({
      requests: [{ url: 'https://a.example' }, { url: 'https://b.example', format: 'jpg' }],
      defaults: { full_page: true },
      webhookUrl: 'https://hooks.example.com/x',
    });
    expect(result.jobs.map((j) => j.job_id)).toEqual(['a', 'b']);
    const [req] = s.requests;
    expect(req!.url).toBe('/v1/bulk');
    expect(req!.headers['idempotency-key']).toBeTruthy();
    expect(JSON.parse(req!.body)).toEqual({
      requests: [{ url: 'https://a.example' }, { url: 'https://b.example', format: 'jpg' }],
      defaults: { full_page: true },
      webhook_url: 'https://hooks.example.com/x',
    });
  });
});

describe('takeToFile (client side)', () => {
  it('leaves no file behind when the body breaks off', async () => {
    const s = await stub((req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 1_000_000 });
      res.write(Buffer.alloc(64 * 1024, 1));
      setTimeout(() => req.socket.destroy(), 50);
    });
    const path = join(dir, 'broken.png');
    const e = await rejectionOf(clientFor(s).takeToFile({ url: 'https://example.com' }, path));
    expect(e).toBeInstanceOf(Error);
    expect(await readdir(dir)).not.toContain('broken.png');
    expect((await readdir(dir)).filter((f) => f.startsWith('broken.png'))).toEqual([]);
  });

  it('replaces a file only once the new one is complete', async () => {
    const path = join(dir, 'replace.png');
    await writeFile(path, 'old');
    const s = await stub((_req, res) => sendBytes(res, BYTES));
    const result = await clientFor(s).takeToFile({ url: 'https://example.com' }, path);
    expect(result).toMatchObject({ path, size: BYTES.length, contentType: 'image/png', requestId: 'stub-ok', truncated: false });
  });
});

describe('a real Shutter over its rate limit', () => {
  let shutter: RunningShutter;

  beforeAll(async () => {
    // No capture reaches the browser here. (The harness's in-memory accounts ignore SHUTTER_PLANS_FILE,
    // so a plan without quota cannot be set up; the per-minute rate limit gives the real 429 instead.)
    shutter = await startShutter({ startBrowser: false });
  });

  afterAll(async () => {
    await shutter?.close();
  });

  it('answers 429 rate_limited: a ShutterError with Retry-After and the request id, at once when the wait is past the budget', async () => {
    const client = new ShutterClient({ apiKey: shutter.apiKey, baseUrl: shutter.baseUrl, maxRetryTimeMs: 500 });
    const { rate_limit } = await client.status();
    // Use up the rest of this minute's requests.
    for (let i = 0; i < rate_limit.remaining + 5; i++) {
      const res = await fetch(`${shutter.baseUrl}/v1/status`, { headers: { apikey: shutter.apiKey } });
      await res.body?.cancel();
      if (res.status === 429) break;
    }
    const started = Date.now();
    const e = (await rejectionOf(client.take({ url: 'https://example.com' }, { requestId: 'limit-1' }))) as ShutterError;
    expect(e).toBeInstanceOf(ShutterError);
    expect(e.status).toBe(429);
    expect(e.code).toBe('rate_limited');
    expect(e.message).toEqual(expect.any(String));
    expect(e.requestId).toBe('limit-1');
    expect(e.retryAfter).toBeGreaterThan(0.5);
    expect(e.headers?.get('ratelimit-remaining')).toBe('0');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
