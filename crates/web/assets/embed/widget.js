/*
 * boxtrack tracking widget.
 *
 *   <div id="terminal49-tnt-widget" data-token="PUBLISHABLE_KEY" data-number="OPTIONAL"></div>
 *   <script src="BASE/embed/widget.js"></script>
 *
 * Also mounts on every element with class "boxtrack-widget" (same data attributes, plus
 * data-base-url to name the boxtrack server when the script is served from elsewhere).
 * Adds BASE/embed/widget.css once, renders a search form and shows what
 * GET BASE/embed/v1/track?number=... answers for the key. Everything that comes from data is
 * put in the page with textContent, never as HTML.
 */
(function () {
  'use strict';

  // The origin and path before /embed/widget.js of this script's address.
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

  var SELECTOR = '#terminal49-tnt-widget, .boxtrack-widget';
  var LABEL = 'Bill of lading, container or reference number';
  var counter = 0;

  function trimBase(base) {
    return String(base).replace(/\/+$/, '');
  }

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

  function str(v) {
    return v === undefined || v === null ? '' : String(v);
  }

  // The stylesheet, once per page (a link already there, ours or the page's own, is kept).
  function ensureStylesheet(base) {
    var href = base + '/embed/widget.css';
    var abs;
    try {
      abs = new URL(href, document.baseURI).href;
    } catch (e) {
      abs = href;
    }
    var links = document.querySelectorAll('link[rel~="stylesheet"]');
    for (var i = 0; i < links.length; i++) {
      if (links[i].href === abs || links[i].hasAttribute('data-boxtrack-widget-css')) {
        return;
      }
    }
    var link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = href;
    link.setAttribute('data-boxtrack-widget-css', '');
    (document.head || document.documentElement).appendChild(link);
  }

  // ---- Times, each at its place's clock with the zone's abbreviation.
  function validZone(zone) {
    if (!zone) {
      return 'UTC';
    }
    try {
      new Intl.DateTimeFormat(undefined, { timeZone: zone });
      return zone;
    } catch (e) {
      return 'UTC';
    }
  }

  function formatTime(iso, zone) {
    var d = new Date(iso);
    if (!iso || isNaN(d.getTime())) {
      return str(iso);
    }
    return new Intl.DateTimeFormat(undefined, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
      timeZone: validZone(zone)
    }).format(d);
  }

  // A calendar date (the last free day). Midnight UTC stands for the date itself, as boxtrack
  // stores dates; any other instant is the date it is at the place.
  function formatDate(iso, zone) {
    var d = new Date(iso);
    if (!iso || isNaN(d.getTime())) {
      return str(iso);
    }
    var asDate = /T00:00(:00(\.0+)?)?(Z|[+-]00:?00)$/.test(String(iso)) || /^\d{4}-\d{2}-\d{2}$/.test(String(iso));
    return new Intl.DateTimeFormat(undefined, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      weekday: 'short',
      timeZone: asDate ? 'UTC' : validZone(zone)
    }).format(d);
  }

  function timeEl(iso, text) {
    var t = el('time', null, text);
    if (iso) {
      t.setAttribute('datetime', String(iso));
    }
    return t;
  }

  function portText(port) {
    if (!port) {
      return '';
    }
    var name = str(port.name);
    var code = str(port.locode);
    if (name && code) {
      return name + ' (' + code + ')';
    }
    return name || code;
  }

  // ---- One widget.
  function Widget(root, options) {
    options = options || {};
    this.root = root;
    this.token = str(options.token !== undefined ? options.token : root.getAttribute('data-token')).trim();
    this.base = trimBase(options.baseUrl || root.getAttribute('data-base-url') || SCRIPT_BASE);
    var level = parseInt(root.getAttribute('data-heading-level'), 10);
    this.headingLevel = level >= 2 && level <= 6 ? level : 3;
    this.abort = null;
    this.seq = 0;
    ensureStylesheet(this.base);
    this.render();
    var number = str(options.number !== undefined ? options.number : root.getAttribute('data-number')).trim();
    if (!this.token) {
      this.fail('This tracking widget is not set up correctly (it has no key).');
    } else if (number) {
      this.input.value = number;
      this.search(number);
    }
  }

  Widget.prototype.render = function () {
    var root = this.root;
    var id = 'btw-' + ++counter;
    root.classList.add('btw');
    while (root.firstChild) {
      root.removeChild(root.firstChild);
    }
    var form = el('form', 'btw__form');
    form.setAttribute('role', 'search');
    form.setAttribute('aria-label', 'Track a shipment');
    form.noValidate = true;
    var label = el('label', 'btw__label', LABEL);
    label.htmlFor = id + '-number';
    var row = el('div', 'btw__row');
    var input = el('input', 'btw__input');
    input.id = id + '-number';
    input.name = 'number';
    input.type = 'text';
    input.autocomplete = 'off';
    input.spellcheck = false;
    input.maxLength = 100;
    input.setAttribute('autocapitalize', 'characters');
    input.setAttribute('enterkeyhint', 'search');
    input.setAttribute('aria-describedby', id + '-hint');
    var button = el('button', 'btw__button', 'Track');
    button.type = 'submit';
    row.appendChild(input);
    row.appendChild(button);
    var hint = el('p', 'btw__hint', 'For example MAEU123456789 or MSCU1234566.');
    hint.id = id + '-hint';
    form.appendChild(label);
    form.appendChild(row);
    form.appendChild(hint);

    var results = el('div', 'btw__results');
    results.setAttribute('aria-live', 'polite');
    results.id = id + '-results';

    root.appendChild(form);
    root.appendChild(results);
    this.form = form;
    this.input = input;
    this.button = button;
    this.results = results;
    this.setState('idle', 0);

    var self = this;
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var number = input.value.trim();
      if (!number) {
        input.setAttribute('aria-invalid', 'true');
        self.show(el('p', 'btw__message', 'Enter a bill of lading, container or reference number.'));
        self.seq++;
        if (self.abort) {
          self.abort.abort();
          self.abort = null;
        }
        self.setState('idle', 0);
        input.focus();
        return;
      }
      input.removeAttribute('aria-invalid');
      if (!self.token) {
        self.fail('This tracking widget is not set up correctly (it has no key).');
        return;
      }
      self.search(number);
    });
  };

  Widget.prototype.setState = function (state, containers) {
    this.root.setAttribute('data-state', state);
    this.root.setAttribute('data-results', String(containers || 0));
    this.results.setAttribute('aria-busy', state === 'loading' ? 'true' : 'false');
  };

  Widget.prototype.show = function (node) {
    var r = this.results;
    while (r.firstChild) {
      r.removeChild(r.firstChild);
    }
    if (node) {
      r.appendChild(node);
    }
  };

  Widget.prototype.fail = function (text) {
    var p = el('p', 'btw__message btw__message--error', text);
    this.show(p);
    this.setState('error', 0);
  };

  Widget.prototype.search = function (number) {
    var self = this;
    var seq = ++this.seq;
    if (this.abort) {
      this.abort.abort();
    }
    var abort = typeof AbortController === 'function' ? new AbortController() : null;
    this.abort = abort;
    this.setState('loading', 0);
    this.show(el('p', 'btw__message btw__message--loading', 'Searching for ' + number + '…'));

    var url = this.base + '/embed/v1/track?number=' + encodeURIComponent(number);
    fetch(url, {
      method: 'GET',
      mode: 'cors',
      credentials: 'omit',
      headers: { Accept: 'application/json', Authorization: 'Token ' + this.token },
      signal: abort ? abort.signal : undefined
    })
      .then(function (resp) {
        return resp.text().then(function (text) {
          var body = null;
          try {
            body = text ? JSON.parse(text) : null;
          } catch (e) {
            body = null;
          }
          return { status: resp.status, ok: resp.ok, body: body };
        });
      })
      .then(
        function (answer) {
          if (seq !== self.seq) {
            return;
          }
          self.abort = null;
          self.answer(number, answer);
        },
        function (e) {
          if (seq !== self.seq || (e && e.name === 'AbortError')) {
            return;
          }
          self.abort = null;
          self.fail('Tracking is not available right now. Check the connection and try again.');
        }
      );
  };

  Widget.prototype.answer = function (number, answer) {
    var status = answer.status;
    var body = answer.body;
    if (status === 400) {
      var err = body && Array.isArray(body.errors) && body.errors[0];
      this.fail(str(err && (err.detail || err.title)) || 'That number could not be searched.');
      return;
    }
    if (status === 401 || status === 403) {
      this.fail('This tracking widget is not set up correctly.');
      return;
    }
    if (status === 429) {
      this.fail('Too many searches, try again in a minute.');
      return;
    }
    if (!answer.ok || !body || !Array.isArray(body.data)) {
      this.fail('Tracking is not available right now. Try again later.');
      return;
    }
    if (!body.data.length) {
      this.show(el('p', 'btw__message btw__message--empty', 'Nothing found for ' + number + '.'));
      this.setState('empty', 0);
      return;
    }
    var list = el('div', 'btw__list');
    var shown = 0;
    var self = this;
    body.data.forEach(function (entry) {
      if (!entry) {
        return;
      }
      var section = self.shipment(entry, body.data.length);
      shown += section.containers;
      list.appendChild(section.node);
    });
    var summary = el(
      'p',
      'btw__summary',
      shown === 1 ? '1 container found for ' + number + '.' : shown + ' containers found for ' + number + '.'
    );
    var wrap = el('div');
    wrap.appendChild(summary);
    wrap.appendChild(list);
    this.show(wrap);
    this.setState('ready', shown);
  };

  function fact(dl, term, value) {
    if (value === null || value === undefined || value === '') {
      return;
    }
    var row = el('div', 'btw__fact');
    row.appendChild(el('dt', 'btw__term', term));
    var dd = el('dd', 'btw__value');
    if (typeof value === 'string') {
      dd.textContent = value;
    } else {
      dd.appendChild(value);
    }
    row.appendChild(dd);
    dl.appendChild(row);
  }

  Widget.prototype.shipment = function (entry, shipments) {
    var sh = entry.shipment || {};
    var containers = Array.isArray(entry.containers) ? entry.containers : [];
    var section = el('section', 'btw__shipment');
    var heading = el('h' + this.headingLevel, 'btw__title');
    heading.textContent = sh.bill_of_lading_number
      ? 'Bill of lading ' + sh.bill_of_lading_number
      : 'Shipment';
    heading.id = this.results.id + '-shipment-' + ++counter;
    section.setAttribute('aria-labelledby', heading.id);
    section.appendChild(heading);

    var pod = sh.port_of_discharge || {};
    var dl = el('dl', 'btw__facts');
    var carrier = str(sh.shipping_line_name);
    if (sh.shipping_line_scac) {
      carrier = carrier ? carrier + ' (' + sh.shipping_line_scac + ')' : str(sh.shipping_line_scac);
    }
    fact(dl, 'Carrier', carrier);
    var pol = portText(sh.port_of_lading);
    var podText = portText(pod);
    if (pol || podText) {
      fact(dl, 'Route', (pol || '?') + ' → ' + (podText || '?'));
    }
    if (sh.pod_ata_at) {
      fact(dl, 'Arrived', timeEl(sh.pod_ata_at, formatTime(sh.pod_ata_at, pod.time_zone)));
    } else if (sh.pod_eta_at) {
      fact(dl, 'Arrival (ETA)', timeEl(sh.pod_eta_at, formatTime(sh.pod_eta_at, pod.time_zone)));
    }
    if (Array.isArray(sh.ref_numbers) && sh.ref_numbers.length) {
      fact(dl, 'References', sh.ref_numbers.map(str).join(', '));
    }
    section.appendChild(dl);

    var ul = el('ul', 'btw__containers');
    var self = this;
    containers.forEach(function (c) {
      if (c) {
        ul.appendChild(self.container(c, pod, containers.length === 1 && shipments === 1));
      }
    });
    if (containers.length) {
      section.appendChild(ul);
    } else {
      section.appendChild(el('p', 'btw__message', 'No containers on this bill of lading yet.'));
    }
    return { node: section, containers: ul.childNodes.length };
  };

  Widget.prototype.container = function (c, pod, open) {
    var li = el('li', 'btw__container');
    var head = el('div', 'btw__container-head');
    head.appendChild(el('span', 'btw__number', str(c.number) || 'Container'));
    var status = el('span', 'btw__status', str(c.status_label || c.status) || 'Unknown');
    var modifier = str(c.status).toLowerCase().replace(/[^a-z0-9_-]/g, '');
    if (modifier) {
      status.classList.add('btw__status--' + modifier);
    }
    head.appendChild(status);
    li.appendChild(head);

    var dl = el('dl', 'btw__facts');
    if (c.pickup_lfd) {
      fact(dl, 'Last free day', timeEl(c.pickup_lfd, formatDate(c.pickup_lfd, pod.time_zone)));
    }
    if (c.ready_for_pickup !== undefined && c.ready_for_pickup !== null) {
      var ready = el('span', c.ready_for_pickup ? 'btw__ready btw__ready--yes' : 'btw__ready btw__ready--no', c.ready_for_pickup ? 'Yes' : 'No');
      fact(dl, 'Ready for pickup', ready);
    }
    var holds = Array.isArray(c.holds) ? c.holds.filter(Boolean) : [];
    if (holds.length) {
      var hl = el('ul', 'btw__holds');
      holds.forEach(function (h) {
        var item = el('li', 'btw__hold');
        var st = str(h.status).toLowerCase();
        if (st === 'hold') {
          item.classList.add('btw__hold--on');
        }
        item.textContent = str(h.name) + (st ? ': ' + st : '');
        hl.appendChild(item);
      });
      fact(dl, 'Holds', hl);
    } else if (Array.isArray(c.holds)) {
      fact(dl, 'Holds', 'None');
    }
    li.appendChild(dl);

    var milestones = Array.isArray(c.milestones) ? c.milestones.filter(Boolean).slice() : [];
    if (milestones.length) {
      // oldest first, most recent last; those without a time keep their place at the end
      milestones = milestones
        .map(function (m, i) {
          var t = new Date(m.at).getTime();
          return { m: m, i: i, t: isNaN(t) ? Infinity : t };
        })
        .sort(function (a, b) {
          return a.t - b.t || a.i - b.i;
        })
        .map(function (x) {
          return x.m;
        });
      var details = el('details', 'btw__milestones');
      details.open = !!open;
      details.appendChild(el('summary', 'btw__milestones-summary', 'Milestones (' + milestones.length + ')'));
      var ol = el('ol', 'btw__milestone-list');
      milestones.forEach(function (m) {
        var item = el('li', 'btw__milestone');
        if (m.estimated) {
          item.classList.add('btw__milestone--estimated');
        }
        var when = el('span', 'btw__milestone-time');
        if (m.at) {
          when.appendChild(timeEl(m.at, formatTime(m.at, m.time_zone)));
        }
        if (m.estimated) {
          when.appendChild(el('span', 'btw__milestone-flag', 'estimated'));
        }
        item.appendChild(when);
        item.appendChild(el('span', 'btw__milestone-label', str(m.label || m.event)));
        var place = str(m.location);
        if (m.locode) {
          place = place ? place + ' (' + m.locode + ')' : str(m.locode);
        }
        if (place) {
          item.appendChild(el('span', 'btw__milestone-place', place));
        }
        ol.appendChild(item);
      });
      details.appendChild(ol);
      li.appendChild(details);
    }
    return li;
  };

  // ---- Mounting.
  function mount(target, options) {
    var root = typeof target === 'string' ? document.querySelector(target) : target;
    if (!root || root.nodeType !== 1) {
      throw new Error('BoxtrackWidget: no element found for ' + String(target));
    }
    if (root.__boxtrackWidget) {
      return root.__boxtrackWidget;
    }
    var widget = new Widget(root, options);
    root.__boxtrackWidget = widget;
    return widget;
  }

  function scan() {
    var found = document.querySelectorAll(SELECTOR);
    for (var i = 0; i < found.length; i++) {
      if (!found[i].__boxtrackWidget) {
        mount(found[i]);
      }
    }
  }

  window.BoxtrackWidget = {
    /** Mounts the widget on one element (or selector); options: token, number, baseUrl. */
    mount: mount,
    /** Mounts it on every #terminal49-tnt-widget and .boxtrack-widget not mounted yet. */
    scan: scan
  };

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', scan);
  } else {
    scan();
  }
})();
