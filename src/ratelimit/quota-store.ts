import type { Transaction } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { Period } from '../usage/period.js';

/** A unit of quota held by a capture in flight. */
export interface Reservation {
  id: string;
  accountId: string;
  keyId: string;
  period: Period;
}

/** The answer to a reservation: granted, or why not (used up, or held by captures in flight). */
export type QuotaDecision = { granted: true; reservation: Reservation; used: number } | { granted: false; used: number; inFlight: number };

/**
 * The monthly quota, exact under concurrency and across instances: a capture reserves a unit before
 * it starts, commits it when it succeeded (then it counts) or releases it when it failed (then it
 * does not). `used + in flight` never passes the limit, so a quota of N admits exactly N successes.
 */
export interface QuotaStore {
  /** `ttlMs`: how long the unit is held at most (default RESERVATION_TTL_MS; a queued job holds it longer). */
  reserve(input: { accountId: string; keyId: string; limit: number; period: Period; now: Date; ttlMs?: number }): Promise<QuotaDecision>;
  /** Counts the capture (also per key per day); returns the account's count for the period after it. */
  commit(reservation: Reservation, now: Date): Promise<number>;
  /**
   * Counts the capture only if `claim`, run in the same database transaction as the count, returns
   * true (a job's run that still owns the job marks it succeeded): the job and its charge land together
   * or not at all, so a job that runs twice is charged once.
   */
  commitIf(reservation: Reservation, now: Date, claim: (trx: Transaction<Tables>) => Promise<boolean>): Promise<boolean>;
  release(reservation: Reservation): Promise<void>;
  /** Successful captures of the account in the period. */
  used(accountId: string, period: Period): Promise<number>;
}

/** A reservation of a crashed instance stops holding quota after this (longer than any capture may run). */
export const RESERVATION_TTL_MS = 10 * 60 * 1000;
