import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { generateApiKey } from '../../src/values/api-key.js';
import { buildTestApp, type TestApp } from '../helpers/stub-engine.js';

const TAKE = '/v1/take?url=https%3A%2F%2Fexample.com%2F';

let t: TestApp;

beforeEach(async () => {
  t = await buildTestApp();
});

afterEach(async () => {
  await t.app.close();
  t.keys.close();
});

/** A key in the right shape (valid checksum) that was never stored. */
function unknownKey(): string {
  const key = generateApiKey();
  expect(key).toMatch(/^shk_[0-9A-Za-z]{38}$/);
  return key;
}

/** The same key with its last checksum character changed. */
function withBadChecksum(key: string): string {
  const last = key.at(-1)!;
  return key.slice(0, -1) + (last === 'A' ? 'B' : 'A');
}

describe('missing key', () => {
  it('answers 401 missing_api_key with a JSON error and a request id', async () => {
    const res = await t.app.inject({ method: 'GET', url: TAKE });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.error.code).toBe('missing_api_key');
    expect(typeof body.error.message).toBe('string');
    expect(body.request_id).toBe(res.headers['x-request-id']);
    expect(t.engine.calls).toHaveLength(0);
  });

  it('is checked before the options, so a bad request without a key is still 401', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/take?quality=999&nonsense=1' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('missing_api_key');
  });

  it('treats an empty apikey header or query value as missing', async () => {
    const header = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: '' } });
    expect(header.statusCode).toBe(401);
    expect(header.json().error.code).toBe('missing_api_key');
    const query = await t.app.inject({ method: 'GET', url: '/v1/status?apikey=' });
    expect(query.statusCode).toBe(401);
    expect(query.json().error.code).toBe('missing_api_key');
  });

  it('protects /v1/status and POST /v1/take too', async () => {
    const status = await t.app.inject({ method: 'GET', url: '/v1/status' });
    expect(status.statusCode).toBe(401);
    expect(status.json().error.code).toBe('missing_api_key');
    const post = await t.app.inject({ method: 'POST', url: '/v1/take', payload: { url: 'https://example.com/' } });
    expect(post.statusCode).toBe(401);
    expect(post.json().error.code).toBe('missing_api_key');
    expect(t.engine.calls).toHaveLength(0);
  });
});

describe('ways to send the key', () => {
  it('accepts the apikey header', async () => {
    const res = await t.app.inject({ method: 'GET', url: TAKE, headers: { apikey: t.key } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(t.engine.calls).toHaveLength(1);
  });

  it('accepts the apikey query parameter (and does not treat it as a capture option)', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${TAKE}&apikey=${t.key}` });
    expect(res.statusCode).toBe(200);
    expect(t.engine.calls).toHaveLength(1);
    expect(t.engine.last).not.toHaveProperty('apikey');
  });

  it('accepts Authorization: Bearer', async () => {
    const res = await t.app.inject({ method: 'GET', url: TAKE, headers: { authorization: `Bearer ${t.key}` } });
    expect(res.statusCode).toBe(200);
    expect(t.engine.calls).toHaveLength(1);
  });

  it('accepts the key on POST /v1/take in the query string', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/take?apikey=${t.key}`,
      payload: { url: 'https://example.com/' },
    });
    expect(res.statusCode).toBe(200);
    expect(t.engine.last?.url).toBe('https://example.com/');
  });

  it('identifies the caller by the key on /v1/status', async () => {
    for (const headers of [{ apikey: t.key }, { authorization: `Bearer ${t.key}` }]) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/status', headers });
      expect(res.statusCode).toBe(200);
      expect(res.json().key.id).toBe(t.record.id);
    }
    const query = await t.app.inject({ method: 'GET', url: `/v1/status?apikey=${t.key}` });
    expect(query.statusCode).toBe(200);
    expect(query.json().key.id).toBe(t.record.id);
  });

  it('accepts a stored key without the shk_ prefix (an operator bootstrap key)', async () => {
    const secret = 'operator-bootstrap-secret-0123456789';
    const { record } = await t.keys.create({ name: 'bootstrap', key: secret });
    const res = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: secret } });
    expect(res.statusCode).toBe(200);
    expect(res.json().key.id).toBe(record.id);
  });
});

describe('rejected keys', () => {
  it('answers 401 invalid_api_key for an unknown key', async () => {
    const res = await t.app.inject({ method: 'GET', url: TAKE, headers: { apikey: unknownKey() } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_api_key');
    expect(t.engine.calls).toHaveLength(0);
  });

  it('answers 401 invalid_api_key for a revoked key, which worked before', async () => {
    const { key, record } = await t.keys.create({ name: 'to-revoke' });
    const before = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: key } });
    expect(before.statusCode).toBe(200);
    expect(await t.keys.revoke(record.id)).toBe(true);
    const after = await t.app.inject({ method: 'GET', url: TAKE, headers: { apikey: key } });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('invalid_api_key');
    expect(t.engine.calls).toHaveLength(0);
  });

  it('gives unknown and revoked keys byte-identical answers apart from the request id', async () => {
    const { key: revoked, record } = await t.keys.create({ name: 'to-revoke' });
    await t.keys.revoke(record.id);
    const ask = (apikey: string, requestId: string) =>
      t.app.inject({ method: 'GET', url: TAKE, headers: { apikey, 'x-request-id': requestId } });

    const unknown = await ask(unknownKey(), 'req-unknown');
    const gone = await ask(revoked, 'req-revoked');
    expect(unknown.statusCode).toBe(401);
    expect(gone.statusCode).toBe(401);
    expect(unknown.json().request_id).toBe('req-unknown');
    expect(gone.json().request_id).toBe('req-revoked');
    expect(unknown.payload.replace('req-unknown', 'ID')).toBe(gone.payload.replace('req-revoked', 'ID'));
    expect(unknown.headers['content-type']).toBe(gone.headers['content-type']);
    expect(unknown.headers['content-length']).toBe(gone.headers['content-length']);

    // With the same request id the bodies are the same bytes.
    const unknown2 = await ask(unknownKey(), 'same-id');
    const gone2 = await ask(revoked, 'same-id');
    expect(unknown2.rawPayload.equals(gone2.rawPayload)).toBe(true);
  });

  it('rejects a shk_ key with a bad checksum with 401 without looking it up', async () => {
    const bad = withBadChecksum(t.key);
    expect(bad).not.toBe(t.key);
    const prepare = vi.spyOn(t.db, 'prepare');
    const res = await t.app.inject({ method: 'GET', url: TAKE, headers: { apikey: bad, 'x-request-id': 'same-id' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_api_key');
    expect(prepare).not.toHaveBeenCalled();
    prepare.mockRestore();

    // Indistinguishable from any other unknown key.
    const unknown = await t.app.inject({
      method: 'GET',
      url: TAKE,
      headers: { apikey: unknownKey(), 'x-request-id': 'same-id' },
    });
    expect(res.payload).toBe(unknown.payload);
  });

  it('rejects a shk_ key of the wrong length', async () => {
    for (const key of [t.key.slice(0, -1), `${t.key}A`, 'shk_']) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: key } });
      expect(res.statusCode, key).toBe(401);
      expect(res.json().error.code).toBe('invalid_api_key');
    }
  });

  it('does not accept a valid key with a different letter case', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: t.key.toUpperCase() } });
    expect(res.statusCode).toBe(401);
  });
});

describe('unauthenticated probes', () => {
  it('serves /healthz without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('serves /healthz even with a wrong key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { apikey: 'nope' } });
    expect(res.statusCode).toBe(200);
  });

  it('serves /readyz without a key and reports the engine state', async () => {
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', browser: true, database: true, limits: { backend: 'memory', ok: true } });
    t.engine.isReady = false;
    const notReady = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toMatchObject({ status: 'not_ready', browser: false, database: true });
  });

  it('/readyz fails when the limits backend (Redis) does not answer', async () => {
    t.accounts.limits.ping = () => Promise.reject(new Error('ECONNREFUSED'));
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'not_ready', browser: true, limits: { ok: false } });
  });
});
