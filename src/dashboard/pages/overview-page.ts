import type { Account } from '../../accounts/account-store.js';
import type { ApiKeyRecord } from '../../accounts/key-store.js';
import type { Period } from '../../usage/period.js';
import type { Plan } from '../../accounts/plans.js';
import type { DayUsage, KeyUsage } from '../../usage/usage-store.js';
import { html } from '../html.js';
import { frameUser, layout } from '../layout.js';
import { keyUsageChart, usageChart } from '../usage-chart.js';

/** Everything the overview shows. */
export interface Overview {
  account: Account;
  csrf: string;
  plan: Plan;
  period: Period;
  used: number;
  activeKeys: number;
  /** Every day of the period up to today, zeros included. */
  days: DayUsage[];
  perKey: KeyUsage[];
  keys: ApiKeyRecord[];
}

const number = (n: number) => n.toLocaleString('en-US');

/** The overview: plan and limits, this period's usage per day (chart) and per key (table). */
export function overviewPage(o: Overview): string {
  const left = Math.max(0, o.plan.monthlyQuota - o.used);
  const percent = o.plan.monthlyQuota > 0 ? Math.min(100, Math.round((o.used / o.plan.monthlyQuota) * 100)) : 100;
  const byKey = new Map(o.perKey.map((k) => [k.keyId, k.captures]));
  const shown = o.keys.filter((k) => !k.revokedAt || byKey.has(k.id));
  const keyRows = shown.map(
    (k) => html`<tr data-key-id="${k.id}"><td>${k.name}</td><td><code>${k.prefix}…${k.last4}</code></td>
        <td>${k.revokedAt ? 'revoked' : 'active'}</td><td class="num">${number(byKey.get(k.id) ?? 0)}</td></tr>`,
  );
  const resets = o.period.end.toISOString().slice(0, 10);
  return layout({
    title: 'Overview',
    user: frameUser(o.account, o.csrf),
    body: html`<h1>Overview</h1>
    <div class="stats">
      <div class="stat"><span class="muted">Plan</span><b id="plan-name">${o.plan.name}</b></div>
      <div class="stat"><span class="muted">Captures this month</span><b><span id="used">${number(o.used)}</span> / ${number(o.plan.monthlyQuota)}</b>
        <svg class="meter" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true"><rect class="track" width="100" height="8"></rect><rect class="fill" width="${percent}" height="8"></rect></svg></div>
      <div class="stat"><span class="muted">Left</span><b id="remaining">${number(left)}</b><span class="muted">resets ${resets}</span></div>
      <div class="stat"><span class="muted">Keys</span><b>${o.activeKeys} / ${o.plan.maxKeys}</b></div>
    </div>
    <h2>Plan limits</h2>
    <div class="card"><table id="limits">
      <tr><th>Captures per month</th><td class="num">${number(o.plan.monthlyQuota)}</td></tr>
      <tr><th>Requests per minute</th><td class="num">${number(o.plan.ratePerMinute)}</td></tr>
      <tr><th>Captures at the same time</th><td class="num">${number(o.plan.concurrency)}</td></tr>
      <tr><th>Keys at a time</th><td class="num">${number(o.plan.maxKeys)}</td></tr>
    </table><p class="muted">Only successful captures count. Every API response carries X-Quota-Remaining and RateLimit-Remaining.</p></div>
    <h2>Captures per day, ${o.period.id}</h2>
    <div class="card">${usageChart(o.days)}
      <details><summary>As numbers</summary><table id="usage-per-day"><tr><th>Day</th><th class="num">Captures</th><th class="num">Cache hits (not charged)</th></tr>
        ${o.days
          .filter((d) => d.captures > 0 || (d.cacheHits ?? 0) > 0)
          .map(
            (d) =>
              html`<tr><td>${d.day}</td><td class="num">${number(d.captures)}</td><td class="num">${number(d.cacheHits ?? 0)}</td></tr>`,
          )}
      </table></details></div>
    <h2>Captures per key, ${o.period.id}</h2>
    <div class="card">${
      keyRows.length
        ? html`${keyUsageChart(shown.map((k) => ({ name: k.name, captures: byKey.get(k.id) ?? 0 })))}
          <table id="usage-per-key"><tr><th>Name</th><th>Key</th><th>Status</th><th class="num">Captures</th></tr>${keyRows}</table>`
        : html`<p>No keys yet. <a href="/dashboard/keys">Create one</a>.</p>`
    }</div>`,
  });
}
