import type { AccountServices } from '../accounts/services.js';
import type { CaptureEngine } from '../capture/engine.js';
import type { JobIntake } from '../jobs/job-intake.js';
import type { JobStore } from '../jobs/job-store.js';
import type { Metrics } from '../observability/metrics.js';
import type { ParseContext } from '../options/parse-take-options.js';
import type { FileStore } from '../storage/file-store.js';
import type { TakeCapture } from '../take/take-capture.js';
import type { Logger } from 'pino';

/**
 * What the service hands the HTTP layer (src/service.ts), injected so tests can swap the engine.
 * No route sees it whole: the route table (route-table.ts) picks each route's narrow dependencies.
 */
export interface AppParts {
  engine: CaptureEngine;
  /** Accounts, keys, plans, usage and limits. */
  accounts: AccountServices;
  logger: Logger;
  version: string;
  /** How capture options are parsed on this server (proxy countries, SHUTTER_MAX_PIXELS): built once, by the service. */
  parse: ParseContext;
  trustProxy?: boolean;
  /** Where upload=1 and async jobs store captures; without one, they answer 501. */
  store?: FileStore;
  /** Base URL for links to locally stored files (default: from the request). */
  publicUrl?: string;
  /** The take use case (cache, charge, engine, store, request log). */
  take: TakeCapture;
  /** SHUTTER_SIGNING_SECRET (or the data dir's): keys' signing secrets derive from it; without it, signed links are refused. */
  signingSecret?: Buffer;
  /** GET /metrics and the hooks that feed it (limit refusals, cache hits); absent, no /metrics. */
  metrics?: Metrics;
  /** SHUTTER_METRICS_TOKEN: when set, /metrics wants it as a Bearer token. */
  metricsToken?: string;
  /** Async jobs (async=1, /v1/jobs, /v1/bulk); absent where the server takes none. */
  jobs?: { intake: JobIntake; store: JobStore };
  /** False on a worker (`serve --role worker`): health and metrics only, no public API. */
  api?: boolean;
}
