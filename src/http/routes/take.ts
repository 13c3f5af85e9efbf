import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CaptureResult } from '../../capture/engine.js';
import { Timings } from '../../capture/timings.js';
import { AppError } from '../../errors/app-error.js';
import { downloadNameOf } from '../../options/attachment-name.js';
import { formatOf } from '../../formats/registry.js';
import { parseTakeOptions } from '../../options/parse-take-options.js';
import type { TakeOptions } from '../../options/schema.js';
import type { AppDeps } from '../app.js';
import { requireApiKey, requireApiKeyOrSignedLink } from '../auth.js';
import { setCaptureFlags } from '../capture-headers.js';
import { chargeCapture } from '../metering.js';
import { contentDisposition } from '../../util/content-disposition.js';
import { sendStored } from '../upload.js';
import { storeCapture } from '../../output/store-capture.js';
import { newDebugTrace } from '../../capture/debug-trace.js';
import { recordRequest } from '../request-record.js';
import { sendEmpty, sendJson } from '../json-answer.js';
import { type CacheAnswer, setCacheHeaders } from '../cache-headers.js';
import { cacheIdentity } from '../../cache/cache-identity.js';
import { etagOf } from '../../cache/capture-cache.js';
import type { DebugTrace } from '../../capture/debug-trace.js';
import type { StoredFile } from '../../storage/file-store.js';
import type { ApiKeyRecord } from '../../accounts/key-store.js';
import { recordCacheHit } from '../../usage/usage-store.js';
import { acceptTakeJob } from './jobs.js';
import { parseContextOf } from '../parse-context.js';
import { ParsedQueries } from '../parsed-queries.js';

/** Longer GET URLs (html in the query) are parsed every time. */
const MAX_REMEMBERED_URL = 4096;

/** GET and POST /v1/take: options in, file out. */
export function takeRoutes(app: FastifyInstance, deps: AppDeps): void {
  const authenticate = requireApiKey(deps.accounts);
  const context = parseContextOf(deps);

  const parsedQueries = new ParsedQueries();

  /** `query`: the GET request's raw query string, whose options may have been parsed before. */
  const take = async (raw: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply, query?: string) => {
    const options = query === undefined ? parseTakeOptions(raw, context) : parsedQueries.get(query, () => parseTakeOptions(raw, context));
    if (options.async) return acceptTakeJob(deps, request, reply, { params: raw, options });
    const timings = new Timings();
    const startedAt = new Date();
    const trace = options.debug ? newDebugTrace() : undefined;
    let outcome: Outcome;
    try {
      outcome = options.cache
        ? await cachedCapture(deps, request, reply, options, timings, trace)
        : await render(deps, reply, options, timings, trace);
      if (options.upload && !outcome.stored) outcome.stored = await storeCapture(deps.store, options, outcome.result);
    } catch (error) {
      await recordRequest(deps, request, options, startedAt, { status: statusOf(error), error }, trace);
      throw error;
    }
    await recordRequest(deps, request, options, startedAt, { status: 200 }, trace);
    const { result, stored, cached } = outcome;
    touchKey(deps, request.apiKey!);
    if (cached) setCacheHeaders(reply, cached);
    if (options.response_type === 'json') return sendJson(request, reply, result, stored, deps.publicUrl, timings, cached);
    if (options.response_type === 'empty') return sendEmpty(reply, result, timings);
    if (stored) return sendStored(request, reply, result, stored, deps.publicUrl, timings.toServerTiming());
    return sendCapture(request, reply, options, result, timings, cached?.entry.etag);
  };

  // HEAD would render a whole capture only to drop the body.
  app.get(
    '/v1/take',
    { preHandler: requireApiKeyOrSignedLink(deps.accounts, deps.signingSecret), exposeHeadRoute: false },
    (request, reply) => {
      const all = request.query as Record<string, unknown>;
      const url = request.raw.url ?? '';
      // Options parsed from the same query string before are reused; one holding the key itself, or long, is not remembered.
      const remembered =
        all.apikey === undefined && url.length <= MAX_REMEMBERED_URL
          ? `${request.signedLink ? 'signed' : 'key'}?${url.slice(url.indexOf('?') + 1)}`
          : undefined;
      if (!request.signedLink) return take(all, request, reply, remembered);
      // A signed link's own parameters are not capture options.
      const { access_key: _key, signature: _signature, expires: _expires, ...query } = all;
      return take(query, request, reply, remembered);
    },
  );

  app.post('/v1/take', { preHandler: authenticate }, (request, reply) => {
    // Query parameters (other than apikey) are allowed alongside a body; the body wins a tie.
    if (Array.isArray(request.body) || (request.body !== undefined && request.body !== null && typeof request.body !== 'object')) {
      throw new AppError('invalid_json', 'the body must be a JSON object of parameters');
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    return take({ ...(request.query as Record<string, unknown>), ...body }, request, reply);
  });
}

interface Outcome {
  result: CaptureResult;
  stored?: StoredFile | undefined;
  cached?: CacheAnswer;
}

/** A capture for this caller: charged only when it (and its upload) succeeds. */
async function render(
  deps: AppDeps,
  reply: FastifyReply,
  options: TakeOptions,
  timings: Timings,
  trace: DebugTrace | undefined,
): Promise<Outcome> {
  return chargeCapture(deps.accounts, reply, async () => {
    const captured = await deps.engine.capture(options, timings, trace);
    return { result: captured, stored: options.upload ? await storeCapture(deps.store, options, captured) : undefined };
  });
}

/**
 * cache=1: the account's stored file for the same output (HIT, not charged), or a render that is
 * stored for cache_ttl (MISS, charged) and shared with identical requests arriving meanwhile, on
 * this node and, with Redis, on others (they answer HIT: one render, one charge).
 */
async function cachedCapture(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  options: TakeOptions,
  timings: Timings,
  trace: DebugTrace | undefined,
): Promise<Outcome> {
  const cache = deps.cache;
  if (!cache || !deps.coalescer) throw new AppError('not_implemented', 'cache=1 needs a file store, and this server has none');
  const caller = request.caller!;
  const key = cacheIdentity(caller.account.id, options);
  const hit = await cache.get(key);
  const countHit = () => recordCacheHit(deps.accounts.db.kysely, { keyId: caller.key.id, accountId: caller.account.id, at: new Date() });
  if (hit) {
    await countHit();
    return { result: hit.result, cached: { state: 'HIT', entry: hit } };
  }
  const { value, led } = await deps.coalescer.run(
    key,
    async () => {
      const { result } = await render(deps, reply, { ...options, upload: false }, timings, trace);
      // A cache that cannot store is no reason to fail a capture that was made and charged.
      const entry = await cache.put(key, caller.account.id, result, options.cache_ttl).catch((error: unknown) => {
        request.log.warn({ err: error }, 'could not store the capture in the cache');
        return undefined;
      });
      return { result, entry };
    },
    async () => {
      const found = await cache.get(key);
      return found ? { result: found.result, entry: found } : null;
    },
    options.timeout * 1000 + 5_000,
  );
  if (!led) await countHit();
  return { result: value.result, ...(value.entry ? { cached: { state: led ? 'MISS' : 'HIT', entry: value.entry } } : {}) };
}

function sendCapture(
  request: FastifyRequest,
  reply: FastifyReply,
  options: TakeOptions,
  result: CaptureResult,
  timings: Timings,
  etag = etagOf(result.body),
) {
  const downloadName = downloadNameOf(options.attachment_name, result.format);
  const disposition = downloadName
    ? contentDisposition('attachment', downloadName)
    : contentDisposition('inline', `screenshot.${formatOf(result.format).extension}`);
  reply
    .header('content-type', result.contentType)
    .header('content-length', result.body.length)
    .header('content-disposition', disposition)
    .header('server-timing', timings.toServerTiming())
    .header('etag', etag);
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  setCaptureFlags(reply, result);
  // The caller has these bytes already.
  if (request.headers['if-none-match'] === etag) return reply.code(304).removeHeader('content-length').send();
  return reply.send(result.body);
}

/** A key's last_used_at is rewritten at most this often (it tells people whether a key is in use, not when exactly). */
export const TOUCH_EVERY_MS = 60_000;

/** Records that the key was used, unless the time read with it (this request) is recent enough. */
function touchKey(deps: AppDeps, key: ApiKeyRecord, now = Date.now()): void {
  const last = key.lastUsedAt === null ? Number.NaN : Date.parse(key.lastUsedAt);
  if (!(now - last < TOUCH_EVERY_MS)) void deps.accounts.keys.touch(key.id);
}

function statusOf(error: unknown): number {
  return error instanceof AppError ? error.status : 500;
}
