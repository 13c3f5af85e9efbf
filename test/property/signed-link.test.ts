import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/errors/error-codes.js';
import { readSignedLink, signatureHolds } from '../../src/http/signed-link.js';
import { buildTestApp, TEST_SIGNING_SECRET, type TestApp } from '../helpers/stub-engine.js';

/**
 * Property-based tests of the signed-link verifier (issue 16 "Robustness", DESIGN.md §4.2): the
 * signature is HMAC-SHA256 over the raw query string as received, so the reference model here is
 * that definition, computed independently with node:crypto. (src/storage/url-signer.ts, which signs
 * upload=1 file links, is another thing.)
 */
const hmac = (key: string, text: string) => createHmac('sha256', key).update(text).digest('hex');
const NOW = 1_800_000_000;

/** A query string of parameters in any order and spelling (percent-encoded or not), without signature. */
const queryText = fc
  .array(
    fc.tuple(
      fc.stringMatching(/^[a-z_]{1,12}$/).filter((k) => k !== 'signature' && k !== 'access_key' && k !== 'expires'),
      fc.string({ maxLength: 30 }),
    ),
    { maxLength: 6 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));

const link = fc.record({
  query: queryText,
  keyId: fc.uuid(),
  secret: fc.stringMatching(/^[0-9a-f]{64}$/),
  expires: fc.option(fc.integer({ min: 0, max: 4_000_000_000 }), { nil: undefined }),
});

const signedQuery = ({ query, keyId, secret, expires }: { query: string; keyId: string; secret: string; expires: number | undefined }) => {
  const signed = [query, expires !== undefined ? `expires=${expires}` : '', `access_key=${keyId}`].filter(Boolean).join('&');
  return { signed, full: `${signed}&signature=${hmac(secret, signed)}` };
};

describe('the signed-link verifier', () => {
  it('verifies every correctly signed link that has not expired, and refuses it once expired (reference: the HMAC definition)', () => {
    fc.assert(
      fc.property(link, (l) => {
        const { full } = signedQuery(l);
        const read = readSignedLink(full);
        expect(read).not.toBe('malformed');
        expect(read).toBeDefined();
        if (read === 'malformed' || read === undefined) return;
        expect(read.accessKey).toBe(l.keyId);
        const live = l.expires === undefined || l.expires >= NOW;
        expect(signatureHolds(read, l.secret, NOW)).toBe(live);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a link with any single character of the signed part or the signature changed', () => {
    fc.assert(
      fc.property(link, fc.nat(), fc.integer({ min: 1, max: 0xffff }), (l, at, code) => {
        const { full } = signedQuery({ ...l, expires: undefined });
        const i = at % full.length;
        const changed = String.fromCharCode((full.charCodeAt(i) + code) % 0x10000 || 1);
        fc.pre(changed !== full[i]);
        const mutated = full.slice(0, i) + changed + full.slice(i + 1);
        const read = readSignedLink(mutated);
        // Either not a link any more (malformed, or no signature), or one whose signature does not hold.
        if (read === 'malformed' || read === undefined) return;
        expect(
          signatureHolds(read, l.secret, NOW) &&
            read.accessKey === l.keyId &&
            read.signed === signedQuery({ ...l, expires: undefined }).signed,
        ).toBe(false);
      }),
      { numRuns: 1500 },
    );
  });

  it('never throws on arbitrary text, and a verdict is only ever reached for 64-hex signatures', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.stringMatching(/^[0-9a-f]{64}$/), (text, secret) => {
        const read = readSignedLink(text);
        if (read === 'malformed' || read === undefined) return;
        expect(read.signature).toMatch(/^[0-9a-f]{64}$/);
        expect(() => signatureHolds(read, secret, NOW)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});

describe('signed links through the HTTP layer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t?.app.close();
    await t?.keys.close();
  });

  it('adversarial links never answer 500: only 401 or 403 signature_invalid, or a capture when the signature is right', async () => {
    const keySecret = hmac(TEST_SIGNING_SECRET, `key:${t.record.id}`);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 200 }).map((s) => `access_key=${t.record.id}&${encodeURIComponent(s)}=1&signature=${'a'.repeat(64)}`),
          fc.string({ maxLength: 200 }).map((s) => `access_key=${encodeURIComponent(s)}&signature=${encodeURIComponent(s)}`),
          fc.tuple(fc.string({ maxLength: 50 }), fc.integer()).map(([s, n]) => {
            const signed = `url=${encodeURIComponent(`https://example.com/${s}`)}&expires=${n}&access_key=${t.record.id}`;
            return `${signed}&signature=${hmac(keySecret, signed)}`;
          }),
        ),
        async (query) => {
          const res = await t.app.inject({ method: 'GET', url: `/v1/take?${query}` });
          expect(res.statusCode).not.toBe(500);
          if (res.statusCode >= 400) expect(ERROR_STATUS[res.json().error.code as keyof typeof ERROR_STATUS]).toBe(res.statusCode);
        },
      ),
      { numRuns: 150 },
    );
  });
});
