import type { FastifyReply } from 'fastify';
import type { AccountServices } from '../accounts/services.js';

/**
 * Runs a capture for the authenticated caller of `reply`'s request under the plan's concurrency
 * limit and quota (429 concurrency_limited / quota_exceeded); only a capture that succeeds is
 * charged, and the response then shows the quota left after it.
 */
export function chargeCapture<T>(services: AccountServices, reply: FastifyReply, run: () => Promise<T>): Promise<T> {
  const caller = reply.request.caller;
  if (!caller) throw new Error('chargeCapture needs a request that passed requireApiKey');
  return services.meter.charge(caller, run, (headers) => reply.headers(headers));
}
