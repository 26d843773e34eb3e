// peppolgate's one script: progressive enhancement of the ask page. Without it the
// form is a GET to /ask, answered on the server; with it the answer streams from
// POST /ask (server-sent events) and the results appear as they come. Nothing here
// writes HTML: every upstream string goes through textContent.
(function () {
  'use strict';
  var form = document.getElementById('ask-form');
  if (!form || !window.fetch || !window.TextDecoder || !window.ReadableStream) { return; }
  var out = document.getElementById('answer');
  var root = form.getAttribute('data-root') || '';
  // network is the page's ?network= (a hidden field of the form), kept on every link.
  var network = form.elements.network ? form.elements.network.value : '';
  var onNetwork = network ? 'network=' + encodeURIComponent(network) : '';
  // plain drops the retry advice the API's messages end with, written for programs
  // (the page gives its own).
  function plain(msg) { return String(msg || '').replace(/;\s*retry[^;]*$/, '.'); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  // country names a country code as the server's pages do: "Belgium (BE)".
  var regions = window.Intl && Intl.DisplayNames ? new Intl.DisplayNames(['en'], { type: 'region' }) : null;
  function country(code) {
    var name = '';
    try { name = regions ? regions.of(code) : ''; } catch (e) { name = ''; }
    return name && name !== code ? name + ' (' + code + ')' : code;
  }
  function card(item) {
    var li = el('li');
    var a = el('a', '', item.name || item.identifier);
    a.href = root + '/participant/' + encodeURIComponent(item.identifier) + (onNetwork ? '?' + onNetwork : '');
    li.appendChild(a);
    li.appendChild(document.createTextNode(' '));
    li.appendChild(el('span', 'id', item.identifier));
    if (item.address && item.address.addressCountry) {
      li.appendChild(document.createTextNode(' · ' + country(item.address.addressCountry)));
    }
    if (item.peppol) {
      var hint = el('p', 'hint', item.peppol.registered ? 'On Peppol' : 'Not registered on Peppol');
      hint.lang = 'en';
      li.appendChild(hint);
    }
    return li;
  }
  // speak makes the page the answer's language, as the server's page is: <html lang>
  // says it, and the page's own English words say lang="en".
  function speak(lang) {
    if (!lang) { return; }
    document.documentElement.lang = lang;
    var own = document.querySelectorAll('header.site, footer');
    for (var i = 0; i < own.length; i++) { own[i].lang = 'en'; }
  }
  function handle(name, data, state) {
    if (name === 'start') {
      speak(data._meta && data._meta.language);
      state.status.textContent = 'Looking it up…';
      state.status.lang = 'en';
    } else if (name === 'result') {
      state.list.appendChild(card(data.item));
    } else if (name === 'complete') {
      if (data.error) {
        state.status.textContent = plain(data.error.message) + ' Please try again in a minute.';
      } else {
        state.status.textContent = data.answer;
        state.status.removeAttribute('lang');
      }
      if (data.approximate) {
        var tag = el('span', 'tag', 'approximate match');
        tag.lang = 'en';
        state.status.appendChild(tag);
      }
      if (!data.error && data.failed && data.failed.length) {
        // As the page answered on the server says it.
        var part = el('p', '', 'Part of the answer could not be checked right now; please try again in a minute.');
        part.lang = 'en';
        out.appendChild(part);
      }
    }
  }
  function run(q) {
    while (out.firstChild) { out.removeChild(out.firstChild); }
    var h2 = el('h2', '', 'Answer');
    h2.lang = 'en';
    out.appendChild(h2);
    var state = { status: el('p', '', 'Asking…'), list: el('ul', 'cards') };
    state.status.lang = 'en';
    out.appendChild(state.status);
    out.appendChild(state.list);
    fetch(root + '/ask' + (onNetwork ? '?' + onNetwork : ''), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Accept': 'text/event-stream' },
      body: JSON.stringify({ query: q })
    }).then(function (resp) {
      if (!resp.ok || !resp.body) {
        return resp.json().then(function (b) {
          state.status.textContent = (b && b.error ? plain(b.error.message) : 'The question could not be answered.') + ' Please try again in a minute.';
        });
      }
      var reader = resp.body.getReader();
      var dec = new TextDecoder();
      var buf = '';
      function pump() {
        return reader.read().then(function (r) {
          if (r.done) { return; }
          buf += dec.decode(r.value, { stream: true });
          var i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            var block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            var name = 'message', data = '';
            block.split('\n').forEach(function (line) {
              if (line.indexOf('event: ') === 0) { name = line.slice(7); }
              if (line.indexOf('data: ') === 0) { data += line.slice(6); }
            });
            try { handle(name, JSON.parse(data), state); } catch (e) { /* skip a malformed event */ }
          }
          return pump();
        });
      }
      return pump();
    }).catch(function () {
      state.status.textContent = 'The connection failed. Please try again in a minute.';
    });
  }
  form.addEventListener('submit', function (ev) {
    var q = form.elements.q.value.trim();
    if (!q) { return; }
    ev.preventDefault();
    if (window.history && history.replaceState) {
      history.replaceState(null, '', root + '/ask?q=' + encodeURIComponent(q) + (onNetwork ? '&' + onNetwork : ''));
    }
    run(q);
  });
}());
