import type { Account } from '../../accounts/account-store.js';
import type { ApiKeyRecord } from '../../accounts/key-store.js';
import { KEY_NAME_MAX } from '../../accounts/kysely-key-store.js';
import type { Plan } from '../../accounts/plans.js';
import { html } from '../html.js';
import { csrfField, frameUser, layout } from '../layout.js';

/** What the keys page shows. */
export interface KeysView {
  account: Account;
  csrf: string;
  plan: Plan;
  keys: ApiKeyRecord[];
  notice?: string;
  error?: string;
  /** A key's signing secret for signed links (absent when the server has none). */
  signingSecretOf?: (keyId: string) => string;
}

const date = (iso: string | null) => (iso ? iso.slice(0, 16).replace('T', ' ') : '—');

/** The keys page: active keys with rename, reset and revoke; create while the plan allows one more. */
export function keysPage(v: KeysView): string {
  const active = v.keys.filter((k) => !k.revokedAt);
  const revoked = v.keys.filter((k) => k.revokedAt);
  const canCreate = active.length < v.plan.maxKeys;
  const rows = active.map(
    (k) => html`<tr data-key-id="${k.id}">
      <td><form class="actions" method="post" action="/dashboard/keys/${k.id}/rename">${csrfField(v.csrf)}
        <input class="inline" type="text" name="name" value="${k.name}" maxlength="${KEY_NAME_MAX}" required aria-label="Name of ${k.name}">
        <button class="secondary" type="submit">Rename</button></form></td>
      <td><code>${k.prefix}…${k.last4}</code></td><td>${date(k.createdAt)}</td><td>${date(k.lastUsedAt)}</td>
      <td>${
        v.signingSecretOf
          ? html`<details class="signing"><summary>Show</summary><small>access_key</small> <code class="access-key">${k.id}</code><br>
            <small>signing secret</small> <code class="signing-secret">${v.signingSecretOf(k.id)}</code></details>`
          : html`<span class="muted">–</span>`
      }</td>
      <td><div class="actions">
        <form method="post" action="/dashboard/keys/${k.id}/reset">${csrfField(v.csrf)}<button class="secondary" type="submit">Reset</button></form>
        <form method="post" action="/dashboard/keys/${k.id}/revoke">${csrfField(v.csrf)}<button class="danger" type="submit">Revoke</button></form>
      </div></td></tr>`,
  );
  const create = canCreate
    ? html`<form id="create-key" class="row" method="post" action="/dashboard/keys">${csrfField(v.csrf)}
        <div><label for="key-name">Name</label><input id="key-name" type="text" name="name" maxlength="${KEY_NAME_MAX}" placeholder="e.g. production" required></div>
        <div><button type="submit">Create key</button></div></form>`
    : v.plan.maxKeys === 1
      ? html`<p id="reset-instead">The ${v.plan.name} plan holds one key at a time. To get a new key, <b>reset</b> the one you have: the old one stops working at once.</p>`
      : html`<p>The ${v.plan.name} plan allows ${v.plan.maxKeys} keys at a time; revoke one to create another.</p>`;
  return layout({
    title: 'Keys',
    user: frameUser(v.account, v.csrf),
    body: html`<h1>API keys</h1>
    ${v.notice ? html`<p class="notice" role="status">${v.notice}</p>` : ''}
    ${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
    <div class="card">${
      active.length
        ? html`<table id="keys"><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th>Signed links</th><th></th></tr>${rows}</table>`
        : html`<p>No active key.</p>`
    }</div>
    <div class="card"><h2>New key</h2>${create}</div>
    <p class="muted">Keys are shown once, when created or reset; Shutter keeps only a hash. Reset a key you think leaked.
      A key's <code>access_key</code> and signing secret make signed links that work without the key
      (docs/embedding.md); resetting the key changes its signing secret.</p>
    ${
      revoked.length
        ? html`<h2>Revoked</h2><div class="card"><table id="revoked-keys"><tr><th>Name</th><th>Key</th><th>Revoked</th></tr>
          ${revoked.map((k) => html`<tr><td>${k.name}</td><td><code>${k.prefix}…${k.last4}</code></td><td>${date(k.revokedAt)}</td></tr>`)}</table></div>`
        : ''
    }`,
  });
}

/** The one time a key is shown: right after it was created or reset. */
export function newKeyPage(v: {
  account: Account;
  csrf: string;
  record: ApiKeyRecord;
  key: string;
  replaced?: ApiKeyRecord | undefined;
  /** This server as the browser reached it, for the example command. */
  origin: string;
}): string {
  return layout({
    title: 'Your new key',
    user: frameUser(v.account, v.csrf),
    body: html`<h1>Your new key: ${v.record.name}</h1>
    ${v.replaced ? html`<p class="notice">The key ${v.replaced.prefix}…${v.replaced.last4} is revoked and no longer works.</p>` : ''}
    <div class="card"><p><b>Copy it now: it is shown only this once.</b></p>
      <code class="secret" id="new-key">${v.key}</code>
      <h2>Try it</h2>
      <pre>curl -H "apikey: ${v.key}" "${v.origin}/v1/take?url=https://example.com" -o shot.png</pre>
      <p class="actions"><a class="button" href="/dashboard/playground">Open the playground</a> <a href="/dashboard/keys">Back to keys</a></p></div>`,
  });
}
