import type { FastifySchema, HTTPMethods, RouteHandlerMethod } from 'fastify';
import { AppError } from '../errors/app-error.js';

/**
 * Who may call a route; the app puts the matching preHandler in front of it (src/http/auth.ts).
 * `key-unmetered` identifies the caller without counting the request against the rate limit (polling).
 */
export type RouteAuth = 'none' | 'key' | 'key-unmetered' | 'key-or-signed-link';

/**
 * A route's entry in the OpenAPI document, in Fastify's schema shape so @fastify/swagger reads it.
 * Documentation only: the serving app never gives it to Fastify, so nothing is validated or
 * serialized through it (the options parser answers bad input, with its own 400s).
 */
export interface RouteSchema extends FastifySchema {
  summary?: string;
  description?: string;
  /** Content types of the request body (the body schema applies to each). */
  consumes?: string[];
  security?: Array<Record<string, string[]>>;
  /** The operation's request body may be left out (the parameters can come in the query alone). */
  'x-body-optional'?: boolean;
}

/** One HTTP route as it declares itself: what it is, and a handler built from the narrow dependencies `D`. */
export interface RouteDeclaration<D = void> {
  method: HTTPMethods;
  url: string;
  auth: RouteAuth;
  /**
   * Its OpenAPI entry, built when the document is (not at start-up: the take options' JSON Schema is
   * not free); a route without one is not in the document (probes, docs, metrics, files).
   */
  schema?: () => RouteSchema;
  /** Fastify adds a HEAD route to every GET unless told not to. */
  exposeHeadRoute?: boolean;
  handler: (deps: D) => RouteHandlerMethod;
}

/** Declares a route; the identity, for the type check and to say what the object is. */
export function defineRoute<D = void>(route: RouteDeclaration<D>): RouteDeclaration<D> {
  return route;
}

/**
 * A dependency this server was built without. The wiring decides it once (src/http/route-table.ts);
 * a route that needs it answers 501 with the reason.
 */
export class Unconfigured {
  constructor(readonly reason: string) {}
}

/** The dependency, or the 501 not_implemented that says why this server has none. */
export function configured<T>(dependency: T | Unconfigured): T {
  if (dependency instanceof Unconfigured) throw new AppError('not_implemented', dependency.reason);
  return dependency;
}
