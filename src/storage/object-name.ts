import { randomBytes } from 'node:crypto';
import { OUTPUT_FORMATS } from '../formats/registry.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_CHARS = 24;

/** A random object name: 24 base62 characters (≈143 bits) and the format's extension. */
export function newObjectName(extension: string): string {
  let id = '';
  while (id.length < ID_CHARS) {
    for (const byte of randomBytes(ID_CHARS * 2)) {
      // 248 = 4 × 62: rejection sampling keeps the alphabet uniform.
      if (byte < 248 && id.length < ID_CHARS) id += ALPHABET[byte % 62];
    }
  }
  return `${id}.${extension}`;
}

/**
 * Names we made and nothing else: no separators, no dots but the extension's. Paths are built
 * only from names that pass this, so no request can point outside the store.
 */
export const OBJECT_NAME = new RegExp(`^[0-9A-Za-z]{24}\\.(${OUTPUT_FORMATS.map((f) => f.extension).join('|')})$`);
