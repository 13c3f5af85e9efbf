import type { FastifyReply } from 'fastify';
import type { CacheAnswer } from '../take/take-capture.js';

/** X-Shutter-Cache, Age and a public Cache-Control for what is left of the entry's life (DESIGN.md §4.2). */
export function setCacheHeaders(reply: FastifyReply, { state, entry }: CacheAnswer, now = Date.now()): void {
  const left = Math.max(0, Math.floor((entry.expiresAt.getTime() - now) / 1000));
  reply
    .header('x-shutter-cache', state)
    .header('age', String(Math.max(0, Math.floor((now - entry.createdAt.getTime()) / 1000))))
    .header('cache-control', `public, max-age=${left}`)
    .header('etag', entry.etag);
}
