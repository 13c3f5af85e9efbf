import type { AccountSummary, AuditEntry, ListPage, UsageOverview } from '../../accounts/account-admin.js';
import type { Account } from '../../accounts/account-store.js';
import type { Plan } from '../../accounts/plans.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, frameUser, layout } from '../layout.js';

/** The operator looking at the admin, and the CSRF token of their session. */
export interface AdminVisitor {
  account: Account;
  csrf: string;
}

const number = (n: number) => n.toLocaleString('en-US');
const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');

/** The admin's own navigation, under the header. */
function adminNav(current: 'accounts' | 'usage' | 'audit'): SafeHtml {
  const link = (name: typeof current, href: string, label: string) =>
    name === current ? html`<b>${label}</b>` : html`<a href="${href}">${label}</a>`;
  return html`<p class="actions admin-nav">${link('accounts', '/dashboard/admin', 'Accounts')} · ${link('usage', '/dashboard/admin/usage', 'Usage')} · ${link(
    'audit',
    '/dashboard/admin/audit',
    'Audit log',
  )}</p>`;
}

/** Links to the other pages of a list; `href(page)` builds each address. */
function pager(page: ListPage<unknown>, href: (page: number) => string): SafeHtml {
  if (page.pages <= 1) return html``;
  return html`<p class="actions pager">${page.page > 1 ? html`<a href="${href(page.page - 1)}" rel="prev">Previous</a>` : ''}
    <span class="muted">page ${page.page} of ${page.pages}</span>
    ${page.page < page.pages ? html`<a href="${href(page.page + 1)}" rel="next">Next</a>` : ''}</p>`;
}

/** Where a list of accounts is: the search and the page, carried through forms so a change returns there. */
export interface AccountsListPlace {
  q: string;
  page: number;
}

/** `/dashboard/admin` with a search, a page and a `done` notice. */
export function accountsListUrl(place: AccountsListPlace, done?: string): string {
  const query = new URLSearchParams();
  if (place.q) query.set('q', place.q);
  if (place.page > 1) query.set('page', String(place.page));
  if (done) query.set('done', done);
  const text = query.toString();
  return `/dashboard/admin${text ? `?${text}` : ''}`;
}

/** Everything the account list shows. */
export interface AccountsView {
  visitor: AdminVisitor;
  place: AccountsListPlace;
  list: ListPage<AccountSummary>;
  plans: Plan[];
  /** The monthly quota of an account's plan (as its plan resolves). */
  quotaOf: (plan: string) => number;
  notice?: string;
  error?: string;
}

/** Accounts: search by email, each with plan (changeable), keys, this month's usage, and disable/enable. */
export function adminAccountsPage(v: AccountsView): string {
  const back = html`<input type="hidden" name="q" value="${v.place.q}"><input type="hidden" name="page" value="${String(v.place.page)}">`;
  const rows = v.list.rows.map(({ account: a, activeKeys, used }) => {
    const self = a.id === v.visitor.account.id;
    const planForm = html`<form class="actions" method="post" action="/dashboard/admin/accounts/${a.id}/plan">${csrfField(v.visitor.csrf)}${back}
      <select class="inline" name="plan" aria-label="Plan of ${a.email}">${v.plans.map(
        (p) => html`<option value="${p.name}"${p.name === a.plan ? html` selected` : ''}>${p.name}</option>`,
      )}${v.plans.some((p) => p.name === a.plan) ? '' : html`<option value="${a.plan}" selected disabled>${a.plan} (gone)</option>`}</select>
      <button class="secondary" type="submit">Change plan</button></form>`;
    const stateForm = a.disabledAt
      ? html`<form method="post" action="/dashboard/admin/accounts/${a.id}/enable">${csrfField(v.visitor.csrf)}${back}<button class="secondary" type="submit">Enable</button></form>`
      : self
        ? html`<span class="muted">you</span>`
        : html`<form method="post" action="/dashboard/admin/accounts/${a.id}/disable">${csrfField(v.visitor.csrf)}${back}<button class="danger" type="submit">Disable</button></form>`;
    return html`<tr data-account-id="${a.id}" data-email="${a.email}" data-plan="${a.plan}" data-state="${a.disabledAt ? 'disabled' : 'active'}">
      <td>${a.email}${a.role === 'operator' ? html`<small class="muted">operator</small>` : ''}<small class="muted">since ${when(a.createdAt)}</small></td>
      <td>${planForm}</td>
      <td class="num keys">${number(activeKeys)}</td>
      <td class="num usage">${number(used)} <small class="muted">/ ${number(v.quotaOf(a.plan))}</small></td>
      <td class="state">${a.disabledAt ? html`<span class="error-text">disabled</span><small class="muted">${when(a.disabledAt)}</small>` : 'active'}</td>
      <td>${stateForm}</td></tr>`;
  });
  const matches = `${number(v.list.total)} account${v.list.total === 1 ? '' : 's'}${v.place.q ? ` matching “${v.place.q}”` : ''}`;
  return layout({
    title: 'Admin: accounts',
    user: frameUser(v.visitor.account, v.visitor.csrf),
    body: html`<h1>Admin</h1>${adminNav('accounts')}
    ${v.notice ? html`<p class="notice">${v.notice}</p>` : ''}
    ${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
    <form class="card row" id="admin-search" method="get" action="/dashboard/admin">
      <div><label for="admin-q">Email contains</label><input id="admin-q" type="text" name="q" value="${v.place.q}" maxlength="254"></div>
      <div><button type="submit">Search</button></div>
    </form>
    <p class="muted" id="admin-matches">${matches}</p>
    ${
      v.list.rows.length
        ? html`<div class="card"><table id="admin-accounts"><tr><th>Email</th><th>Plan</th><th class="num">Keys</th><th class="num">Captures this month</th><th>State</th><th></th></tr>${rows}</table></div>`
        : html`<p id="admin-no-accounts">No account matches.</p>`
    }
    ${pager(v.list, (page) => accountsListUrl({ q: v.place.q, page }))}
    <p class="muted">A disabled account's keys are refused (403 account_disabled) from its next request on, and its dashboard sessions end.
      A plan change applies to the account's next request. Every change is in the <a href="/dashboard/admin/audit">audit log</a>.</p>`,
  });
}

/** Usage across accounts this month: the total and the busiest accounts. */
export function adminUsagePage(v: { visitor: AdminVisitor; usage: UsageOverview; quotaOf: (plan: string) => number }): string {
  const u = v.usage;
  return layout({
    title: 'Admin: usage',
    user: frameUser(v.visitor.account, v.visitor.csrf),
    body: html`<h1>Admin</h1>${adminNav('usage')}
    <div class="stats">
      <div class="stat"><span class="muted">Captures in ${u.period.id}</span><b id="admin-total">${number(u.total)}</b></div>
      <div class="stat"><span class="muted">Accounts that captured</span><b id="admin-active-accounts">${number(u.accountsWithUsage)}</b></div>
    </div>
    <h2>Busiest accounts, ${u.period.id}</h2>
    <div class="card">${
      u.top.length
        ? html`<table id="admin-top"><tr><th class="num">#</th><th>Email</th><th>Plan</th><th class="num">Captures</th><th class="num">Of quota</th></tr>${u.top.map(
            ({ account: a, used }, i) =>
              html`<tr data-email="${a.email}"><td class="num">${String(i + 1)}</td><td>${a.email}${a.disabledAt ? html` <small class="muted">disabled</small>` : ''}</td><td>${a.plan}</td>
              <td class="num">${number(used)}</td><td class="num">${number(v.quotaOf(a.plan))}</td></tr>`,
          )}</table>`
        : html`<p>No captures yet this month.</p>`
    }</div>
    <p class="muted">Successful captures (the ones the quota counts), per calendar month in UTC.</p>`,
  });
}

const ACTION_LABELS: Record<string, string> = {
  set_plan: 'changed plan',
  disable: 'disabled',
  enable: 'enabled',
  set_role: 'changed role',
};

/** What an audit entry's detail says, in words. */
function describe(entry: AuditEntry): string {
  const d = entry.detail;
  if ((entry.action === 'set_plan' || entry.action === 'set_role') && typeof d.from === 'string' && typeof d.to === 'string') {
    return `${d.from} → ${d.to}`;
  }
  if (entry.action === 'disable' && typeof d.sessions_ended === 'number') {
    return `${d.sessions_ended} dashboard session${d.sessions_ended === 1 ? '' : 's'} ended`;
  }
  return '';
}

/** The audit log: who did what to which account, when; newest first. */
export function adminAuditPage(v: { visitor: AdminVisitor; log: ListPage<AuditEntry> }): string {
  const who = (party: AuditEntry['actor'], fallback: string) => (party ? (party.email ?? party.id) : fallback);
  const rows = v.log.rows.map(
    (e) => html`<tr data-action="${e.action}" data-target="${e.target?.email ?? ''}" data-actor="${e.actor?.email ?? ''}">
      <td><time datetime="${e.createdAt}">${e.createdAt.replace('T', ' ').slice(0, 19)}</time></td>
      <td>${who(e.actor, 'command line')}</td><td>${ACTION_LABELS[e.action] ?? e.action}</td>
      <td>${who(e.target, '—')}</td><td>${describe(e)}</td></tr>`,
  );
  return layout({
    title: 'Admin: audit log',
    user: frameUser(v.visitor.account, v.visitor.csrf),
    body: html`<h1>Admin</h1>${adminNav('audit')}
    <p class="muted">Changes operators made to accounts, in the dashboard or with <code>shutter accounts set-role</code>, newest first (UTC).</p>
    ${
      rows.length
        ? html`<div class="card"><table id="admin-audit"><tr><th>When</th><th>Who</th><th>Action</th><th>Account</th><th>Detail</th></tr>${rows}</table></div>`
        : html`<p id="admin-no-audit">Nothing yet.</p>`
    }
    ${pager(v.log, (page) => `/dashboard/admin/audit?page=${page}`)}`,
  });
}
