import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../errors/config-error.js';

/** What an account may do (DESIGN.md §1 "Plans, keys, quotas"). */
export interface Plan {
  name: string;
  /** Active keys at a time. */
  maxKeys: number;
  /** Successful captures per calendar month (UTC). */
  monthlyQuota: number;
  /** Authenticated requests per minute. */
  ratePerMinute: number;
  /** Captures in progress at once. */
  concurrency: number;
  /** Async jobs queued or running at once (DESIGN.md §4.3). */
  maxQueuedJobs: number;
}

/** The defaults of DESIGN.md; a plans file adds to them or replaces one by name. */
export const DEFAULT_PLANS: readonly Plan[] = [
  { name: 'free', maxKeys: 1, monthlyQuota: 100, ratePerMinute: 10, concurrency: 2, maxQueuedJobs: 10 },
  { name: 'basic', maxKeys: 5, monthlyQuota: 2_000, ratePerMinute: 40, concurrency: 5, maxQueuedJobs: 100 },
  { name: 'growth', maxKeys: 20, monthlyQuota: 10_000, ratePerMinute: 80, concurrency: 10, maxQueuedJobs: 500 },
  { name: 'scale', maxKeys: 100, monthlyQuota: 50_000, ratePerMinute: 150, concurrency: 25, maxQueuedJobs: 2_000 },
];

/** New sign-ups start here. */
export const SIGNUP_PLAN = 'free';
/** The operator's account (bootstrap key, CLI keys without --email). */
export const OPERATOR_PLAN = 'scale';

const count = (max: number) => z.number().int().min(1).max(max);
const planFileSchema = z.strictObject({
  plans: z.array(
    z.strictObject({
      name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'a plan name is 1–32 lower-case letters, digits, _ or -'),
      max_keys: count(10_000),
      monthly_quota: z.number().int().min(0).max(1_000_000_000),
      rate_per_minute: count(1_000_000),
      concurrency: count(10_000),
      max_queued_jobs: count(1_000_000).optional(),
    }),
  ),
});

/** The plans in force: the defaults merged with the operator's file. */
export class Plans {
  private readonly byName: Map<string, Plan>;

  constructor(plans: readonly Plan[] = DEFAULT_PLANS) {
    this.byName = new Map(plans.map((p) => [p.name, p]));
  }

  /** The plan of this name, or undefined. */
  get(name: string): Plan | undefined {
    return this.byName.get(name);
  }

  /**
   * The plan an account on `name` gets. A name that left the plans file falls back to `free`,
   * the least an account can do, rather than locking the account out.
   */
  resolve(name: string): Plan {
    return this.byName.get(name) ?? this.byName.get(SIGNUP_PLAN)!;
  }

  /** Every plan, in file order (defaults first). */
  all(): Plan[] {
    return [...this.byName.values()];
  }
}

/** The default plans merged with `SHUTTER_PLANS_FILE` (when given); a bad file stops the start. */
export function loadPlans(file: string | undefined): Plans {
  if (!file) return new Plans();
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`SHUTTER_PLANS_FILE=${file}: ${(error as Error).message}`);
  }
  const parsed = planFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(file)'}: ${i.message}`);
    throw new ConfigError(`SHUTTER_PLANS_FILE=${file} is not a valid plans file:\n${problems.join('\n')}`);
  }
  const merged = new Map(DEFAULT_PLANS.map((p) => [p.name, p]));
  for (const p of parsed.data.plans) {
    merged.set(p.name, {
      name: p.name,
      maxKeys: p.max_keys,
      monthlyQuota: p.monthly_quota,
      ratePerMinute: p.rate_per_minute,
      concurrency: p.concurrency,
      // A plan file written before jobs existed keeps working: the default plan's cap, else 100.
      maxQueuedJobs: p.max_queued_jobs ?? merged.get(p.name)?.maxQueuedJobs ?? 100,
    });
  }
  return new Plans([...merged.values()]);
}
