import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { AppError, type ErrorDetail } from '../../errors/app-error.js';
import { idempotencyKeyOf, type JobEntry, type JobIntake } from '../../jobs/job-intake.js';
import { jobJson } from '../../jobs/job-json.js';
import type { JobStore } from '../../jobs/job-store.js';
import { parseTakeOptions, type ParseContext } from '../../options/parse-take-options.js';
import { ERROR_RESPONSES, IDEMPOTENCY_KEY_HEADER, MAX_BULK_REQUESTS, ref } from '../api-schemas.js';
import { configured, defineRoute, type Unconfigured } from '../route.js';
import { baseUrlOf } from '../upload.js';

const BULK_FIELDS = new Set(['requests', 'defaults', 'webhook_url']);

/** What queueing a job needs: the intake (or why this server takes no jobs) and where links point. */
export interface JobQueueDeps {
  /** Queues jobs; Unconfigured (501) without a job backend or a file store for the results. */
  intake: Pick<JobIntake, 'accept'> | Unconfigured;
  /** SHUTTER_PUBLIC_URL; else links use the request's own origin. */
  publicUrl: string | undefined;
}

/** What the job routes need: queueing, reading jobs back, and parsing bulk entries. */
export interface JobRouteDeps extends JobQueueDeps {
  /** Reads jobs; absent on a server that takes none, where every job id is unknown (404). */
  jobs: Pick<JobStore, 'get'> | undefined;
  parse: ParseContext;
}

/** The 202 for queued jobs: each with its status URL. */
function created(request: FastifyRequest, publicUrl: string | undefined, id: string) {
  return { job_id: id, status: 'queued' as const, status_url: new URL(`/v1/jobs/${id}`, baseUrlOf(request, publicUrl)).toString() };
}

/**
 * async=1 on /v1/take: the options were parsed already (`params` as given); answers 202 with the job.
 * Called by the take route, which owns parsing.
 */
export async function acceptTakeJob(deps: JobQueueDeps, request: FastifyRequest, reply: FastifyReply, entry: JobEntry) {
  const intake = configured(deps.intake);
  if (request.signedLink) {
    throw new AppError('invalid_parameter', 'async=1 needs an API key, not a signed link', {
      details: [{ parameter: 'async', message: 'needs an API key, not a signed link' }],
    });
  }
  const answer = await intake.accept({
    caller: request.caller!,
    requestId: request.id,
    baseUrl: baseUrlOf(request, deps.publicUrl),
    entries: [entry],
    body: { take: entry.params },
    idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']),
    answer: ([id]) => ({ ...created(request, deps.publicUrl, id!), request_id: request.id }),
  });
  return reply.code(202).header('cache-control', 'no-store').send(answer);
}

/** POST /v1/bulk: every entry parsed before anything is queued; 202 with a job per entry, in order. */
function bulk(deps: JobRouteDeps): RouteHandlerMethod {
  return async (request, reply) => {
    const intake = configured(deps.intake);
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new AppError(
        'invalid_json',
        'the body must be a JSON object: { "requests": [ {…}, … ], "defaults"?: {…}, "webhook_url"?: "…" }',
      );
    }
    const { requests, defaults = {}, webhook_url: webhookUrl } = body as Record<string, unknown>;
    const unknown = Object.keys(body).filter((name) => !BULK_FIELDS.has(name));
    if (unknown.length > 0) {
      throw new AppError('unknown_parameter', `unknown field ${unknown[0]}; a bulk body has requests, defaults and webhook_url`, {
        details: unknown.map((name) => ({ parameter: name, message: 'unknown field; use requests, defaults or webhook_url' })),
      });
    }
    if (!Array.isArray(requests) || requests.length === 0 || requests.length > MAX_BULK_REQUESTS) {
      throw new AppError('invalid_parameter', `requests must be a list of 1 to ${MAX_BULK_REQUESTS} objects of capture parameters`, {
        details: [{ parameter: 'requests', message: `must be a list of 1 to ${MAX_BULK_REQUESTS} objects` }],
      });
    }
    if (defaults === null || typeof defaults !== 'object' || Array.isArray(defaults)) {
      throw new AppError('invalid_parameter', 'defaults must be an object of capture parameters', {
        details: [{ parameter: 'defaults', message: 'must be an object of capture parameters' }],
      });
    }
    if (webhookUrl !== undefined && typeof webhookUrl !== 'string') {
      throw new AppError('invalid_parameter', 'webhook_url must be an absolute http or https URL', {
        details: [{ parameter: 'webhook_url', message: 'must be an absolute http or https URL' }],
      });
    }
    // Every entry is checked before anything is queued; the first bad one names its index.
    const entries: JobEntry[] = [];
    const problems: Array<ErrorDetail & { index: number }> = [];
    let firstMessage: string | undefined;
    requests.forEach((entry: unknown, index) => {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
        problems.push({ index, parameter: `requests[${index}]`, message: 'must be an object of capture parameters' });
        firstMessage ??= `requests[${index}] must be an object of capture parameters`;
        return;
      }
      const params: Record<string, unknown> = {
        ...(defaults as Record<string, unknown>),
        ...(entry as Record<string, unknown>),
        async: true,
      };
      if (webhookUrl !== undefined && params.webhook_url === undefined) params.webhook_url = webhookUrl;
      try {
        entries.push({ params, options: parseTakeOptions(params, deps.parse) });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const details = error.extra.details ?? [{ parameter: `requests[${index}]`, message: error.message }];
        for (const detail of details) problems.push({ ...detail, index, parameter: `requests[${index}].${detail.parameter}` });
        firstMessage ??= `requests[${index}]: ${error.message}`;
      }
    });
    if (problems.length > 0) throw new AppError('invalid_parameter', firstMessage!, { details: problems });
    const answer = await intake.accept({
      caller: request.caller!,
      requestId: request.id,
      baseUrl: baseUrlOf(request, deps.publicUrl),
      entries,
      body: { bulk: body },
      idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']),
      answer: (ids) => ({
        jobs: ids.map((id, i) => ({ ...created(request, deps.publicUrl, id), external_id: entries[i]!.options.external_id ?? null })),
        request_id: request.id,
      }),
    });
    return reply.code(202).header('cache-control', 'no-store').send(answer);
  };
}

/** GET /v1/jobs/{id} and POST /v1/bulk. */
export const jobRoutes = [
  defineRoute<JobRouteDeps>({
    method: 'GET',
    url: '/v1/jobs/:id',
    // What clients poll while waiting: it identifies the caller and costs no rate.
    auth: 'key-unmetered',
    schema: () => ({
      summary: 'An async job of the calling account (async=1 or POST /v1/bulk)',
      params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      response: { 200: { description: 'The job', content: { 'application/json': { schema: ref('Job') } } }, ...ERROR_RESPONSES },
    }),
    handler: (deps) => async (request, reply) => {
      const { id } = request.params as { id: string };
      const job = deps.jobs ? await deps.jobs.get(id) : undefined;
      // Another account's job is answered exactly like one that does not exist.
      if (!job || job.accountId !== request.caller!.account.id) throw new AppError('not_found', `no job ${id.slice(0, 64)}`);
      return reply.header('cache-control', 'no-store').send(jobJson(job, { withWebhook: true }));
    },
  }),
  defineRoute<JobRouteDeps>({
    method: 'POST',
    url: '/v1/bulk',
    auth: 'key',
    schema: () => ({
      summary: `Queue up to ${MAX_BULK_REQUESTS} captures as jobs`,
      headers: IDEMPOTENCY_KEY_HEADER,
      body: ref('BulkRequest'),
      response: {
        202: {
          description: 'A job per request, in order',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { jobs: { type: 'array', items: ref('JobCreated') }, request_id: { type: 'string' } },
              },
            },
          },
        },
        ...ERROR_RESPONSES,
      },
    }),
    handler: bulk,
  }),
];
