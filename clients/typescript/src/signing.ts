import { ShutterError } from './errors.js';
import type { TakeOptions } from './options.js';
import { toQueryString } from './query.js';
import { normalizeBaseUrl } from './transport.js';
import type { Job } from './types.js';

const encoder = new TextEncoder();

/** Web Crypto: global in browsers, edge runtimes and Node ≥ 19; node:crypto's on Node 18. */
async function subtleCrypto(): Promise<SubtleCrypto> {
  const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (subtle) return subtle;
  // A variable specifier keeps bundlers for browsers from resolving a Node module.
  const nodeCrypto = 'node:crypto';
  const { webcrypto } = (await import(nodeCrypto)) as { webcrypto: Crypto };
  return webcrypto.subtle;
}

const bytesOf = (data: string | Uint8Array): Uint8Array => (typeof data === 'string' ? encoder.encode(data) : data);

/** Hex HMAC-SHA256 of `data` with `secret` (its UTF-8 bytes, as the secret is shown). */
export async function hmacSha256Hex(secret: string, data: string | Uint8Array): Promise<string> {
  const subtle = await subtleCrypto();
  const key = await subtle.importKey('raw', bytesOf(secret) as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await subtle.sign('HMAC', key, bytesOf(data) as BufferSource));
  let hex = '';
  for (const byte of mac) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Compares two strings in time that depends on their length only, not on where they differ. */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** What a signed link needs besides the capture options. */
export interface SignedUrlOptions {
  /** The key's public id (`GET /v1/status` → `key.id`), sent as `access_key`. Not the API key. */
  keyId: string;
  /** The key's signing secret (dashboard, CLI, or `GET /v1/status` → `key.signing_secret`). */
  signingSecret: string;
  /** When the link stops working: a Date or unix seconds. Without it the link does not expire. */
  expires?: Date | number;
}

/** SignedUrlOptions plus the service's address, for the standalone signedUrl. */
export interface StandaloneSignedUrlOptions extends SignedUrlOptions {
  /** Where Shutter answers, e.g. `https://shots.example.com`. */
  baseUrl: string;
}

const unixSeconds = (at: Date | number): number => (at instanceof Date ? Math.floor(at.getTime() / 1000) : Math.floor(at));

/**
 * A `GET /v1/take` link that captures without exposing the API key, for `<img src>` and social
 * cards (DESIGN §4.2): `…/v1/take?<options>&expires=<unix s>&access_key=<key id>&signature=<hex>`,
 * where the signature is hex HMAC-SHA256(signing secret, the query string up to `&signature=`).
 */
export async function signedUrl(options: TakeOptions, signing: StandaloneSignedUrlOptions): Promise<string> {
  if (!signing.keyId) throw new TypeError('signedUrl needs keyId: the key’s public id, as GET /v1/status shows it');
  if (!signing.signingSecret) throw new TypeError('signedUrl needs signingSecret');
  for (const reserved of ['apikey', 'access_key', 'expires', 'signature']) {
    if (reserved in options) throw new TypeError(`${reserved} is not a capture option: signedUrl adds what the link needs`);
  }
  const parts = [toQueryString(options)];
  if (signing.expires !== undefined) parts.push(`expires=${unixSeconds(signing.expires)}`);
  parts.push(`access_key=${encodeURIComponent(signing.keyId)}`);
  const unsigned = parts.filter(Boolean).join('&');
  const signature = await hmacSha256Hex(signing.signingSecret, unsigned);
  return `${normalizeBaseUrl(signing.baseUrl)}/v1/take?${unsigned}&signature=${signature}`;
}

/** Options of verifyWebhook. */
export interface VerifyWebhookOptions {
  /** Largest difference between the signature's time and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in unix seconds (default: the clock's), for tests. */
  now?: number;
}

const invalid = (message: string) => new ShutterError({ status: 0, code: 'signature_invalid', message });

/**
 * Checks a webhook from Shutter and returns its job (DESIGN §4.3). `rawBody` must be the body
 * exactly as received (before any JSON parsing); `header` is `X-Shutter-Signature`:
 * `t=<unix s>,v1=<hex HMAC-SHA256(signing secret, t + "." + body)>`. Rejects with a ShutterError
 * `signature_invalid` when the header is missing or malformed, the time is outside the tolerance,
 * or no v1 signature matches (compared in constant time).
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  header: string | null | undefined,
  signingSecret: string,
  options: VerifyWebhookOptions = {},
): Promise<Job> {
  if (!signingSecret) throw new TypeError('verifyWebhook needs the signing secret');
  if (typeof header !== 'string' || header.trim() === '') throw invalid('the X-Shutter-Signature header is missing');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (eq <= 0) continue;
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-fA-F]{64}$/.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined) throw invalid('the X-Shutter-Signature header has no t=<unix seconds>');
  if (signatures.length === 0) throw invalid('the X-Shutter-Signature header has no v1=<hex signature>');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.now ?? Date.now() / 1000;
  if (Math.abs(now - timestamp) > tolerance) {
    throw invalid(`the signature is from ${Math.round(now - timestamp)} s ago, outside the tolerance of ${tolerance} s`);
  }
  const body = rawBody instanceof ArrayBuffer ? new Uint8Array(rawBody) : bytesOf(rawBody);
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const expected = await hmacSha256Hex(signingSecret, signed);
  // Every candidate is compared, so the time taken does not tell which one came close.
  let matched = false;
  for (const signature of signatures) matched = timingSafeEqual(expected, signature) || matched;
  if (!matched) throw invalid('the webhook signature does not match its body');
  const text = new TextDecoder().decode(body);
  try {
    return JSON.parse(text) as Job;
  } catch {
    throw new ShutterError({ status: 0, code: 'unexpected_response', message: 'the webhook body is signed but is not JSON' });
  }
}
