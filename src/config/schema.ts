import { z } from 'zod';
import { hasValidChecksum } from '../values/api-key.js';
import { parseCidrList } from '../values/cidr.js';
import { parseProxyTable } from '../values/proxy-table.js';
import { parseDnsServers } from '../values/dns-servers.js';

/** EasyList and EasyPrivacy as Debian's webext-ublock-origin-chromium ships them: blocking works offline. */
const DEBIAN_LISTS = [
  '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easylist.txt',
  '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easyprivacy.txt',
];

const int = (min: number, max: number) => {
  const error = `must be an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};
/** A text setting (empty by default) turned into a value by `parse`; the Error it throws names the problem. */
const parsedText = <T>(parse: (text: string) => T) =>
  z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parse(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
        return z.NEVER;
      }
    });
const bool = z.enum(['1', '0', 'true', 'false', 'yes', 'no']).transform((v) => v === '1' || v === 'true' || v === 'yes');

/**
 * Every SHUTTER_* environment variable: the single source of truth for defaults,
 * validation and the README's configuration table.
 */
export const configSchema = z.object({
  SHUTTER_PORT: int(0, 65535).default(8080).describe('TCP port the HTTP server listens on.'),
  SHUTTER_HOST: z.string().min(1).default('0.0.0.0').describe('Interface to bind; 127.0.0.1 to keep it local.'),
  SHUTTER_DATA_DIR: z.string().min(1).default('./data').describe('Directory for the SQLite database and stored files.'),
  SHUTTER_CHROMIUM_PATH: z.string().optional().describe('Chromium binary. Default: chromium-headless-shell, then chromium, found on PATH.'),
  SHUTTER_FFMPEG_PATH: z
    .string()
    .optional()
    .describe(
      'ffmpeg binary for /v1/animate. Default: ffmpeg on PATH, then /usr/bin/ffmpeg; none (or not executable): animations answer 503.',
    ),
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
      message:
        'a key starting with shk_ must be one made by `npx shutter keys create` (its checksum is wrong); or use a secret without that prefix',
    })
    .optional()
    .describe('When set, this API key is created at start if missing (never printed), on the operator account (plan scale).'),
  SHUTTER_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL (leave unset for the SQLite file in SHUTTER_DATA_DIR)')
    .optional()
    .describe('postgres://user:password@host:5432/db for accounts, keys and usage; default: SQLite file in SHUTTER_DATA_DIR.'),
  SHUTTER_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional()
    .describe('redis://host:6379 to share rate limits, concurrency and quota reservations between instances; default: in memory.'),
  SHUTTER_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{0,64}$/, 'letters, digits and : _ . - only')
    .default('shutter:')
    .describe('Prefix of every Redis key, so deployments can share one Redis.'),
  SHUTTER_PLANS_FILE: z
    .string()
    .optional()
    .describe(
      'JSON file {"plans":[{"name","max_keys","monthly_quota","rate_per_minute","concurrency","max_queued_jobs"}]} adding to or replacing the default plans.',
    ),
  SHUTTER_SIGNUPS: bool.default(true).describe('Let anyone sign up in the dashboard (/dashboard); 0 leaves account creation to the CLI.'),
  SHUTTER_ALLOWED_PRIVATE_NETWORKS: parsedText(parseCidrList).describe(
    'Comma-separated CIDRs that pages may reach although private (e.g. 10.0.0.0/8,127.0.0.1/32): the target, redirects and every subresource (docs/security.md).',
  ),
  SHUTTER_DNS_SERVERS: parsedText(parseDnsServers).describe(
    "DNS servers the egress guard asks, comma-separated (IP or IP:port, e.g. 1.1.1.1,127.0.0.1:5353). Default: the system's (/etc/resolv.conf). The hosts file and resolv.conf's search list apply either way.",
  ),
  SHUTTER_DNS_TIMEOUT_MS: int(100, 30_000)
    .default(2000)
    .describe('Longest a DNS lookup of the egress guard may take; past it the host counts as unresolvable for the page (remembered 5 s).'),
  SHUTTER_PAGE_MEMORY_MB: int(128, 16_384)
    .default(1024)
    .describe('JavaScript heap limit of each page in MB; a page over it crashes alone (422) and the service goes on.'),
  SHUTTER_SHUTDOWN_TIMEOUT: int(0, 600)
    .default(30)
    .describe('Seconds in-flight captures may take to finish after SIGTERM/SIGINT before the browser is stopped.'),
  SHUTTER_MAX_FULL_PAGE_HEIGHT: int(100, 100_000)
    .default(20_000)
    .describe('Full-page captures are cut at this height in CSS px (X-Shutter-Truncated: height).'),
  SHUTTER_MAX_PIXELS: int(1_000_000, 500_000_000)
    .default(60_000_000)
    .describe(
      'Largest image in device pixels (width × height × dsf²): viewport captures over it get 400, full-page captures are cut to fit (X-Shutter-Truncated: height).',
    ),
  SHUTTER_ADBLOCK_LISTS: z
    .string()
    .default(DEBIAN_LISTS.join(','))
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .describe(
      "Comma-separated filter lists (file paths or http(s) URLs) for block_ads. Default: EasyList and EasyPrivacy from Debian's webext-ublock-origin-chromium.",
    ),
  SHUTTER_ADBLOCK_REFRESH_HOURS: int(0, 24 * 30)
    .default(24)
    .describe('How often filter lists given as URLs are downloaded again (0 = only at start).'),
  SHUTTER_STORAGE: z
    .enum(['local', 's3'])
    .default('local')
    .describe('Where upload=1 keeps captures: local (the data dir, served by Shutter at signed URLs) or s3.'),
  SHUTTER_STORAGE_TTL_HOURS: int(1, 168)
    .default(24)
    .describe('How long upload=1 links work; local files are deleted after it. At most 7 days (S3 presigning limit).'),
  SHUTTER_SIGNING_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe('HMAC secret of local file links. Default: generated once and kept in the data dir.'),
  SHUTTER_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://shots.example.com' })
    .optional()
    .describe("Public base URL of this service, for links to locally stored files. Default: taken from the request's Host."),
  SHUTTER_S3_BUCKET: z.string().min(1).optional().describe('Bucket for SHUTTER_STORAGE=s3 (required then).'),
  SHUTTER_S3_REGION: z.string().min(1).default('us-east-1').describe('Region of the bucket.'),
  SHUTTER_S3_ENDPOINT: z
    .url({ error: 'must be a URL such as http://127.0.0.1:9000' })
    .optional()
    .describe('Endpoint of an S3-compatible service (MinIO, R2, …). Default: AWS.'),
  SHUTTER_S3_PREFIX: z.string().default('').describe('Key prefix for stored captures, e.g. shots/.'),
  SHUTTER_S3_FORCE_PATH_STYLE: bool.default(false).describe('Path-style bucket URLs (needed by MinIO and most self-hosted services).'),
  SHUTTER_S3_ACCESS_KEY_ID: z.string().optional().describe('Access key; default: the AWS SDK credential chain.'),
  SHUTTER_S3_SECRET_ACCESS_KEY: z.string().optional().describe('Secret key; default: the AWS SDK credential chain.'),
  SHUTTER_S3_PUBLIC_BASE_URL: z
    .url({ error: 'must be a URL' })
    .optional()
    .describe('Public base URL of the bucket: links become <base>/<key> and do not expire, instead of presigned URLs.'),
  SHUTTER_PROXIES: parsedText(parseProxyTable).describe(
    'Per-country proxies for ip_country_code: JSON mapping a lowercase country code to a proxy URL or a list (round-robin), e.g. {"de":"http://user:pass@host:3128","us":["socks5://host:1080"]}.',
  ),
  SHUTTER_METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe('When set, GET /metrics wants it as `Authorization: Bearer <token>` (401 otherwise); unset, /metrics is open.'),
  SHUTTER_ROLE: z
    .enum(['all', 'worker'])
    .default('all')
    .describe(
      'What `serve` runs: all (HTTP API, sync captures and jobs) or worker (jobs, with /healthz, /readyz and /metrics only). `serve --role` overrides it.',
    ),
  SHUTTER_JOB_CONCURRENCY: int(0, 64)
    .optional()
    .describe('Async jobs one process captures at a time. Default: SHUTTER_CONCURRENCY. 0: this process runs no jobs (API only).'),
  SHUTTER_JOB_LEASE_MS: int(1_000, 600_000)
    .default(30_000)
    .describe(
      'How long a worker holds a job without renewing; a worker that died is replaced after it (the job runs elsewhere, charged once).',
    ),
  SHUTTER_WEBHOOK_RETRY_MS: int(10, 3_600_000)
    .default(60_000)
    .describe('Pause before the first webhook retry; it doubles each time (7 tries: about an hour at the default).'),
  SHUTTER_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('Log level (pino).'),
  SHUTTER_TRUST_PROXY: bool.default(false).describe('Trust X-Forwarded-* headers (behind a reverse proxy).'),
});

export type Config = z.output<typeof configSchema>;
