import { z } from 'zod';
import { hasValidChecksum } from '../accounts/api-key.js';
import { parseCidrList } from '../egress/cidr.js';

const int = (min: number, max: number) => {
  const error = `must be an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};
const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no'])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

/**
 * Every SHUTTER_* environment variable: the single source of truth for defaults,
 * validation and the README's configuration table.
 */
export const configSchema = z.object({
  SHUTTER_PORT: int(0, 65535).default(8080).describe('TCP port the HTTP server listens on.'),
  SHUTTER_HOST: z.string().min(1).default('0.0.0.0').describe('Interface to bind; 127.0.0.1 to keep it local.'),
  SHUTTER_DATA_DIR: z.string().min(1).default('./data').describe('Directory for the SQLite database and stored files.'),
  SHUTTER_CHROMIUM_PATH: z
    .string()
    .optional()
    .describe('Chromium binary. Default: chromium-headless-shell, then chromium, found on PATH.'),
  SHUTTER_CONCURRENCY: int(1, 64).default(4).describe('Captures rendered at the same time by the browser pool.'),
  SHUTTER_QUEUE_SIZE: int(0, 10_000)
    .default(100)
    .describe('Captures that may wait for a free slot; beyond it requests get 503 overloaded.'),
  SHUTTER_BROWSER_MAX_CAPTURES: int(1, 1_000_000)
    .default(500)
    .describe('Captures after which the browser is replaced by a fresh one (bounds memory growth).'),
  SHUTTER_BOOTSTRAP_KEY: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(256)
    .refine((key) => hasValidChecksum(key), {
      message: 'a key starting with shk_ must be one made by `npx shutter keys create` (its checksum is wrong); or use a secret without that prefix',
    })
    .optional()
    .describe('When set, this API key is created at start if missing (never printed).'),
  SHUTTER_ALLOWED_PRIVATE_NETWORKS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parseCidrList(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
        return z.NEVER;
      }
    })
    .describe('Comma-separated CIDRs that targets may resolve to although private (e.g. 10.0.0.0/8,127.0.0.1/32).'),
  SHUTTER_MAX_FULL_PAGE_HEIGHT: int(100, 100_000)
    .default(20_000)
    .describe('Full-page captures are cut at this height in CSS px (X-Shutter-Truncated: height).'),
  SHUTTER_MAX_PIXELS: int(1_000_000, 500_000_000)
    .default(60_000_000)
    .describe(
      'Largest image in device pixels (width × height × dsf²): viewport captures over it get 400, full-page captures are cut to fit (X-Shutter-Truncated: height).',
    ),
  SHUTTER_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Log level (pino).'),
  SHUTTER_TRUST_PROXY: bool.default(false).describe('Trust X-Forwarded-* headers (behind a reverse proxy).'),
});

export type Config = z.output<typeof configSchema>;
