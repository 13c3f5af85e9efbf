import { z } from 'zod';
import { booleanField, integerField } from '../fields.js';
import { meta } from './meta.js';

/** The shared capture cache (DESIGN.md §4.2): embeddable links render once and are not charged again. */
export const cacheParameters = {
  cache: meta('output', booleanField().default(false), {
    description:
      'Answer from the shared cache when the same account asked for the same output before (not charged: X-Shutter-Cache: HIT), ' +
      'else render, keep the file for cache_ttl and answer X-Shutter-Cache: MISS. Identical requests arriving while one renders ' +
      'wait for it and share it.',
    allowed: 'boolean',
    default: 'false',
  }),
  cache_ttl: meta('output', integerField(60, 2_592_000).default(86_400), {
    description: 'Seconds a cached file is kept and answered (with cache=1).',
    allowed: 'integer seconds 60–2592000 (30 days)',
    default: '86400',
  }),
  cache_key: meta(
    'output',
    z
      .string({ error: 'must be at most 64 of A–Z, a–z, 0–9, _ and -' })
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be at most 64 of A–Z, a–z, 0–9, _ and -')
      .optional(),
    {
      description: 'Part of the cache identity: a different cache_key renders afresh (e.g. a version of the page).',
      allowed: 'at most 64 of A–Z, a–z, 0–9, _ and -',
      example: 'v2',
    },
  ),
};
