/*
 * The playground's script: builds the /v1/take URL and the curl command from the form, then
 * fetches the capture with the key in the apikey header (so it stays out of URLs) and previews it.
 * Without JavaScript the form still works: it opens /v1/take itself.
 * The signed-link builder signs the same query string (same order and encoding as the curl
 * command) plus expires and access_key with the chosen key's signing secret, in the browser.
 */
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
      var field = form.elements.namedItem(name);
      // A list parameter: one value per line, sent as the parameter repeated.
      if (field && field.dataset && field.dataset.list) {
        String(value)
          .split('\n')
          .map(function (line) {
            return line.trim();
          })
          .filter(Boolean)
          .forEach(function (line) {
            out.append(name, line);
          });
        return;
      }
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
  signedLinks();
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var key = form.elements.namedItem('apikey').value.trim();
    status.textContent = 'Capturing…';
    preview.replaceChildren();
    fetch('/v1/take?' + params().toString(), { headers: { apikey: key } }).then(
      function (res) {
        var type = res.headers.get('content-type') || '';
        var left = res.headers.get('x-quota-remaining');
        var warning = res.headers.get('x-shutter-warning');
        return res.blob().then(function (body) {
          status.textContent =
            res.status +
            ' ' +
            type +
            ' · ' +
            body.size +
            ' bytes' +
            (left !== null ? ' · ' + left + ' captures left this month' : '') +
            (warning ? ' · warning: ' + warning : '');
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
      },
      function (error) {
        status.textContent = 'Request failed: ' + error;
      },
    );
  });
  update();

  /** The signed-link builder (absent when the server has no signing secret or the account no key). */
  function signedLinks() {
    var build = document.getElementById('sl-build');
    if (!build) return;
    var keySelect = document.getElementById('sl-key');
    var expiresSelect = document.getElementById('sl-expires');
    var linkField = document.getElementById('sl-url');
    var imgField = document.getElementById('sl-img');
    var linkStatus = document.getElementById('sl-status');
    var subtle = window.crypto && window.crypto.subtle;
    if (!subtle || !window.isSecureContext) {
      build.disabled = true;
      linkStatus.textContent =
        'Signing needs Web Crypto, which browsers offer only in a secure context: open the dashboard over https, ' +
        'or as http://localhost or http://127.0.0.1.';
      return;
    }
    var built = 0;
    function clear(message) {
      built++;
      linkField.value = '';
      imgField.value = '';
      linkStatus.textContent = message;
    }
    function stale(event) {
      // The API key typed above is not part of a signed link.
      if (event.target && event.target.name === 'apikey') return;
      if (linkField.value) clear('The parameters changed: build the link again.');
    }
    form.addEventListener('input', stale);
    form.addEventListener('change', stale);
    keySelect.addEventListener('change', stale);
    expiresSelect.addEventListener('change', stale);
    function hex(buffer) {
      return Array.prototype.map
        .call(new Uint8Array(buffer), function (b) {
          return (b < 16 ? '0' : '') + b.toString(16);
        })
        .join('');
    }
    function attribute(text) {
      return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    }
    build.addEventListener('click', function () {
      var option = keySelect.options[keySelect.selectedIndex];
      if (!option) return;
      var query = params();
      var lifetime = Number(expiresSelect.value);
      var expires = lifetime > 0 ? Math.floor(Date.now() / 1000) + lifetime : 0;
      if (expires) query.append('expires', String(expires));
      query.append('access_key', option.value);
      var signed = query.toString();
      var encoder = new TextEncoder();
      var attempt = ++built;
      linkStatus.textContent = 'Signing…';
      subtle
        .importKey('raw', encoder.encode(option.dataset.signingSecret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
        .then(function (key) {
          return subtle.sign('HMAC', key, encoder.encode(signed));
        })
        .then(
          function (signature) {
            if (attempt !== built) return;
            var link = location.origin + '/v1/take?' + signed + '&signature=' + hex(signature);
            var url = form.elements.namedItem('url');
            linkField.value = link;
            imgField.value =
              '<img src="' + attribute(link) + '" alt="' + attribute('Screenshot of ' + ((url && url.value) || 'a page')) + '">';
            linkStatus.textContent =
              'Signed with ' +
              option.textContent +
              (expires ? ', valid until ' + new Date(expires * 1000).toLocaleString() : ', never expires') +
              '. Anyone with the link can take this capture, counted against your account.';
          },
          function (error) {
            if (attempt === built) linkStatus.textContent = 'Signing failed: ' + error;
          },
        );
    });
  }
})();
