/** The dashboard's stylesheet, served from /dashboard/assets/ so the CSP can forbid inline styles. */
export const STYLE_CSS = `
:root { --fg:#1d2330; --muted:#5b6478; --line:#dfe3ea; --bg:#f6f7f9; --accent:#2455d6; --danger:#b42318; --ok:#1a7f37; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header { background:#fff; border-bottom:1px solid var(--line); }
header .bar { max-width:960px; margin:0 auto; padding:10px 20px; display:flex; gap:18px; align-items:center; }
header .brand { font-weight:700; margin-right:auto; color:var(--fg); text-decoration:none; }
header a { color:var(--accent); text-decoration:none; }
header form { margin:0; }
main { max-width:960px; margin:0 auto; padding:24px 20px 60px; }
h1 { font-size:24px; margin:0 0 16px; }
h2 { font-size:18px; margin:28px 0 10px; }
.card { background:#fff; border:1px solid var(--line); border-radius:8px; padding:16px 18px; margin:0 0 16px; }
.narrow { max-width:420px; }
label { display:block; margin:10px 0 4px; font-weight:600; }
input[type=text], input[type=email], input[type=password], input[type=number], input[type=url], select {
  width:100%; padding:8px 10px; border:1px solid var(--line); border-radius:6px; font:inherit; background:#fff; }
input.inline { width:auto; display:inline-block; }
button, .button { display:inline-block; padding:8px 14px; border-radius:6px; border:1px solid var(--accent); background:var(--accent);
  color:#fff; font:inherit; cursor:pointer; text-decoration:none; }
button.secondary { background:#fff; color:var(--accent); }
button.danger { background:#fff; color:var(--danger); border-color:var(--danger); }
button.link { background:none; border:none; color:var(--accent); padding:0; }
.row { display:flex; gap:12px; flex-wrap:wrap; align-items:flex-end; }
.row > * { flex:1 1 140px; }
.actions { display:flex; gap:8px; flex-wrap:wrap; align-items:center; }
.actions form { margin:0; }
table { width:100%; border-collapse:collapse; }
th, td { text-align:left; padding:8px 6px; border-bottom:1px solid var(--line); vertical-align:middle; }
th { color:var(--muted); font-weight:600; font-size:13px; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
td code { white-space:nowrap; }
code, pre, .secret { font-family:ui-monospace, SFMono-Regular, Menlo, monospace; font-size:13px; }
pre { background:#0f172a; color:#e2e8f0; padding:12px; border-radius:6px; overflow:auto; white-space:pre-wrap; word-break:break-all; }
.secret { display:block; padding:12px; background:#fffbe6; border:1px solid #f5d565; border-radius:6px; word-break:break-all; font-size:15px; }
.notice { padding:10px 12px; border-radius:6px; background:#eef4ff; border:1px solid #c9dafc; margin:0 0 16px; }
.error { padding:10px 12px; border-radius:6px; background:#fdecea; border:1px solid #f5c2bd; color:var(--danger); margin:0 0 16px; }
.muted { color:var(--muted); }
.stats { display:grid; grid-template-columns:repeat(auto-fit, minmax(150px, 1fr)); gap:12px; }
.stat { background:#fff; border:1px solid var(--line); border-radius:8px; padding:12px; }
.stat b { display:block; font-size:22px; }
.chart { width:100%; height:auto; }
.chart .bar { fill:var(--accent); }
.chart .axis { stroke:var(--line); }
.chart text { font-size:10px; fill:var(--muted); }
.chart text.value { fill:var(--fg); font-weight:600; }
.meter { display:block; width:100%; height:8px; margin-top:6px; }
.meter .track { fill:var(--line); }
.meter .fill { fill:var(--accent); }
#preview img { max-width:100%; border:1px solid var(--line); border-radius:6px; }
#preview pre { max-height:400px; }
`;

/**
 * The playground's script: builds the /v1/take URL and the curl command from the form, then
 * fetches the capture with the key in the apikey header (so it stays out of URLs) and previews it.
 * Without JavaScript the form still works: it opens /v1/take itself.
 */
export const PLAYGROUND_JS = `
(function () {
  var form = document.getElementById('playground');
  if (!form) return;
  var curl = document.getElementById('curl');
  var preview = document.getElementById('preview');
  var status = document.getElementById('result-status');
  var lastUrl = null;
  function params() {
    var data = new FormData(form);
    var out = new URLSearchParams();
    data.forEach(function (value, name) {
      if (name === 'apikey' || value === '') return;
      out.append(name, String(value));
    });
    return out;
  }
  function update() {
    var query = params().toString();
    curl.textContent = 'curl -H "apikey: $SHUTTER_KEY" "' + location.origin + '/v1/take?' + query + '" -o capture';
  }
  form.addEventListener('input', update);
  form.addEventListener('change', update);
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var key = form.elements.namedItem('apikey').value.trim();
    status.textContent = 'Capturing…';
    preview.replaceChildren();
    fetch('/v1/take?' + params().toString(), { headers: { apikey: key } }).then(function (res) {
      var type = res.headers.get('content-type') || '';
      var left = res.headers.get('x-quota-remaining');
      var warning = res.headers.get('x-shutter-warning');
      return res.blob().then(function (body) {
        status.textContent = res.status + ' ' + type + ' · ' + body.size + ' bytes' + (left !== null ? ' · ' + left + ' captures left this month' : '') + (warning ? ' · warning: ' + warning : '');
        if (lastUrl) URL.revokeObjectURL(lastUrl);
        lastUrl = URL.createObjectURL(body);
        if (res.ok && type.indexOf('image/') === 0) {
          var img = document.createElement('img');
          img.alt = 'capture preview';
          img.src = lastUrl;
          preview.appendChild(img);
        } else if (!res.ok || type.indexOf('text/') === 0 || type.indexOf('json') >= 0) {
          body.text().then(function (text) {
            var pre = document.createElement('pre');
            pre.textContent = text;
            preview.appendChild(pre);
          });
        }
        if (res.ok) {
          var link = document.createElement('a');
          link.href = lastUrl;
          link.download = 'capture';
          link.textContent = 'Download';
          preview.appendChild(document.createElement('p')).appendChild(link);
        }
      });
    }, function (error) {
      status.textContent = 'Request failed: ' + error;
    });
  });
  update();
})();
`;
