import type { Cookie } from './options.js';

/** A cookie object in the Set-Cookie syntax that GET accepts. */
function setCookieOf(cookie: Cookie): string {
  const parts = [`${cookie.name}=${cookie.value}`];
  if (cookie.domain !== undefined) parts.push(`Domain=${cookie.domain}`);
  if (cookie.path !== undefined) parts.push(`Path=${cookie.path}`);
  if (cookie.secure) parts.push('Secure');
  if (cookie.httpOnly) parts.push('HttpOnly');
  if (cookie.sameSite !== undefined) parts.push(`SameSite=${cookie.sameSite}`);
  if (cookie.expires !== undefined) parts.push(`Expires=${new Date(cookie.expires * 1000).toUTCString()}`);
  return parts.join('; ');
}

/** The query-string values of one option: lists repeat the parameter, objects become their text forms. */
function valuesOf(name: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => valuesOf(name, item));
  switch (typeof value) {
    case 'boolean':
      return [value ? 'true' : 'false'];
    case 'number':
    case 'bigint':
      return [String(value)];
    case 'string':
      return [value];
    case 'object':
      if (name === 'cookies') return [setCookieOf(value as Cookie)];
      // headers: {"Name": "value"} → repeated "Name: value".
      return Object.entries(value as Record<string, unknown>).map(([key, item]) => `${key}: ${String(item)}`);
    default:
      throw new TypeError(`${name} cannot be sent in a query string (${typeof value})`);
  }
}

/** Percent-encodes like encodeURIComponent (spaces as %20, never +, so no reader can disagree). */
const encode = (text: string) => encodeURIComponent(text);

/**
 * Options as a GET query string, in the order given: `url=…&full_page=true&hide_selectors=.a&hide_selectors=.b`.
 * Signed links sign exactly this text.
 */
export function toQueryString(options: object): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    for (const text of valuesOf(name, value)) pairs.push(`${encode(name)}=${encode(text)}`);
  }
  return pairs.join('&');
}

/** Drops undefined options, so JSON bodies carry only what was set. */
export function definedOnly<T extends object>(options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as T;
}
