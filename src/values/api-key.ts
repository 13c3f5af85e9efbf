import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { BASE62_ALPHABET, randomBase62 } from '../util/base62.js';

/** Every generated key starts with this, so leaked keys are easy to grep for and to recognise. */
export const KEY_PREFIX = 'shk_';
const SECRET_CHARS = 32;
const CHECKSUM_CHARS = 6;

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = BASE62_ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** A new key: `shk_` + 32 random base62 characters + a 6-character CRC32 checksum. */
export function generateApiKey(): string {
  const body = KEY_PREFIX + randomBase62(SECRET_CHARS);
  return body + checksum(body);
}

/**
 * False for a `shk_` key whose checksum does not match (a typo), without touching the
 * database. Keys without the prefix (an operator's own bootstrap key) are not judged here.
 */
export function hasValidChecksum(key: string): boolean {
  if (!key.startsWith(KEY_PREFIX)) return true;
  if (key.length !== KEY_PREFIX.length + SECRET_CHARS + CHECKSUM_CHARS) return false;
  const body = key.slice(0, -CHECKSUM_CHARS);
  return checksum(body) === key.slice(-CHECKSUM_CHARS);
}

/** What is stored instead of the key. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
