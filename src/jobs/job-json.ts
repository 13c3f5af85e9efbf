import type { Job } from './job-store.js';

/** A stored file's link as callers use it: a path on this service becomes absolute against `baseUrl`. */
export function absoluteLink(url: string, baseUrl: string | null | undefined): string {
  return url.startsWith('/') && baseUrl ? new URL(url, baseUrl).toString() : url;
}

/**
 * The job as `GET /v1/jobs/{id}` answers it and as its webhook carries it (DESIGN.md §4.3);
 * `webhook` (delivery attempts and outcome) is in the GET answer only: the webhook's body is
 * signed once, not per attempt.
 */
export function jobJson(job: Job, input: { baseUrl?: string | null; withWebhook?: boolean } = {}) {
  const base = input.baseUrl ?? job.baseUrl;
  return {
    job_id: job.id,
    status: job.status,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
    external_id: job.externalId,
    request_id: job.requestId,
    result: job.result
      ? {
          ...job.result,
          url: absoluteLink(job.result.url, base),
          ...(job.result.extra
            ? {
                extra: Object.fromEntries(
                  Object.entries(job.result.extra).map(([format, file]) => [format, { ...file, url: absoluteLink(file.url, base) }]),
                ),
              }
            : {}),
        }
      : null,
    error: job.error,
    ...(input.withWebhook && job.webhookUrl
      ? {
          webhook: {
            url: job.webhookUrl,
            attempts: job.webhook.attempts,
            last_status: job.webhook.lastStatus,
            last_error: job.webhook.lastError,
            delivered_at: job.webhook.deliveredAt?.toISOString() ?? null,
            next_attempt_at: job.webhook.nextAt?.toISOString() ?? null,
          },
        }
      : {}),
  };
}

export type JobJson = ReturnType<typeof jobJson>;

const nullableString = { type: ['string', 'null'] } as const;

/**
 * The JSON Schema of jobJson's answer (OpenAPI components.schemas.Job), beside the code that builds
 * it; the type check below holds the two to the same fields.
 */
export const JOB_JSON_SCHEMA = {
  type: 'object',
  properties: {
    job_id: { type: 'string' },
    status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
    created_at: { type: 'string', format: 'date-time' },
    started_at: { type: ['string', 'null'], format: 'date-time' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
    external_id: nullableString,
    request_id: { type: 'string' },
    result: {
      type: ['object', 'null'],
      properties: {
        url: { type: 'string' },
        expires_at: nullableString,
        format: { type: 'string' },
        content_type: { type: 'string' },
        size: { type: 'integer' },
        extra: {
          type: 'object',
          description: 'extra_formats: each one’s stored file, by format',
          additionalProperties: {
            type: 'object',
            properties: { url: { type: 'string' }, content_type: { type: 'string' }, size: { type: 'integer' } },
          },
        },
      },
    },
    error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
    webhook: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        attempts: { type: 'integer' },
        last_status: { type: ['integer', 'null'] },
        last_error: nullableString,
        delivered_at: nullableString,
        next_attempt_at: nullableString,
      },
    },
  },
} as const;

/** True when A and B are the same set of names. */
type SameNames<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Fields<T> = keyof NonNullable<T>;
type Described = typeof JOB_JSON_SCHEMA.properties;

/** Does not compile when jobJson and JOB_JSON_SCHEMA name different fields (the job, its result, its error, its webhook). */
export const JOB_JSON_SCHEMA_MATCHES: [
  SameNames<Fields<JobJson>, keyof Described>,
  SameNames<Fields<JobJson['result']>, keyof Described['result']['properties']>,
  SameNames<Fields<JobJson['error']>, keyof Described['error']['properties']>,
  SameNames<Fields<JobJson['webhook']>, keyof Described['webhook']['properties']>,
] = [true, true, true, true];
