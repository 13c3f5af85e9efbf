import { createHmac } from 'node:crypto';

/**
 * A key's signing secret for signed links and webhooks: derived, never stored, from the service's
 * SHUTTER_SIGNING_SECRET and the key's id (DESIGN.md §4.2), so every node computes the same one and
 * a key reset (a new id) changes it.
 */
export function keySigningSecret(master: Buffer, keyId: string): string {
  return createHmac('sha256', master).update(`key:${keyId}`).digest('hex');
}
