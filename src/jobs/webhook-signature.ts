import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Shutter-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (Stripe's
 * scheme): the timestamp is signed with the body, so a receiver can refuse old replays.
 */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

/** Checks a signature header against the body; `toleranceSeconds` bounds the timestamp's age. */
export function verifyWebhook(
  secret: string,
  body: string,
  header: string,
  input: { nowSeconds?: number; toleranceSeconds?: number } = {},
): boolean {
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const [name, value] = item.trim().split('=', 2);
    if (name && value) parts.set(name, [...(parts.get(name) ?? []), value]);
  }
  const t = Number(parts.get('t')?.[0]);
  if (!Number.isInteger(t)) return false;
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (input.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signWebhook(secret, body, t).split('v1=')[1]!, 'hex');
  return (parts.get('v1') ?? []).some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
