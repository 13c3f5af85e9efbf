/*
 * The playground's script: builds the /v1/take URL and the curl command from the form, then
 * fetches the capture with the key in the apikey header (so it stays out of URLs) and previews it.
 * Without JavaScript the form still works: it opens /v1/take itself.
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
})();
