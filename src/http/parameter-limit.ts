import { parse } from 'node:querystring';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';

/**
 * Parameters one request may carry, query and body together. The options schema has about 40;
 * without a cap, 10 000 unknown names cost seconds of "did you mean" work on the event loop.
 */
export const MAX_PARAMETERS = 200;

/** Form bodies: parsing stops one key past the cap, so a flood costs no more than a normal form. */
export function parseFormBody(body: string): Record<string, unknown> {
  return parse(body, '&', '=', { maxKeys: MAX_PARAMETERS + 1 });
}

const countKeys = (value: unknown) =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).length : 0;

/** A preValidation hook: too many parameters → 400 at once, before authentication or parsing of options. */
export async function limitParameters(request: FastifyRequest): Promise<void> {
  const count = countKeys(request.query) + countKeys(request.body);
  if (count > MAX_PARAMETERS) {
    throw new AppError('invalid_parameter', `too many parameters: a request takes at most ${MAX_PARAMETERS}`);
  }
}
