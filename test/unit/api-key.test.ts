import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, hasValidChecksum, KEY_PREFIX } from '../../src/values/api-key.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_FORMAT = /^shk_[0-9A-Za-z]{32}[0-9A-Za-z]{6}$/;

/** Independent reference: CRC32 of the prefix and secret, as 6 big-endian base62 digits. */
function referenceChecksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out;
}

describe('generateApiKey', () => {
  it('is shk_ + 32 base62 characters + a 6-character checksum', () => {
    const key = generateApiKey();
    expect(KEY_PREFIX).toBe('shk_');
    expect(key).toMatch(KEY_FORMAT);
    expect(key).toHaveLength(4 + 32 + 6);
  });

  it('the last 6 characters are the CRC32 of the rest in base62', () => {
    for (let i = 0; i < 20; i++) {
      const key = generateApiKey();
      expect(key.slice(-6)).toBe(referenceChecksum(key.slice(0, -6)));
    }
  });

  it('keys are random and always well formed', () => {
    const keys = Array.from({ length: 500 }, () => generateApiKey());
    expect(new Set(keys).size).toBe(500);
    for (const key of keys) {
      expect(key).toMatch(KEY_FORMAT);
      expect(hasValidChecksum(key)).toBe(true);
    }
  });

  it('uses the whole base62 alphabet', () => {
    const seen = new Set(
      Array.from({ length: 300 }, () => generateApiKey().slice(4, 36))
        .join('')
        .split(''),
    );
    expect(seen.size).toBe(62);
  });
});

describe('hasValidChecksum', () => {
  it('accepts a fixed known key (issued keys must stay valid)', () => {
    const body = 'shk_0123456789abcdefghijABCDEFGHIJ01';
    expect(body).toHaveLength(36);
    const key = body + referenceChecksum(body);
    expect(hasValidChecksum(key)).toBe(true);
  });

  it('rejects every one-character typo of a key', () => {
    const key = generateApiKey();
    let checked = 0;
    for (let i = KEY_PREFIX.length; i < key.length; i++) {
      for (const c of BASE62) {
        if (c === key[i]) continue;
        const typo = key.slice(0, i) + c + key.slice(i + 1);
        if (hasValidChecksum(typo)) throw new Error(`typo at ${i} (${key[i]} → ${c}) was accepted`);
        checked++;
      }
    }
    expect(checked).toBe(38 * 61);
  });

  it('rejects a swap of two adjacent characters', () => {
    const key = generateApiKey();
    for (let i = KEY_PREFIX.length; i < key.length - 1; i++) {
      if (key[i] === key[i + 1]) continue;
      const swapped = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
      expect(hasValidChecksum(swapped), `swap at ${i}`).toBe(false);
    }
  });

  it('rejects a shk_ key that is too short or too long', () => {
    const key = generateApiKey();
    expect(hasValidChecksum(key.slice(0, -1))).toBe(false);
    expect(hasValidChecksum(key + 'a')).toBe(false);
    expect(hasValidChecksum('shk_')).toBe(false);
    expect(hasValidChecksum(key.slice(0, 4) + key.slice(5))).toBe(false);
  });

  it('rejects a changed case', () => {
    const key = generateApiKey();
    const i = [...key].findIndex((c, j) => j >= 4 && /[a-zA-Z]/.test(c));
    const flipped = key[i] === key[i]!.toUpperCase() ? key[i]!.toLowerCase() : key[i]!.toUpperCase();
    expect(hasValidChecksum(key.slice(0, i) + flipped + key.slice(i + 1))).toBe(false);
  });

  it('leaves keys without the shk_ prefix (an operator bootstrap key) to the database', () => {
    expect(hasValidChecksum('my-own-bootstrap-secret')).toBe(true);
    expect(hasValidChecksum('SHK_' + generateApiKey().slice(4))).toBe(true);
  });
});

describe('hashApiKey', () => {
  it('is the SHA-256 hex digest', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs for keys that differ in one character', () => {
    expect(hashApiKey('shk_a')).not.toBe(hashApiKey('shk_b'));
  });
});
