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
    result: job.result ? { ...job.result, url: absoluteLink(job.result.url, base) } : null,
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
