// Signed links (DESIGN §4.2) and webhook signatures (§4.3) against values computed here, apart from
// the client, with node:crypto.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ShutterClient, ShutterError, hmacSha256Hex, signedUrl, timingSafeEqual, toQueryString, verifyWebhook } from '../src/index.js';

const SECRET = 'sks_5f1d6c0e0c7a4f3b9e2d8a1b7c6e5d4f';
const KEY_ID = '638b41e9-fe01-4d4e-a6ff-73887f895ac7';
const hmac = (secret: string, data: string | Buffer) => createHmac('sha256', secret).update(data).digest('hex');

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject');
}

describe('hmacSha256Hex (Web Crypto)', () => {
  it('equals node:crypto’s HMAC-SHA256 for text and bytes', async () => {
    expect(await hmacSha256Hex(SECRET, 'url=https%3A%2F%2Fexample.com')).toBe(hmac(SECRET, 'url=https%3A%2F%2Fexample.com'));
    expect(await hmacSha256Hex('ключ', 'данные ✓')).toBe(hmac('ключ', 'данные ✓'));
    const bytes = new Uint8Array([0, 255, 10, 13, 0x7b]);
    expect(await hmacSha256Hex(SECRET, bytes)).toBe(hmac(SECRET, Buffer.from(bytes)));
    // RFC 4231 test case 2.
    expect(await hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('timingSafeEqual compares whole strings', () => {
    expect(timingSafeEqual('abc', 'abc')).toBe(true);
    expect(timingSafeEqual('abc', 'abd')).toBe(false);
    expect(timingSafeEqual('abc', 'abcd')).toBe(false);
    expect(timingSafeEqual('', '')).toBe(true);
  });
});

describe('signedUrl', () => {
  it('signs the query string up to &signature= with access_key and expires, signature last', async () => {
    const options = { url: 'https://example.com/a b?x=1&y=ü', full_page: true, viewport_width: 800 };
    const link = await signedUrl(options, {
      baseUrl: 'https://shots.example.com/',
      keyId: KEY_ID,
      signingSecret: SECRET,
      expires: 1_900_000_000,
    });
    const unsigned =
      'url=https%3A%2F%2Fexample.com%2Fa%20b%3Fx%3D1%26y%3D%C3%BC&full_page=true&viewport_width=800' +
      `&expires=1900000000&access_key=${KEY_ID}`;
    expect(link).toBe(`https://shots.example.com/v1/take?${unsigned}&signature=${hmac(SECRET, unsigned)}`);
  });

  it('verifies the way a server would: HMAC of the raw query string as received, up to &signature=', async () => {
    const link = await signedUrl(
      { url: 'https://example.com', hide_selectors: ['.cookie', '#ad banner'], headers: { 'X-Test': 'a b' }, format: 'jpg', quality: 70 },
      { baseUrl: 'http://127.0.0.1:3000', keyId: KEY_ID, signingSecret: SECRET },
    );
    const raw = link.slice(link.indexOf('?') + 1);
    const at = raw.lastIndexOf('&signature=');
    const signature = raw.slice(at + '&signature='.length);
    expect(signature).toBe(hmac(SECRET, raw.slice(0, at)));
    const params = new URLSearchParams(raw);
    expect(params.getAll('hide_selectors')).toEqual(['.cookie', '#ad banner']);
    expect(params.get('headers')).toBe('X-Test: a b');
    expect(params.get('access_key')).toBe(KEY_ID);
    expect(params.has('expires')).toBe(false);
    expect([...params.keys()].slice(-2)).toEqual(['access_key', 'signature']);
    expect(raw).not.toContain('+');
  });

  it('takes expires as a Date, and the client supplies its base URL', async () => {
    const client = new ShutterClient({ apiKey: 'shk_x', baseUrl: 'https://shots.example.com/v1' });
    const link = await client.signedUrl(
      { url: 'https://example.com' },
      { keyId: 'k1', signingSecret: SECRET, expires: new Date(1_900_000_000_999) },
    );
    const unsigned = 'url=https%3A%2F%2Fexample.com&expires=1900000000&access_key=k1';
    expect(link).toBe(`https://shots.example.com/v1/take?${unsigned}&signature=${hmac(SECRET, unsigned)}`);
  });

  it('refuses options that would put a key in the link or confuse the signature', async () => {
    for (const extra of [{ apikey: 'shk_x' }, { access_key: 'k' }, { signature: 'x' }, { expires: 1 }]) {
      await expect(
        signedUrl({ url: 'https://e.com', ...extra } as never, { baseUrl: 'http://x', keyId: 'k', signingSecret: SECRET }),
      ).rejects.toThrow(/not a capture option/);
    }
  });

  it('writes cookies in Set-Cookie syntax and booleans as true/false', () => {
    expect(
      toQueryString({
        url: 'https://e.com',
        block_ads: false,
        cookies: [{ name: 'session', value: 'abc', path: '/', secure: true, sameSite: 'Lax' }, 'b=2'],
      }),
    ).toBe(
      `url=https%3A%2F%2Fe.com&block_ads=false&cookies=${encodeURIComponent('session=abc; Path=/; Secure; SameSite=Lax')}&cookies=b%3D2`,
    );
  });
});

describe('verifyWebhook', () => {
  const body = JSON.stringify({ job_id: 'job_1', status: 'succeeded', external_id: 'order-7', result: null, error: null });
  const now = 1_800_000_000;
  const header = (t: number, text: string | Buffer = body, secret = SECRET) =>
    `t=${t},v1=${hmac(secret, Buffer.concat([Buffer.from(`${t}.`), Buffer.from(text)]))}`;

  it('accepts a body signed as t + "." + body and returns the job', async () => {
    const job = await verifyWebhook(body, header(now), SECRET, { now });
    expect(job).toMatchObject({ job_id: 'job_1', status: 'succeeded', external_id: 'order-7' });
    // Bytes, an ArrayBuffer and upper-case hex do as well.
    await verifyWebhook(Buffer.from(body), header(now), SECRET, { now });
    await verifyWebhook(new TextEncoder().encode(body).buffer as ArrayBuffer, header(now), SECRET, { now });
    const upper = header(now).replace(/v1=([0-9a-f]+)/, (_m, hex: string) => `v1=${hex.toUpperCase()}`);
    await verifyWebhook(body, upper, SECRET, { now });
  });

  it('checks the raw bytes: a body that is not ASCII, byte for byte', async () => {
    const text = JSON.stringify({ job_id: 'j', status: 'failed', error: { code: 'x', message: 'Zürich ✓' } });
    const job = await verifyWebhook(Buffer.from(text), header(now, text), SECRET, { now });
    expect(job.error?.message).toBe('Zürich ✓');
  });

  it('accepts any of several v1 signatures (secret rotation) and ignores unknown parts', async () => {
    const good = header(now).split(',v1=')[1]!;
    await verifyWebhook(body, `t=${now}, v0=zzz, v1=${'0'.repeat(64)}, v1=${good}`, SECRET, { now });
  });

  it('refuses a tampered body, a wrong secret, a changed time', async () => {
    const tampered = body.replace('succeeded', 'failed');
    for (const [raw, head, secret] of [
      [tampered, header(now), SECRET],
      [body, header(now), `${SECRET}x`],
      [body, header(now).replace(`t=${now}`, `t=${now + 1}`), SECRET],
    ] as const) {
      const e = await rejectionOf(verifyWebhook(raw, head, secret, { now }));
      expect(e).toBeInstanceOf(ShutterError);
      expect(e).toMatchObject({ status: 0, code: 'signature_invalid' });
    }
  });

  it('refuses a signature older or newer than the tolerance', async () => {
    expect(await rejectionOf(verifyWebhook(body, header(now - 301), SECRET, { now }))).toMatchObject({ code: 'signature_invalid' });
    expect(await rejectionOf(verifyWebhook(body, header(now + 301), SECRET, { now }))).toMatchObject({ code: 'signature_invalid' });
    await verifyWebhook(body, header(now - 299), SECRET, { now });
    await verifyWebhook(body, header(now - 3000), SECRET, { now, toleranceSeconds: 3600 });
    expect(await rejectionOf(verifyWebhook(body, header(now - 20), SECRET, { now, toleranceSeconds: 10 }))).toMatchObject({
      code: 'signature_invalid',
    });
  });

  it('uses the clock by default', async () => {
    const t = Math.floor(Date.now() / 1000);
    await verifyWebhook(body, header(t), SECRET);
  });

  it('refuses a missing or malformed header', async () => {
    for (const head of [undefined, null, '', 'v1=abc', `t=${now}`, `t=${now},v1=nothex`, `t=soon,v1=${'a'.repeat(64)}`, 'garbage']) {
      expect(await rejectionOf(verifyWebhook(body, head, SECRET, { now }))).toMatchObject({ code: 'signature_invalid' });
    }
  });
});
