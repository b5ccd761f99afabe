// Keeps a console page current: every 5 seconds (while the tab is visible) asks
// /console/live (or the page's own data-live-url) for the version; when it differs from the page's, fetches the page
// again and swaps each element marked data-live (by id), keeping what the visitor is typing
// in forms that are not marked. Says when it last updated in #live-status and tells the page's
// other scripts with a "boxtrack:updated" event.
(function () {
  'use strict';
  var status = document.getElementById('live-status');
  if (!status || !window.fetch || !window.DOMParser) {
    return;
  }
  var version = status.getAttribute('data-version');
  var versionUrl = status.getAttribute('data-live-url') || '/console/live';
  var busy = false;
  var stopped = false;

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, 'text/html');
    var regions = document.querySelectorAll('[data-live][id]');
    for (var i = 0; i < regions.length; i++) {
      var next = fresh.getElementById(regions[i].id);
      if (next) {
        regions[i].innerHTML = next.innerHTML;
      }
    }
    var freshStatus = fresh.getElementById('live-status');
    if (freshStatus) {
      version = freshStatus.getAttribute('data-version');
    }
    status.setAttribute('data-version', version);
    status.textContent = 'Updated at ' + new Date().toLocaleTimeString() + '.';
    document.dispatchEvent(new CustomEvent('boxtrack:updated'));
  }

  function tick() {
    if (busy || stopped || document.hidden) {
      return;
    }
    busy = true;
    fetch(versionUrl, { credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        if (r.status === 401) {
          stopped = true;
          status.textContent = 'Signed out: this page no longer updates.';
          return null;
        }
        return r.ok ? r.json() : null;
      })
      .then(function (body) {
        if (!body || body.version === version) {
          return null;
        }
        return fetch(location.href, { credentials: 'same-origin', cache: 'no-store' })
          .then(function (r) { return r.ok ? r.text() : null; })
          .then(function (html) { if (html) { swap(html); } });
      })
      .catch(function () { /* try again at the next tick */ })
      .then(function () { busy = false; });
  }

  setInterval(tick, 5000);
  document.addEventListener('visibilitychange', tick);
})();
