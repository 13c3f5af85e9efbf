import { OUTPUT_FORMATS } from '../formats/registry.js';
import { randomBase62 } from '../util/base62.js';

const ID_CHARS = 24;

/** A random object name: 24 base62 characters (≈143 bits) and the format's extension. */
export function newObjectName(extension: string): string {
  return `${randomBase62(ID_CHARS)}.${extension}`;
}

/**
 * Names we made and nothing else: no separators, no dots but the extension's. Paths are built
 * only from names that pass this, so no request can point outside the store.
 */
export const OBJECT_NAME = new RegExp(`^[0-9A-Za-z]{24}\\.(${OUTPUT_FORMATS.map((f) => f.extension).join('|')})$`);

/** A capture-cache object's name: its hex identity (cache-identity.ts), nothing a path could hold. */
export function checkCacheObjectName(name: string): string {
  if (!/^[0-9a-f]{16,128}$/.test(name)) throw new Error('bad cache object name');
  return name;
}
