import type { Account } from '../../accounts/account-store.js';
import { absoluteLink } from '../../jobs/job-json.js';
import type { Job } from '../../jobs/job-store.js';
import { html, type SafeHtml } from '../html.js';
import { frameUser, layout } from '../layout.js';

/** How many jobs the page lists. */
export const JOBS_SHOWN = 100;

/** What the Jobs page needs besides the jobs. */
export interface JobsView {
  account: Account;
  csrf: string;
  /** The dashboard's own origin (`http://host:port`): the curl example and relative result links. */
  origin: string;
  now: Date;
  /** False when this server takes no async jobs. */
  enabled: boolean;
}

/** A duration for people: `850 ms`, `3.2 s`, `4 min 05 s`, `2 h 07 min`. */
export function formatDuration(ms: number): string {
  const t = Math.max(0, ms);
  if (t < 1000) return `${Math.round(t)} ms`;
  if (t < 59_950) return `${(t / 1000).toFixed(1)} s`;
  const s = Math.round(t / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
}

/** A file size for people: `812 B`, `12.3 kB`, `4.1 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A moment in UTC, machine-readable in `datetime`. */
const when = (at: Date): SafeHtml => html`<time datetime="${at.toISOString()}">${at.toISOString().replace('T', ' ').slice(0, 19)}</time>`;

const none = html`<span class="muted">–</span>`;

function duration(job: Job, now: Date): SafeHtml {
  if (job.startedAt && job.finishedAt) return html`${formatDuration(job.finishedAt.getTime() - job.startedAt.getTime())}`;
  if (job.status === 'running' && job.startedAt) {
    return html`<span class="muted">running for</span> ${formatDuration(now.getTime() - job.startedAt.getTime())}`;
  }
  if (job.status === 'queued') return html`<span class="muted">waiting ${formatDuration(now.getTime() - job.createdAt.getTime())}</span>`;
  return none;
}

/** The stored file's link while it lasts, or the error; nothing while the job has not ended. */
function outcome(job: Job, now: Date, origin: string): SafeHtml {
  if (job.status === 'succeeded' && job.result) {
    const { result } = job;
    const stamp = result.expires_at ? new Date(result.expires_at) : null;
    const expires = stamp && !Number.isNaN(stamp.getTime()) ? stamp : null;
    if (expires && expires.getTime() <= now.getTime()) {
      return html`<span class="muted">${result.format} · ${formatSize(result.size)}, expired ${when(expires)}</span>`;
    }
    const link = absoluteLink(result.url, job.baseUrl ?? origin);
    // Links come from the file store; anything but http(s) is never made clickable all the same.
    if (!/^https?:\/\//i.test(link)) return html`<span class="muted">${result.format} · ${formatSize(result.size)}</span>`;
    return html`<a class="result-link" href="${link}" target="_blank" rel="noopener noreferrer">${result.format} · ${formatSize(result.size)}</a>${
      expires ? html`<small class="muted">until ${when(expires)}</small>` : ''
    }`;
  }
  if (job.status === 'failed' && job.error) {
    return html`<code class="error-text">${job.error.code}</code><small class="job-error">${job.error.message}</small>`;
  }
  return none;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The webhook's outcome: none asked for, delivered, or the attempts so far and the next one. */
function webhook(job: Job): SafeHtml {
  if (!job.webhookUrl) return html`<span class="muted">none</span>`;
  const w = job.webhook;
  if (w.deliveredAt) {
    return html`<span class="hook-delivered">delivered</span><small>${when(w.deliveredAt)}</small><small class="muted">${plural(w.attempts, 'attempt')}${
      w.lastStatus !== null ? `, HTTP ${w.lastStatus}` : ''
    }</small>`;
  }
  if (w.attempts === 0) {
    return html`<span class="muted">${job.status === 'queued' || job.status === 'running' ? 'when the job ends' : 'not sent yet'}</span>`;
  }
  const last = w.lastStatus !== null ? `HTTP ${w.lastStatus}` : (w.lastError ?? 'no answer');
  return html`<span class="hook-failing">${plural(w.attempts, 'attempt')}</span><small>last: ${last}</small>${
    w.nextAt ? html`<small class="muted">next attempt ${when(w.nextAt)}</small>` : html`<small class="error-text">gave up</small>`
  }`;
}

function row(job: Job, view: JobsView): SafeHtml {
  return html`<tr data-job-id="${job.id}" data-status="${job.status}">
      <td><span class="job-status ${job.status}">${job.status}</span><small class="muted"><code>${job.id}</code></small></td>
      <td class="created">${when(job.createdAt)}</td>
      <td>${duration(job, view.now)}</td>
      <td class="url">${job.url ?? html`<span class="muted">html</span>`}</td>
      <td>${job.format}</td>
      <td class="external-id">${job.externalId ?? none}</td>
      <td class="outcome">${outcome(job, view.now, view.origin)}</td>
      <td class="webhook">${webhook(job)}</td>
    </tr>`;
}

/** How to queue a job, runnable as written once SHUTTER_KEY holds one of the account's keys. */
function howTo(origin: string): SafeHtml {
  return html`<div class="card" id="no-jobs"><p>No jobs yet. Add <code>async=1</code> to a capture and it is queued: the answer
      (<code>202</code>, with the job's id) comes at once, the capture runs in the background, and the job shows up here.</p>
    <pre id="jobs-curl">curl -H "apikey: $SHUTTER_KEY" -d async=1 -d url=https://example.com -d external_id=my-first-job "${origin}/v1/take"</pre>
    <p class="muted">Put one of your keys (<a href="/dashboard/keys">Keys</a>) in <code>SHUTTER_KEY</code> first. Add
      <code>webhook_url=…</code> to be told when the job ends; <code>GET /v1/jobs/{job_id}</code> answers its status too.</p></div>`;
}

/** The account's most recent async jobs, newest first: status, timing, target, result or error, webhook. */
export function jobsPage(view: JobsView, jobs: readonly Job[]): string {
  let body: SafeHtml;
  if (!view.enabled) {
    body = html`<p id="no-jobs">This server takes no async jobs.</p>`;
  } else if (jobs.length === 0) {
    body = howTo(view.origin);
  } else {
    body = html`<p><a href="/dashboard/jobs">Reload</a></p>
      <table id="jobs"><thead><tr><th>Status</th><th>Created (UTC)</th><th>Duration</th><th>Target</th><th>Format</th>
        <th>External ID</th><th>Result</th><th>Webhook</th></tr></thead>
      <tbody>${jobs.map((job) => row(job, view))}</tbody></table>`;
  }
  return layout({
    title: 'Jobs',
    user: frameUser(view.account, view.csrf),
    body: html`<h1>Jobs</h1>
      <p class="muted">Your last ${JOBS_SHOWN} async captures (<code>async=1</code>, <code>/v1/bulk</code>), newest first. A result's link
        opens the stored file until it expires.</p>
      ${body}`,
  });
}
