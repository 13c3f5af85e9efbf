import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, TEST_SIGNING_SECRET, type TestApp } from '../helpers/stub-engine.js';

/**
 * Signed links (issue 17, DESIGN.md §4.2): access_key + signature (+ expires) over the raw query
 * string; the secret is HMAC-SHA256(SHUTTER_SIGNING_SECRET, "key:" + key id), computed here
 * independently of the service's code.
 */
let t: TestApp;
afterEach(async () => {
  await t?.app.close();
  await t?.keys.close();
});

const hmac = (key: string, text: string) => createHmac('sha256', key).update(text).digest('hex');
const secretOf = (keyId: string) => hmac(TEST_SIGNING_SECRET, `key:${keyId}`);
const sign = (query: string, keyId: string) => `${query}&signature=${hmac(secretOf(keyId), query)}`;
const get = (query: string) => t.app.inject({ method: 'GET', url: `/v1/take?${query}` });
const used = async () =>
  ((await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: t.key } })).json() as { usage: { used: number } }).usage.used;

describe('signed links', () => {
  it('GET /v1/status shows the key its signing secret, derived from SHUTTER_SIGNING_SECRET and the key id', async () => {
    t = await buildTestApp();
    const status = (await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: t.key } })).json();
    expect(status.key.signing_secret).toBe(secretOf(t.record.id));
  });

  it('a valid link captures without the API key and is charged like any other capture', async () => {
    t = await buildTestApp();
    const before = await used();
    const res = await get(sign(`url=https%3A%2F%2Fexample.com%2F&format=jpg&image_quality=55&access_key=${t.record.id}`, t.record.id));
    expect(res.statusCode, res.body).toBe(200);
    expect(t.engine.last).toMatchObject({ url: 'https://example.com/', format: 'jpg', quality: 55 });
    expect(await used()).toBe(before + 1);
  });

  it('with expires in the future it works; once expired it is 403 signature_invalid', async () => {
    t = await buildTestApp();
    const future = Math.floor(Date.now() / 1000) + 600;
    const past = Math.floor(Date.now() / 1000) - 1;
    expect((await get(sign(`url=https%3A%2F%2Fexample.com%2F&expires=${future}&access_key=${t.record.id}`, t.record.id))).statusCode).toBe(
      200,
    );
    const expired = await get(sign(`url=https%3A%2F%2Fexample.com%2F&expires=${past}&access_key=${t.record.id}`, t.record.id));
    expect(expired.statusCode).toBe(403);
    expect(expired.json().error.code).toBe('signature_invalid');
  });

  it('an altered parameter, reordered parameters, another key’s id and a revoked key all get the same 403', async () => {
    t = await buildTestApp({ plan: 'scale' });
    const id = t.record.id;
    const base = `url=https%3A%2F%2Fexample.com%2F&format=png&access_key=${id}`;
    const good = sign(base, id);
    const other = await t.keys.create({ name: 'other', accountId: t.account.id });
    const refusals = [
      good.replace('format=png', 'format=jpg'), // altered
      good.replace('url=https%3A%2F%2Fexample.com%2F&format=png', 'format=png&url=https%3A%2F%2Fexample.com%2F'), // reordered
      `${base.replace(id, other.record.id)}&signature=${hmac(secretOf(id), base)}`, // another key's id, this key's signature
      `${base}&signature=${'0'.repeat(64)}`,
      `${base}&signature=nothex`,
      `${good}&format=jpg`, // something after the signature
    ];
    for (const query of refusals) {
      const res = await get(query);
      expect(res.statusCode, query).toBe(403);
      expect(res.json().error).toMatchObject({ code: 'signature_invalid' });
    }
    // The other key's own signature works, until it is revoked.
    const otherLink = sign(base.replace(id, other.record.id), other.record.id);
    expect((await get(otherLink)).statusCode).toBe(200);
    await t.keys.revoke(other.record.id, t.account.id);
    expect((await get(otherLink)).statusCode).toBe(403);
  });

  it('access_key alone authenticates nothing (401), and signed links are for GET /v1/take only', async () => {
    t = await buildTestApp();
    const alone = await get(`url=https%3A%2F%2Fexample.com%2F&access_key=${t.record.id}`);
    expect(alone.statusCode).toBe(401);
    const status = await t.app.inject({ method: 'GET', url: `/v1/status?${sign(`access_key=${t.record.id}`, t.record.id)}` });
    expect(status.statusCode).toBe(401);
  });
});
