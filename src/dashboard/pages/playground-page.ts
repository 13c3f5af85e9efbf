import type { Account } from '../../accounts/account-store.js';
import { FORMATS } from '../../formats/registry.js';
import { html } from '../html.js';
import { layout } from '../layout.js';

/**
 * The playground: a form that builds a /v1/take request, the matching curl command, and a preview.
 * The key is typed in (Shutter cannot show it again) and sent in the apikey header by the script.
 */
export function playgroundPage(v: { account: Account; csrf: string }): string {
  return layout({
    title: 'Playground',
    user: { email: v.account.email, csrf: v.csrf },
    body: html`<h1>Playground</h1>
    <form id="playground" class="card" method="get" action="/v1/take" target="_blank">
      <label for="pg-key">API key</label>
      <input id="pg-key" type="password" name="apikey" required autocomplete="off" placeholder="shk_…">
      <label for="pg-url">URL</label>
      <input id="pg-url" type="url" name="url" required value="https://example.com">
      <div class="row">
        <div><label for="pg-format">Format</label><select id="pg-format" name="format">
          ${FORMATS.map((f) => html`<option value="${f}">${f}</option>`)}</select></div>
        <div><label for="pg-width">Viewport width</label><input id="pg-width" type="number" name="viewport_width" min="100" max="3840" placeholder="1280"></div>
        <div><label for="pg-height">Viewport height</label><input id="pg-height" type="number" name="viewport_height" min="100" max="10000" placeholder="800"></div>
        <div><label for="pg-delay">Delay (s)</label><input id="pg-delay" type="number" name="delay" min="0" max="30" step="0.5" placeholder="0"></div>
        <div><label for="pg-stall">Stall timeout (s)</label><input id="pg-stall" type="number" name="stall_timeout" min="1" max="60" step="1" placeholder="5"></div>
      </div>
      <div class="row">
        <div><label><input type="checkbox" name="full_page" value="true"> Full page</label></div>
        <div><label><input type="checkbox" name="block_cookie_banners" value="true"> Hide cookie banners</label></div>
        <div><label><input type="checkbox" name="block_ads" value="true"> Block ads</label></div>
        <div><label><input type="checkbox" name="fail_on_partial_load" value="true"> Fail on partial load</label></div>
      </div>
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
