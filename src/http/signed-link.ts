import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a signed /v1/take link carries, read from the raw query string as received. */
export interface SignedLink {
  accessKey: string;
  /** The query string up to and without `&signature=…`: what was signed. */
  signed: string;
  signature: string;
  /** Unix seconds, when the link expires. */
  expires?: number;
}

/**
 * Reads a signed link from the raw query string (ScreenshotOne's scheme): `signature` must be the
 * last parameter; everything before `&signature=` is what was signed, byte for byte. Returns
 * undefined when there is no signature; `access_key` and `expires` are read from the signed part.
 */
export function readSignedLink(rawQuery: string): SignedLink | 'malformed' | undefined {
  const at = rawQuery.lastIndexOf('&signature=');
  if (at < 0) return rawQuery.startsWith('signature=') ? 'malformed' : undefined;
  const signature = rawQuery.slice(at + '&signature='.length);
  const signed = rawQuery.slice(0, at);
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) return 'malformed';
  const params = new URLSearchParams(signed);
  const accessKey = params.getAll('access_key');
  const expires = params.getAll('expires');
  if (accessKey.length !== 1 || !accessKey[0] || expires.length > 1) return 'malformed';
  if (expires.length === 1 && !/^\d{1,12}$/.test(expires[0]!)) return 'malformed';
  return {
    accessKey: accessKey[0],
    signed,
    signature: signature.toLowerCase(),
    ...(expires.length ? { expires: Number(expires[0]) } : {}),
  };
}

/** Constant-time check of a link's signature with the key's signing secret, and of its expiry. */
export function signatureHolds(link: SignedLink, signingSecret: string, nowSeconds: number): boolean {
  const expected = Buffer.from(createHmac('sha256', signingSecret).update(link.signed).digest('hex'));
  const given = Buffer.from(link.signature);
  const valid = expected.length === given.length && timingSafeEqual(expected, given);
  return valid && (link.expires === undefined || link.expires >= nowSeconds);
}

/** The hex signature of a query string (what clients and the dashboard's link builder compute). */
export function signQuery(query: string, signingSecret: string): string {
  return createHmac('sha256', signingSecret).update(query).digest('hex');
}
