import type { Account } from '../../accounts/account-store.js';
import type { LoggedRequest } from '../../requests/request-log.js';
import { html } from '../html.js';
import { frameUser, layout } from '../layout.js';

interface Visitor {
  account: Account;
  csrf: string;
}

/** Recent captures of the account (7 days): status, duration, and the debug bundle when there is one. */
export function requestsPage(visitor: Visitor, requests: LoggedRequest[]): string {
  const rows = requests.map(
    (r) => html`<tr>
      <td><time datetime="${r.createdAt}">${r.createdAt.replace('T', ' ').slice(0, 19)}</time></td>
      <td class="${r.status === 200 ? '' : 'error'}">${String(r.status)}${r.errorCode ? html` <small>${r.errorCode}</small>` : ''}</td>
      <td>${String(r.durationMs)} ms</td>
      <td>${r.format}</td>
      <td class="url">${r.url ?? html`<span class="muted">html</span>`}</td>
      <td>${r.hasBundle ? html`<a href="/dashboard/requests/${encodeURIComponent(r.requestId)}">bundle</a>` : html`<span class="muted">–</span>`}</td>
    </tr>`,
  );
  return layout({
    title: 'Requests',
    user: frameUser(visitor.account, visitor.csrf),
    body: html`<h1>Requests</h1>
      <p class="muted">Your captures of the last 7 days, newest first. Add <code>debug=1</code> to a capture to keep a debug bundle
        (network requests, console, steps, screenshot and HTML) for 24 hours.</p>
      ${
        requests.length === 0
          ? html`<p id="no-requests">No captures yet.</p>`
          : html`<table id="requests"><thead><tr><th>When (UTC)</th><th>Status</th><th>Duration</th><th>Format</th><th>URL</th><th>Debug</th></tr></thead>
          <tbody>${rows}</tbody></table>`
      }`,
  });
}

/** One debug bundle, as GET /v1/requests/{id} answers it, for a visitor signed in to the dashboard. */
export function bundlePage(visitor: Visitor, requestId: string, bundle: unknown): string {
  const { screenshot_url: shot } = bundle as { screenshot_url?: string | null };
  return layout({
    title: `Request ${requestId}`,
    user: frameUser(visitor.account, visitor.csrf),
    body: html`<h1>Request <code>${requestId}</code></h1>
      <p><a href="/dashboard/requests">All requests</a></p>
      ${shot ? html`<p><a href="${shot}"><img id="bundle-screenshot" src="${shot}" alt="the page when the capture ended" width="640"></a></p>` : ''}
      <pre id="bundle">${JSON.stringify(bundle, null, 2)}</pre>`,
  });
}
