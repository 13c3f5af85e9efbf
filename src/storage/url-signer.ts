import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** HMAC-SHA256 signatures for expiring file links. */
export class UrlSigner {
  constructor(private readonly secret: Buffer) {}

  sign(name: string, expiresUnix: number): string {
    return createHmac('sha256', this.secret).update(`${name}\n${expiresUnix}`).digest('base64url');
  }

  /** True for our own signature of this name and expiry (constant-time comparison). */
  verify(name: string, expiresUnix: number, signature: string): boolean {
    const expected = Buffer.from(this.sign(name, expiresUnix));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/**
 * The signing secret: SHUTTER_SIGNING_SECRET when set, else one generated on first start and
 * kept in the data dir (mode 0600), so links survive restarts.
 */
export async function loadSigningSecret(configured: string | undefined, file: string): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  try {
    const existing = await readFile(file);
    if (existing.length >= 32) return existing;
  } catch {
    // First start: make one below.
  }
  const secret = randomBytes(32);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, secret, { mode: 0o600 });
  return secret;
}
