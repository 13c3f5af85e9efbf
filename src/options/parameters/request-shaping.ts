import { z } from 'zod';
import { MAX_COOKIES, MAX_HEADERS } from '../limits.js';
import { meta } from './meta.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Names the browser or the transport owns: sending them would break or smuggle the request. */
const FORBIDDEN = new Set([
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'cookie',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** One header checked: a token name that is not forbidden, a value without CR, LF or other controls. */
function checkHeader(name: string, value: string, ctx: z.RefinementCtx): [string, string] | undefined {
  const lower = name.trim().toLowerCase();
  if (!TOKEN.test(lower)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(name)} is not a valid header name` });
  else if (FORBIDDEN.has(lower) || lower.startsWith('proxy-')) {
    ctx.addIssue({
      code: 'custom',
      message: `${name} may not be set (forbidden: Host, Content-Length, Connection, Transfer-Encoding, Proxy-*, Cookie; use cookies for cookies)`,
    });
  } else if (CONTROL.test(value))
    ctx.addIssue({ code: 'custom', message: `the value of ${name} contains CR, LF or another control character` });
  else if (value.length > 8192) ctx.addIssue({ code: 'custom', message: `the value of ${name} is longer than 8192 characters` });
  else return [lower, value.trim()];
  return undefined;
}

const headersField = z
  .union([z.string(), z.array(z.string()), z.record(z.string(), z.string())], {
    error: 'must be "Name: value" strings (repeat the parameter) or, in JSON, an object of names to values',
  })
  .transform((input, ctx) => {
    const pairs: Array<[string, string]> = [];
    if (typeof input === 'object' && !Array.isArray(input)) pairs.push(...Object.entries(input));
    else {
      for (const line of [input].flat()) {
        const colon = line.indexOf(':');
        if (colon <= 0) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(line.slice(0, 100))} is not "Name: value"` });
        else pairs.push([line.slice(0, colon), line.slice(colon + 1)]);
      }
    }
    if (pairs.length > MAX_HEADERS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_HEADERS} headers, got ${pairs.length}` });
    const out = pairs.map(([n, v]) => checkHeader(n, v, ctx));
    return out.every((h) => h !== undefined) && pairs.length <= MAX_HEADERS ? out : z.NEVER;
  });

/** A cookie as Playwright's addCookies takes it; domain and path defaulted from the target later. */
export interface CookieSpec {
  name: string;
  value: string;
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  expires?: number;
}

const SAME_SITE: Record<string, CookieSpec['sameSite']> = { strict: 'Strict', lax: 'Lax', none: 'None' };
const COOKIE_NAME = TOKEN;

/** `name=value; Domain=…; Path=/; Secure; HttpOnly; SameSite=Lax; Expires=…; Max-Age=…` */
export function parseSetCookie(text: string): CookieSpec | string {
  if (CONTROL.test(text)) return 'contains CR, LF or another control character';
  const [pair, ...attributes] = text.split(';');
  const eq = pair!.indexOf('=');
  const name = eq > 0 ? pair!.slice(0, eq).trim() : '';
  if (!COOKIE_NAME.test(name)) return 'must start with name=value';
  const cookie: CookieSpec = { name, value: pair!.slice(eq + 1).trim() };
  for (const attribute of attributes) {
    const [key = '', ...rest] = attribute.split('=');
    const value = rest.join('=').trim();
    switch (key.trim().toLowerCase()) {
      case 'domain':
        cookie.domain = value;
        break;
      case 'path':
        cookie.path = value || '/';
        break;
      case 'secure':
        cookie.secure = true;
        break;
      case 'httponly':
        cookie.httpOnly = true;
        break;
      case 'samesite':
        if (!SAME_SITE[value.toLowerCase()]) return `SameSite must be Strict, Lax or None, not ${JSON.stringify(value)}`;
        cookie.sameSite = SAME_SITE[value.toLowerCase()];
        break;
      case 'expires': {
        const at = Date.parse(value);
        if (Number.isNaN(at)) return `Expires ${JSON.stringify(value)} is not a date`;
        cookie.expires = Math.floor(at / 1000);
        break;
      }
      case 'max-age':
        // At most 10 digits (~317 years): longer is not a lifetime a date can hold.
        if (!/^-?\d{1,10}$/.test(value)) return `Max-Age ${JSON.stringify(value)} is not a number of seconds (at most 10 digits)`;
        cookie.expires = Math.floor(Date.now() / 1000) + Number(value);
        break;
      case '':
        break;
      default:
        return `unknown attribute ${JSON.stringify(key.trim())}`;
    }
  }
  return cookie;
}

const cookieObject = z
  .object({
    name: z.string().regex(COOKIE_NAME, 'is not a valid cookie name'),
    value: z
      .string()
      .max(4096)
      .refine((v) => !CONTROL.test(v), 'contains a control character'),
    domain: z.string().max(253).optional(),
    path: z.string().max(1024).optional(),
    secure: z.boolean().optional(),
    httpOnly: z.boolean().optional(),
    sameSite: z.enum(['Strict', 'Lax', 'None']).optional(),
    expires: z.number().optional(),
  })
  .strict();

const cookiesField = z
  .union([z.string(), cookieObject, z.array(z.union([z.string(), cookieObject]))], {
    error: 'must be Set-Cookie strings (repeat the parameter) or, in JSON, cookie objects {name, value, domain?, path?, …}',
  })
  .transform((input, ctx) => {
    const items = [input].flat();
    if (items.length > MAX_COOKIES) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_COOKIES} cookies, got ${items.length}` });
      return z.NEVER;
    }
    const cookies: CookieSpec[] = [];
    for (const item of items) {
      if (typeof item !== 'string') cookies.push(item);
      else {
        const parsed = parseSetCookie(item);
        if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: `${JSON.stringify(item.slice(0, 60))}: ${parsed}` });
        else cookies.push(parsed);
      }
    }
    return cookies.length === items.length ? cookies : z.NEVER;
  });

/** What the target is sent: headers on its own origin only, cookies in the browser before it loads. */
export const requestShapingParameters = {
  headers: meta('request', headersField.optional(), {
    description:
      'Extra request headers, sent only on requests to the target’s own origin (never to third parties). ' +
      'GET: repeat "Name: value"; JSON: an object. Forbidden: Host, Content-Length, Connection, Transfer-Encoding, Proxy-*, Cookie; CR/LF refused.',
    allowed: `at most ${MAX_HEADERS} headers`,
    example: 'Authorization: Bearer abc',
  }),
  cookies: meta('request', cookiesField.optional(), {
    description:
      'Cookies set in the browser before the page loads. GET: repeat Set-Cookie syntax (name=value; Domain=…; Path=/; Secure; HttpOnly; SameSite=Lax); ' +
      'JSON: objects {name, value, domain?, path?, secure?, httpOnly?, sameSite?, expires?}. Domain defaults to the target’s host.',
    allowed: `at most ${MAX_COOKIES} cookies`,
    example: 'session=abc123; Path=/',
  }),
};
