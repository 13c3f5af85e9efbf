import type { Account } from '../../accounts/account-store.js';
import type { ApiKeyRecord } from '../../accounts/key-store.js';
import { parameterForms, type ParameterForm } from '../../options/parameter-forms.js';
import { PARAMETER_GROUPS, type ParameterGroup } from '../../options/parameters/meta.js';
import { html, type SafeHtml } from '../html.js';
import { frameUser, layout } from '../layout.js';

const GROUP_TITLES: Record<ParameterGroup, string> = {
  source: 'Source',
  output: 'Output',
  viewport: 'Viewport & device',
  page: 'Page',
  blocking: 'Blocking',
  waits: 'Waits & checks',
  request: 'Request',
  pdf: 'PDF',
};

/** Sections shown open: what most captures set. */
const OPEN: ReadonlySet<ParameterGroup> = new Set(['source', 'output', 'viewport']);

/** One parameter as a form field; left empty, it is not sent (the API's default applies). */
function field(p: ParameterForm): SafeHtml {
  const id = `pg-${p.name}`;
  const hint = html`<small class="muted">${p.allowed}${p.default ? html` · default ${p.default}` : ''}</small>`;
  const label = html`<label for="${id}" title="${p.description}">${p.name}</label>`;
  switch (p.kind) {
    case 'boolean':
      return html`<div>${label}<select id="${id}" name="${p.name}"><option value="">default</option><option value="true">true</option><option value="false">false</option></select>${hint}</div>`;
    case 'choice':
      // format always has a value: the capture needs one, and the curl command shows it.
      return html`<div>${label}<select id="${id}" name="${p.name}">${p.name === 'format' ? '' : html`<option value="">default</option>`}${p.choices!.map(
        (c) => html`<option value="${c}">${c}</option>`,
      )}</select>${hint}</div>`;
    case 'list':
      return html`<div class="wide">${label}<textarea id="${id}" name="${p.name}" data-list="1" rows="2" placeholder="one per line${p.example ? `, e.g. ${p.example}` : ''}"></textarea>${hint}</div>`;
    case 'number':
      return html`<div>${label}<input id="${id}" type="number" step="any" name="${p.name}" placeholder="${p.default ?? ''}">${hint}</div>`;
    default:
      return p.name === 'html' || p.name === 'scripts' || p.name === 'styles'
        ? html`<div class="wide">${label}<textarea id="${id}" name="${p.name}" rows="3" placeholder="${p.example ?? ''}"></textarea>${hint}</div>`
        : html`<div>${label}<input id="${id}" type="text" name="${p.name}" placeholder="${p.example ?? p.default ?? ''}"${p.name === 'url' ? html` value="https://example.com"` : ''}>${hint}</div>`;
  }
}

/** What the playground shows. */
export interface PlaygroundView {
  account: Account;
  csrf: string;
  /** The account's active keys, for the signed-link builder. */
  keys?: ApiKeyRecord[];
  /** A key's signing secret (absent when the server has none: no signed links then). */
  signingSecretOf?: (keyId: string) => string;
}

/** Expiry choices of the signed-link builder: seconds from when the link is built ('' = never). */
const EXPIRIES: ReadonlyArray<readonly [string, string]> = [
  ['', 'never'],
  ['3600', 'in 1 hour'],
  ['86400', 'in 1 day'],
  ['2592000', 'in 30 days'],
];

/**
 * The signed-link builder: a key (its id as value, its signing secret in data-signing-secret) and
 * an expiry; the script signs the form's parameters in the browser (Web Crypto) and shows the link.
 * Its fields have no name and sit outside the form, so they never become capture parameters.
 */
function signedLinkBuilder(v: PlaygroundView): SafeHtml {
  const active = (v.keys ?? []).filter((k) => !k.revokedAt);
  const intro = html`<p class="muted">A <code>/v1/take</code> link with this form's parameters that works without the API key
    (for an <code>&lt;img src&gt;</code>, an Open Graph tag, an e-mail), signed with a key's signing secret: see the Keys page.</p>`;
  if (!v.signingSecretOf)
    return html`<div id="signed-link" class="card">${intro}<p>This server has no signing secret, so it takes no signed links.</p></div>`;
  if (!active.length) {
    return html`<div id="signed-link" class="card">${intro}<p>No active key: <a href="/dashboard/keys">create one</a> to sign links with it.</p></div>`;
  }
  const secretOf = v.signingSecretOf;
  return html`<div id="signed-link" class="card">${intro}
    <div class="row">
      <div><label for="sl-key">Key</label><select id="sl-key">${active.map(
        (k) => html`<option value="${k.id}" data-signing-secret="${secretOf(k.id)}">${k.name} (${k.prefix}…${k.last4})</option>`,
      )}</select></div>
      <div><label for="sl-expires">Expires</label><select id="sl-expires">${EXPIRIES.map(
        ([value, label]) => html`<option value="${value}">${label}</option>`,
      )}</select></div>
    </div>
    <p><button id="sl-build" type="button">Build signed link</button></p>
    <p id="sl-status" class="muted" role="status"></p>
    <label for="sl-url">Link</label>
    <input id="sl-url" type="text" readonly placeholder="Build a link to see it here">
    <label for="sl-img">HTML</label>
    <textarea id="sl-img" rows="3" readonly></textarea>
  </div>`;
}

/**
 * The playground: every capture parameter, grouped as the docs group them and generated from the
 * options schema, the matching curl command, and a preview. The key is typed in (Shutter cannot
 * show it again) and sent in the apikey header by the script. Below, the signed-link builder.
 */
export function playgroundPage(v: PlaygroundView): string {
  const forms = parameterForms();
  return layout({
    title: 'Playground',
    user: frameUser(v.account, v.csrf),
    body: html`<h1>Playground</h1>
    <form id="playground" class="card" method="get" action="/v1/take" target="_blank">
      <label for="pg-key">API key</label>
      <input id="pg-key" type="password" name="apikey" required autocomplete="off" placeholder="shk_…">
      ${PARAMETER_GROUPS.map(
        (
          group,
        ) => html`<details class="group" id="pg-group-${group}"${OPEN.has(group) ? ' open' : ''}><summary>${GROUP_TITLES[group]}</summary>
        <div class="row">${forms.filter((p) => p.group === group).map(field)}</div></details>`,
      )}
      <p><button id="pg-submit" type="submit">Take capture</button></p>
    </form>
    <h2>Command</h2>
    <pre id="curl">curl -H "apikey: $SHUTTER_KEY" "…/v1/take?url=https%3A%2F%2Fexample.com" -o capture</pre>
    <h2>Signed link</h2>
    ${signedLinkBuilder(v)}
    <h2>Result</h2>
    <p id="result-status" class="muted" role="status">Nothing yet.</p>
    <div id="preview"></div>
    <script src="/dashboard/assets/playground.js"></script>`,
  });
}
