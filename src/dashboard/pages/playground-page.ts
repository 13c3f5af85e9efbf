import type { Account } from '../../accounts/account-store.js';
import { parameterForms, type ParameterForm } from '../../options/parameter-forms.js';
import { PARAMETER_GROUPS, type ParameterGroup } from '../../options/parameters/meta.js';
import { html, type SafeHtml } from '../html.js';
import { layout } from '../layout.js';

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

/**
 * The playground: every capture parameter, grouped as the docs group them and generated from the
 * options schema, the matching curl command, and a preview. The key is typed in (Shutter cannot
 * show it again) and sent in the apikey header by the script.
 */
export function playgroundPage(v: { account: Account; csrf: string }): string {
  const forms = parameterForms();
  return layout({
    title: 'Playground',
    user: { email: v.account.email, csrf: v.csrf },
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
    <h2>Result</h2>
    <p id="result-status" class="muted" role="status">Nothing yet.</p>
    <div id="preview"></div>
    <script src="/dashboard/assets/playground.js"></script>`,
  });
}
