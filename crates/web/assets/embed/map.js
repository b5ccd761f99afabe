/*
 * boxtrack embeddable map: window.BoxtrackMap (and window.TntMap when the page has none).
 *
 * Served as /embed/map.js right after the vendored Leaflet 1.9.4 (one file), with
 * /embed/map.css (Leaflet's stylesheet followed by map.css). Leaflet is taken for this file's
 * own use and the page's window.L (and window.leaflet) are given back as they were.
 *
 *   const map = new BoxtrackMap('#map', { authToken: 'btp_...' });
 *   await map.start();
 *   await map.load(shipmentId, containerId);
 *
 * No base-map tiles: the land is Natural Earth's 1:110m polygons (world-atlas), served by
 * boxtrack as /embed/land-110m.geojson and drawn on a sea-coloured background. Everything that
 * comes from data is put in the page with textContent, never as HTML.
 */
(function () {
  'use strict';

  // ---- Leaflet: the copy concatenated just above this file, without keeping the page's globals.
  // Leaflet's UMD build set window.leaflet and window.L to itself, remembering the L it found;
  // noConflict() puts that one back. Under an AMD loader (define.amd) Leaflet registered itself
  // as a module instead and set no global: then the page's own L is left alone and used.
  var Lf = window.L;
  var amd = typeof window.define === 'function' && window.define.amd;
  if (!amd && Lf && Lf === window.leaflet && typeof Lf.noConflict === 'function') {
    Lf = Lf.noConflict();
    try {
      delete window.leaflet;
    } catch (e) {
      window.leaflet = undefined;
    }
  }

  // ---- Where boxtrack is: the origin and path before /embed/map.js of this script's address.
  var SCRIPT_BASE = (function () {
    var script = document.currentScript;
    if (!script || !script.src) {
      return '';
    }
    try {
      var u = new URL(script.src, document.baseURI);
      var path = u.pathname;
      var at = path.lastIndexOf('/embed/');
      path = at >= 0 ? path.slice(0, at) : path.slice(0, path.lastIndexOf('/'));
      return u.origin + path;
    } catch (e) {
      return '';
    }
  })();

  function trimBase(base) {
    return String(base).replace(/\/+$/, '');
  }

  // The land polygons, fetched once per page and base address, shared by every map.
  var landCache = Object.create(null);
  function fetchLand(base) {
    if (!landCache[base]) {
      landCache[base] = fetch(base + '/embed/land-110m.geojson', { credentials: 'omit' }).then(
        function (resp) {
          if (!resp.ok) {
            throw new Error('land: HTTP ' + resp.status);
          }
          return resp.json();
        }
      );
      landCache[base].catch(function () {
        delete landCache[base];
      });
    }
    return landCache[base];
  }

  // ---- Small DOM helpers: text only, never HTML.
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    return node;
  }

  function svgEl(tag, attrs) {
    var node = document.createElementNS('http://www.w3.org/2000/svg', tag);
    Object.keys(attrs).forEach(function (k) {
      node.setAttribute(k, attrs[k]);
    });
    return node;
  }

  function str(v) {
    return v === undefined || v === null ? '' : String(v);
  }

  // ---- Times: at the place's own clock, with the zone's abbreviation.
  function formatTime(iso, zone) {
    if (!iso) {
      return '';
    }
    var d = new Date(iso);
    if (isNaN(d.getTime())) {
      return str(iso);
    }
    var opts = {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
      timeZone: zone || 'UTC'
    };
    try {
      return new Intl.DateTimeFormat(undefined, opts).format(d);
    } catch (e) {
      opts.timeZone = 'UTC';
      return new Intl.DateTimeFormat(undefined, opts).format(d);
    }
  }

  // ---- Geometry: longitudes unwrapped so that a line never jumps across the map.
  function unwrapTo(lon, ref) {
    while (lon - ref > 180) {
      lon -= 360;
    }
    while (lon - ref < -180) {
      lon += 360;
    }
    return lon;
  }

  // Consecutive points differ by less than 180 degrees of longitude.
  function unwrapLine(coords) {
    var out = [];
    var prev = null;
    for (var i = 0; i < coords.length; i++) {
      var c = coords[i];
      if (!Array.isArray(c) || !isFinite(c[0]) || !isFinite(c[1])) {
        continue;
      }
      var lon = prev === null ? Number(c[0]) : unwrapTo(Number(c[0]), prev);
      out.push([lon, Number(c[1])]);
      prev = lon;
    }
    return out;
  }

  function shiftLine(line, by) {
    if (!by) {
      return line;
    }
    return line.map(function (p) {
      return [p[0] + by, p[1]];
    });
  }

  // Great-circle distance in radians, independent of how longitudes are wrapped.
  function distance(a, b) {
    var rad = Math.PI / 180;
    var dLat = (b[1] - a[1]) * rad;
    var dLon = (b[0] - a[0]) * rad;
    var h =
      Math.sin(dLat / 2) * Math.sin(dLat / 2) +
      Math.cos(a[1] * rad) * Math.cos(b[1] * rad) * Math.sin(dLon / 2) * Math.sin(dLon / 2);
    return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
  }

  // The multiple of 360 that brings `point` next to the nearest of the anchors (unwrapped).
  function shiftNear(point, anchors) {
    if (!anchors.length) {
      return 0;
    }
    var best = anchors[0];
    var bestD = Infinity;
    for (var i = 0; i < anchors.length; i++) {
      var d = distance(point, anchors[i]);
      if (d < bestD) {
        bestD = d;
        best = anchors[i];
      }
    }
    return unwrapTo(point[0], best[0]) - point[0];
  }

  function toLatLngs(line) {
    return line.map(function (p) {
      return Lf.latLng(p[1], p[0]);
    });
  }

  function lineParts(geometry) {
    if (!geometry) {
      return [];
    }
    if (geometry.type === 'LineString') {
      return [geometry.coordinates || []];
    }
    if (geometry.type === 'MultiLineString') {
      return geometry.coordinates || [];
    }
    return [];
  }

  function pointOf(geometry) {
    if (!geometry || geometry.type !== 'Point' || !Array.isArray(geometry.coordinates)) {
      return null;
    }
    var c = geometry.coordinates;
    if (!isFinite(c[0]) || !isFinite(c[1])) {
      return null;
    }
    return [Number(c[0]), Number(c[1])];
  }

  // ---- Messages shown in the map for a failed load.
  function messageFor(status) {
    switch (status) {
      case 0:
        return 'The map could not reach the tracking service. Check the connection and try again.';
      case 400:
        return 'This map was asked for a shipment or container id that is not valid.';
      case 401:
        return 'This map is not set up correctly: its key was not accepted.';
      case 403:
        return 'This map is not allowed here: its key does not allow this site or this shipment.';
      case 404:
        return 'No map was found for this shipment and container.';
      case 429:
        return 'Too many map requests. Try again in a minute.';
      default:
        return status >= 500
          ? 'The tracking service could not draw this map right now. Try again later.'
          : 'The map could not be loaded (HTTP ' + status + ').';
    }
  }

  function loadError(status, message) {
    var err = new Error(message || messageFor(status));
    err.name = 'BoxtrackMapError';
    err.status = status;
    return err;
  }

  var ATTRIBUTION = 'Land: <a href="https://www.naturalearthdata.com/">Natural Earth</a>';

  // popups keep clear of the zoom buttons (top left) and the expand button (bottom left)
  var POPUP_OPTIONS = {
    className: 'tntm__popup',
    maxWidth: 280,
    autoPanPaddingTopLeft: [56, 12],
    autoPanPaddingBottomRight: [12, 12]
  };

  var instances = 0;

  // ---- The map.
  function BoxtrackMap(target, options) {
    if (!(this instanceof BoxtrackMap)) {
      throw new TypeError('BoxtrackMap is a class: use new BoxtrackMap(element, options)');
    }
    if (!Lf || typeof Lf.map !== 'function') {
      throw new Error('BoxtrackMap: Leaflet is missing; load BASE/embed/map.js as it is served');
    }
    options = options || {};
    var element = typeof target === 'string' ? document.querySelector(target) : target;
    if (!element || element.nodeType !== 1) {
      throw new Error('BoxtrackMap: no element found for ' + String(target));
    }
    if (options.dataUrl !== undefined && typeof options.dataUrl !== 'function') {
      throw new Error('BoxtrackMap: dataUrl must be a function (shipmentId, containerId) => url');
    }
    if (!options.dataUrl && (typeof options.authToken !== 'string' || !options.authToken)) {
      throw new Error('BoxtrackMap: the authToken option (a publishable key) is required');
    }
    this._element = element;
    this._token = options.authToken || '';
    this._dataUrl = options.dataUrl || null;
    this._base = trimBase(options.baseUrl || SCRIPT_BASE);
    this._map = null;
    this._started = null;
    this._landOffsets = Object.create(null);
    this._land = null;
    this._data = null;
    this._loadSeq = 0;
    this._abort = null;
    this._id = ++instances;
  }

  Object.defineProperty(BoxtrackMap.prototype, 'leaflet', {
    get: function () {
      return this._map;
    },
    enumerable: true
  });

  /** Builds the map in the element and draws the land. Resolves when the land is drawn (or
   *  could not be fetched: the map works without it). Calling it again returns the same. */
  BoxtrackMap.prototype.start = function () {
    if (!this._started) {
      this._started = this._start();
    }
    return this._started;
  };

  BoxtrackMap.prototype._start = function () {
    var self = this;
    var root = this._element;
    root.classList.add('tntm');
    root.setAttribute('data-state', 'idle');
    while (root.firstChild) {
      root.removeChild(root.firstChild);
    }

    var container = el('div', 'tntm__container');
    var mapDiv = el('div', 'tntm__map');
    var message = el('div', 'tntm__message');
    message.setAttribute('role', 'status');
    message.setAttribute('aria-live', 'polite');
    message.hidden = true;
    var expand = el('button', 'tntm__expand');
    expand.type = 'button';
    expand.setAttribute('aria-label', 'Expand map');
    expand.setAttribute('aria-pressed', 'false');
    expand.title = 'Expand map';
    expand.appendChild(expandIcon());
    container.appendChild(mapDiv);
    container.appendChild(message);
    container.appendChild(expand);
    // an element the page gave no height (it is empty now) gets --tntm-min-height instead of
    // collapsing
    if (root.getBoundingClientRect().height < 10) {
      container.classList.add('--auto-height');
    }
    root.appendChild(container);
    this._container = container;
    this._message = message;
    this._expandButton = expand;

    var map = Lf.map(mapDiv, {
      center: [20, 0],
      zoom: 1,
      minZoom: 1,
      maxZoom: 10,
      zoomSnap: 0.25,
      worldCopyJump: false,
      attributionControl: false,
      renderer: Lf.svg({ padding: 0.5 })
    });
    Lf.control
      .attribution({ prefix: '<a href="https://leafletjs.com">Leaflet</a>' })
      .addAttribution(ATTRIBUTION)
      .addTo(map);
    map.createPane('tntmLand');
    map.getPane('tntmLand').style.zIndex = '250';
    map.getPane('tntmLand').style.pointerEvents = 'none';
    this._map = map;
    this._landGroup = Lf.layerGroup().addTo(map);
    this._dataGroup = Lf.featureGroup().addTo(map);

    this._onExpand = function () {
      self.setExpanded(!self._container.classList.contains('--expanded'));
    };
    this._onKey = function (ev) {
      if (ev.key === 'Escape' && self._container.classList.contains('--expanded')) {
        self.setExpanded(false);
        self._expandButton.focus();
      }
    };
    expand.addEventListener('click', this._onExpand);
    container.addEventListener('keydown', this._onKey);
    if (typeof ResizeObserver === 'function') {
      this._resize = new ResizeObserver(function () {
        if (self._map) {
          self._map.invalidateSize({ pan: false });
        }
      });
      this._resize.observe(container);
    }

    return fetchLand(this._base).then(
      function (land) {
        if (!self._map) {
          return self;
        }
        self._land = land;
        self._ensureLand(-180, 180);
        root.setAttribute('data-land', 'ready');
        return self;
      },
      function () {
        // the map still shows the journey on the sea colour alone
        root.setAttribute('data-land', 'error');
        return self;
      }
    );
  };

  function expandIcon() {
    var svg = svgEl('svg', {
      viewBox: '0 0 16 16',
      width: '16',
      height: '16',
      'aria-hidden': 'true',
      focusable: 'false',
      class: 'tntm__expand-icon'
    });
    svg.appendChild(
      svgEl('path', {
        d: 'M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4',
        fill: 'none',
        stroke: 'currentColor',
        'stroke-width': '2'
      })
    );
    return svg;
  }

  // Fits the journey, leaving room on the right for the ports' labels.
  BoxtrackMap.prototype._fit = function () {
    var map = this._map;
    var bounds = this._bounds;
    if (!map || !bounds || !bounds.isValid()) {
      return;
    }
    var size = map.getSize();
    var side = Math.round(Math.min(40, size.x * 0.08));
    var right = Math.round(Math.min(170, size.x * 0.3));
    map.fitBounds(bounds, {
      paddingTopLeft: [side, 40],
      paddingBottomRight: [right, 40],
      maxZoom: 6,
      animate: false
    });
  };

  /** Expands the map over the page (class `--expanded` on `.tntm__container`) or back. */
  BoxtrackMap.prototype.setExpanded = function (on) {
    if (!this._container) {
      return;
    }
    this._container.classList.toggle('--expanded', !!on);
    this._expandButton.setAttribute('aria-pressed', on ? 'true' : 'false');
    this._expandButton.setAttribute('aria-label', on ? 'Collapse map' : 'Expand map');
    this._expandButton.title = on ? 'Collapse map' : 'Expand map';
    if (this._map) {
      this._map.invalidateSize({ pan: false });
      this._fit();
    }
  };

  // Draws the land once for each copy of the world (shifted by a multiple of 360 degrees)
  // that the longitudes from west to east touch, plus one on each side.
  BoxtrackMap.prototype._ensureLand = function (west, east) {
    if (!this._land || !this._map) {
      return;
    }
    var from = Math.floor((west + 180) / 360) - 1;
    var to = Math.max(from + 2, Math.ceil((east + 180) / 360)); // the copy east of east's
    for (var k = from; k <= to; k++) {
      if (this._landOffsets[k]) {
        continue;
      }
      var shift = k * 360;
      var layer = Lf.geoJSON(this._land, {
        pane: 'tntmLand',
        interactive: false,
        coordsToLatLng: (function (s) {
          return function (c) {
            return Lf.latLng(c[1], c[0] + s);
          };
        })(shift),
        style: function () {
          return {
            className: 'tntm__land',
            stroke: true,
            weight: 0.5,
            fill: true,
            fillOpacity: 1,
            smoothFactor: 1.5
          };
        }
      });
      this._landGroup.addLayer(layer);
      this._landOffsets[k] = layer;
    }
  };

  BoxtrackMap.prototype._setMessage = function (text, kind) {
    var m = this._message;
    if (!m) {
      return;
    }
    while (m.firstChild) {
      m.removeChild(m.firstChild);
    }
    m.classList.remove('--error', '--loading');
    if (!text) {
      m.hidden = true;
      m.setAttribute('role', 'status');
      return;
    }
    m.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    m.classList.add(kind === 'error' ? '--error' : '--loading');
    m.appendChild(el('p', 'tntm__message-text', text));
    m.hidden = false;
  };

  /** Fetches the journey of one container of a shipment and draws it. Rejects with an Error
   *  that has `status` (the HTTP status, 0 when the service could not be reached). */
  BoxtrackMap.prototype.load = function (shipmentId, containerId) {
    var self = this;
    return this.start().then(function () {
      return self._load(shipmentId, containerId);
    });
  };

  BoxtrackMap.prototype._load = function (shipmentId, containerId) {
    var self = this;
    var root = this._element;
    if (!this._map) {
      return Promise.reject(new Error('BoxtrackMap: the map was destroyed'));
    }
    if (!shipmentId || !containerId) {
      return Promise.reject(new TypeError('BoxtrackMap.load needs a shipment id and a container id'));
    }
    var seq = ++this._loadSeq;
    if (this._abort) {
      this._abort.abort();
    }
    var abort = typeof AbortController === 'function' ? new AbortController() : null;
    this._abort = abort;
    root.setAttribute('data-state', 'loading');
    root.setAttribute('aria-busy', 'true');
    this._setMessage('Loading the map…', 'loading');

    var url;
    var init = { signal: abort ? abort.signal : undefined };
    if (this._dataUrl) {
      url = String(this._dataUrl(String(shipmentId), String(containerId)));
      init.credentials = 'same-origin';
      init.headers = { Accept: 'application/geo+json, application/json' };
    } else {
      var query = new URLSearchParams();
      query.set('shipment_id', String(shipmentId));
      query.set('container_id', String(containerId));
      url = this._base + '/embed/v1/map_geojson?' + query.toString();
      init.credentials = 'omit';
      init.mode = 'cors';
      init.headers = {
        Accept: 'application/geo+json, application/json',
        Authorization: 'Token ' + this._token
      };
    }

    return fetch(url, init)
      .then(
        function (resp) {
          if (!resp.ok) {
            throw loadError(resp.status);
          }
          return resp.json().then(
            function (body) {
              if (!body || body.type !== 'FeatureCollection' || !Array.isArray(body.features)) {
                throw loadError(resp.status, 'The map data could not be read.');
              }
              return body;
            },
            function () {
              throw loadError(resp.status, 'The map data could not be read.');
            }
          );
        },
        function (e) {
          if (e && e.name === 'AbortError') {
            throw e;
          }
          throw loadError(0);
        }
      )
      .then(
        function (collection) {
          if (seq !== self._loadSeq || !self._map) {
            return self;
          }
          self._abort = null;
          self._draw(collection);
          self._setMessage('');
          root.removeAttribute('aria-busy');
          root.setAttribute('data-state', 'ready');
          return self;
        },
        function (err) {
          if (seq !== self._loadSeq || !self._map) {
            throw err;
          }
          self._abort = null;
          self._fail(err);
          throw err;
        }
      );
  };

  BoxtrackMap.prototype._fail = function (err) {
    var root = this._element;
    root.removeAttribute('aria-busy');
    root.setAttribute('data-state', 'error');
    root.setAttribute('data-error-status', String(err.status === undefined ? 0 : err.status));
    // what was drawn before belongs to another journey: take it away
    if (this._dataGroup) {
      this._dataGroup.clearLayers();
    }
    this._bounds = null;
    root.setAttribute('data-features', '0');
    root.setAttribute('data-ports', '0');
    this._setMessage(err.message, 'error');
  };

  // ---- Drawing one FeatureCollection.
  BoxtrackMap.prototype._draw = function (collection) {
    var root = this._element;
    var group = this._dataGroup;
    group.clearLayers();
    var features = collection.features.filter(function (f) {
      return f && f.properties && f.geometry;
    });

    // Ports in their order, each one's longitude brought next to the one before.
    var ports = features
      .filter(function (f) {
        return f.properties.feature_type === 'port' && pointOf(f.geometry);
      })
      .sort(function (a, b) {
        return (Number(a.properties.ports_sequence) || 0) - (Number(b.properties.ports_sequence) || 0);
      });
    var anchors = [];
    var prevLon = null;
    ports.forEach(function (f) {
      var p = pointOf(f.geometry);
      var lon = prevLon === null ? p[0] : unwrapTo(p[0], prevLon);
      prevLon = lon;
      f._tntmPoint = [lon, p[1]];
      anchors.push(f._tntmPoint);
    });

    var drawn = 0;
    var portCount = 0;
    var west = Infinity;
    var east = -Infinity;
    var bounds = Lf.latLngBounds([]);
    function extend(points) {
      points.forEach(function (p) {
        west = Math.min(west, p[0]);
        east = Math.max(east, p[0]);
        bounds.extend(Lf.latLng(p[1], p[0]));
      });
    }

    var self = this;
    var order = { past_vessel_locations: 1, estimated_full_legs: 2, estimated_partial_leg: 3 };
    features
      .filter(function (f) {
        return order[f.properties.feature_type];
      })
      .sort(function (a, b) {
        return order[a.properties.feature_type] - order[b.properties.feature_type];
      })
      .forEach(function (f) {
        var type = f.properties.feature_type;
        var lines = lineParts(f.geometry)
          .map(unwrapLine)
          .filter(function (l) {
            return l.length >= 2;
          })
          .map(function (l) {
            return shiftLine(l, shiftNear(l[0], anchors));
          });
        if (!lines.length) {
          return;
        }
        lines.forEach(extend);
        var past = type === 'past_vessel_locations';
        var layer = Lf.polyline(lines.map(toLatLngs), {
          className:
            'tntm__route ' + (past ? 'tntm__route--past' : 'tntm__route--estimated tntm__route--' + type.replace(/_/g, '-')),
          weight: past ? 3 : 2,
          dashArray: past ? null : '6 6',
          interactive: false,
          smoothFactor: 1
        });
        group.addLayer(layer);
        drawn++;
      });

    ports.forEach(function (f) {
      var p = f._tntmPoint;
      delete f._tntmPoint;
      extend([p]);
      group.addLayer(self._portMarker(f.properties, p));
      drawn++;
      portCount++;
    });

    features
      .filter(function (f) {
        return f.properties.feature_type === 'current_vessel' && pointOf(f.geometry);
      })
      .forEach(function (f) {
        var p = pointOf(f.geometry);
        p = [p[0] + shiftNear(p, anchors), p[1]];
        extend([p]);
        group.addLayer(self._vesselMarker(f.properties, p));
        drawn++;
      });

    if (drawn) {
      this._ensureLand(west, east);
    }
    this._bounds = bounds.isValid() ? bounds : null;
    if (this._bounds) {
      this._map.invalidateSize({ pan: false });
      this._fit();
    }
    root.setAttribute('data-features', String(drawn));
    root.setAttribute('data-ports', String(portCount));
    root.removeAttribute('data-error-status');
  };

  function journeyState(props) {
    return props.inbound_ata_at || props.outbound_atd_at ? 'visited' : 'on-the-way';
  }

  BoxtrackMap.prototype._portMarker = function (props, p) {
    var state = journeyState(props);
    var marker = el('div', 'tntm__marker');
    marker.setAttribute('data-journey-state', state);
    var label = str(props.label);
    if (label === 'POL' || label === 'POD') {
      marker.classList.add('--' + label.toLowerCase());
    }
    marker.appendChild(el('span', 'tntm__marker-number', str(props.ports_sequence)));
    var secondary = el('span', 'tntm__marker-label');
    if (label) {
      secondary.appendChild(el('span', 'tntm__marker-code', label));
    }
    if (props.name) {
      secondary.appendChild(el('span', 'tntm__marker-name', str(props.name)));
    }
    if (secondary.firstChild) {
      marker.appendChild(secondary);
    }

    var title = [label, str(props.name)].filter(Boolean).join(' ');
    var m = Lf.marker(Lf.latLng(p[1], p[0]), {
      icon: Lf.divIcon({
        html: marker,
        className: 'tntm__port',
        iconSize: [28, 28],
        iconAnchor: [14, 14],
        popupAnchor: [0, -14]
      }),
      title: title + (state === 'visited' ? ' (visited)' : ' (on the way)'),
      keyboard: true,
      riseOnHover: true
    });
    m.bindPopup(portPopup(props), POPUP_OPTIONS);
    return m;
  };

  function portPopup(props) {
    var box = el('div', 'tntm__popup-body');
    var head = el('p', 'tntm__popup-title');
    if (props.label) {
      head.appendChild(el('span', 'tntm__popup-code', str(props.label)));
    }
    head.appendChild(el('span', 'tntm__popup-name', str(props.name) || 'Port'));
    box.appendChild(head);
    var place = [str(props.country || props.country_code), str(props.location_id)]
      .filter(Boolean)
      .join(' · ');
    if (place) {
      box.appendChild(el('p', 'tntm__popup-place', place));
    }
    if (props.ports_sequence && props.ports_total) {
      box.appendChild(
        el('p', 'tntm__popup-sequence', 'Port ' + props.ports_sequence + ' of ' + props.ports_total)
      );
    }
    var rows = [
      ['Arrived (ATA)', props.inbound_ata_at],
      ['Arrival (ETA)', props.inbound_ata_at ? null : props.inbound_eta_at],
      ['Departed (ATD)', props.outbound_atd_at],
      ['Departure (ETD)', props.outbound_atd_at ? null : props.outbound_etd_at]
    ];
    var dl = el('dl', 'tntm__popup-times');
    rows.forEach(function (r) {
      if (!r[1]) {
        return;
      }
      dl.appendChild(el('dt', null, r[0]));
      var dd = el('dd');
      var t = el('time', null, formatTime(r[1], props.time_zone));
      t.setAttribute('datetime', str(r[1]));
      dd.appendChild(t);
      dl.appendChild(dd);
    });
    if (dl.firstChild) {
      box.appendChild(dl);
    }
    return box;
  }

  BoxtrackMap.prototype._vesselMarker = function (props, p) {
    var icon = el('div', 'tntm__vessel');
    var heading = props.vessel_location_heading;
    var hasHeading = heading !== null && heading !== undefined && isFinite(heading);
    var arrow = svgEl('svg', {
      viewBox: '-10 -10 20 20',
      width: '22',
      height: '22',
      'aria-hidden': 'true',
      focusable: 'false',
      class: 'tntm__vessel-arrow'
    });
    if (hasHeading) {
      arrow.appendChild(svgEl('path', { d: 'M0 -9 L6.5 7 L0 3.5 L-6.5 7 Z' }));
      // a property set through the DOM, which a style-src policy allows
      arrow.style.transform = 'rotate(' + Number(heading) + 'deg)';
    } else {
      icon.classList.add('--no-heading');
      arrow.appendChild(svgEl('circle', { cx: '0', cy: '0', r: '5.5' }));
    }
    icon.appendChild(arrow);

    var name = str(props.vessel_name) || 'Vessel';
    var m = Lf.marker(Lf.latLng(p[1], p[0]), {
      icon: Lf.divIcon({
        html: icon,
        className: 'tntm__vessel-icon',
        iconSize: [22, 22],
        iconAnchor: [11, 11],
        popupAnchor: [0, -11],
        tooltipAnchor: [12, 0]
      }),
      title: name,
      keyboard: true,
      zIndexOffset: 1000
    });
    m.bindTooltip(el('span', 'tntm__tooltip-text', name), {
      className: 'tntm__tooltip',
      direction: 'right'
    });
    m.bindPopup(vesselPopup(props, hasHeading), POPUP_OPTIONS);
    return m;
  };

  function vesselPopup(props, hasHeading) {
    var box = el('div', 'tntm__popup-body');
    var head = el('p', 'tntm__popup-title');
    head.appendChild(el('span', 'tntm__popup-name', str(props.vessel_name) || 'Vessel'));
    box.appendChild(head);
    var route = [str(props.departure_port_name), str(props.arrival_port_name)].filter(Boolean);
    if (route.length === 2) {
      box.appendChild(el('p', 'tntm__popup-place', route[0] + ' → ' + route[1]));
    } else if (route.length === 1) {
      box.appendChild(el('p', 'tntm__popup-place', 'From ' + route[0]));
    }
    var dl = el('dl', 'tntm__popup-times');
    function row(term, value, iso) {
      if (value === '' || value === null || value === undefined) {
        return;
      }
      dl.appendChild(el('dt', null, term));
      var dd = el('dd');
      if (iso) {
        var t = el('time', null, value);
        t.setAttribute('datetime', iso);
        dd.appendChild(t);
      } else {
        dd.textContent = String(value);
      }
      dl.appendChild(dd);
    }
    row('Voyage', str(props.voyage_number));
    row('IMO', str(props.vessel_imo));
    row(
      'Position at',
      formatTime(props.vessel_location_timestamp, 'UTC'),
      str(props.vessel_location_timestamp)
    );
    var speed = props.vessel_location_speed;
    if (speed !== null && speed !== undefined && isFinite(speed)) {
      row('Speed', Number(speed).toFixed(1) + ' kn');
    }
    if (hasHeading) {
      row('Heading', Math.round(Number(props.vessel_location_heading)) + '°');
    }
    if (dl.firstChild) {
      box.appendChild(dl);
    }
    return box;
  }

  /** Removes the map from the element. */
  BoxtrackMap.prototype.destroy = function () {
    if (this._abort) {
      this._abort.abort();
    }
    this._loadSeq++;
    if (this._resize) {
      this._resize.disconnect();
    }
    if (this._map) {
      this._map.remove();
      this._map = null;
    }
    if (this._container && this._container.parentNode) {
      this._container.parentNode.removeChild(this._container);
    }
    this._element.classList.remove('tntm');
    this._element.removeAttribute('data-state');
    this._landOffsets = Object.create(null);
    this._started = null;
  };

  BoxtrackMap.version = '1';
  window.BoxtrackMap = BoxtrackMap;
  if (!window.TntMap) {
    window.TntMap = BoxtrackMap;
  }
})();
