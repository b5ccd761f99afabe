// The console's container page: draws the route map (the embeddable map's code, fed by the
// console's own session-authenticated endpoint instead of a publishable key).
(function () {
  'use strict';
  var el = document.getElementById('route-map');
  if (!el || !window.BoxtrackMap) {
    return;
  }
  var url = el.getAttribute('data-map-url');
  var shipment = el.getAttribute('data-shipment-id');
  var container = el.getAttribute('data-container-id');
  var map = new window.BoxtrackMap(el, {
    dataUrl: function () {
      return url;
    }
  });
  function draw() {
    return map.load(shipment, container).catch(function () {
      // the map shows what went wrong in its own element
    });
  }
  map.start().then(draw);
  // live.js found that the account changed: the vessel may have moved
  document.addEventListener('boxtrack:updated', draw);
})();
