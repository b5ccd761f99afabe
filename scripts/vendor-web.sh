#!/usr/bin/env bash
# Refreshes the browser libraries the web console embeds (crates/web/assets/vendor) from npm,
# with their licences. Nothing is fetched at run time: the files are compiled into the binary.
# Usage: scripts/vendor-web.sh            (versions pinned below; change them here)
# Vendors: Redoc (the API reference page), Leaflet (the embeddable map, /embed/map.js and
# /embed/map.css) and world-atlas's 1:110m land (the map's offline base map, Natural Earth data).
set -euo pipefail
cd "$(dirname "$0")/.."
REDOC_VERSION=2.5.4
LEAFLET_VERSION=1.9.4
WORLD_ATLAS_VERSION=2.0.2
TOPOJSON_CLIENT_VERSION=3.1.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "redoc@$REDOC_VERSION" >/dev/null && tar xzf redoc-*.tgz)
dest=crates/web/assets/vendor/redoc
mkdir -p "$dest"
cp "$work/package/bundles/redoc.standalone.js" "$dest/"
# the one thing the bundle loads from elsewhere is its side menu's logo: point it at an empty
# inline image instead, so the page asks nothing of the network (and its policy refuses nothing)
sed -i "s|https://cdn.redoc.ly/redoc/logo-mini.svg|data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E|" "$dest/redoc.standalone.js"
if grep -q 'https://cdn' "$dest/redoc.standalone.js"; then
  echo "the Redoc bundle still loads something from a CDN; look before vendoring it" >&2
  exit 1
fi
cp "$work/package/bundles/redoc.standalone.js.LICENSE.txt" "$dest/THIRD-PARTY-LICENSES.txt"
cp "$work/package/LICENSE" "$dest/LICENSE"
echo "redoc $REDOC_VERSION (https://www.npmjs.com/package/redoc, MIT; the side menu's logo URL replaced by an empty inline image)" > "$dest/VERSION"
ls -la "$dest"

# ---- Leaflet: the embeddable map's library (served as /embed/map.js and /embed/map.css, each
# the vendored file followed by crates/web/assets/embed/map.{js,css}).
(cd "$work" && mkdir leaflet && cd leaflet && npm pack --silent "leaflet@$LEAFLET_VERSION" >/dev/null && tar xzf leaflet-*.tgz)
dest=crates/web/assets/vendor/leaflet
mkdir -p "$dest"
# the source map is not shipped: drop its comment so a browser's developer tools ask for nothing
sed '/^\/\/# sourceMappingURL=/d' "$work/leaflet/package/dist/leaflet.js" > "$dest/leaflet.js"
# Our map draws divIcons only (no default marker image, no layers control), and the images are
# not shipped: strip the rules' url()s (relative to the stylesheet, they would 404 under
# /embed/) and the old IE-only VML behaviour, so the stylesheet points at nothing.
sed -e '/background-image: url(images\//d' -e '/behavior: url(#default#VML);/d' \
  "$work/leaflet/package/dist/leaflet.css" > "$dest/leaflet.css"
if grep -n 'url(' "$dest/leaflet.css"; then
  echo "leaflet.css still refers to a file (above); look before vendoring it" >&2
  exit 1
fi
# What is left that looks like an address is not fetched: the SVG namespace, the attribution's
# link to leafletjs.com (an <a>, shown only if the attribution prefix is kept) and two bug
# trackers named in CSS comments. Anything else would need a look.
if grep -o 'https\?://[^"'"'"' )]*' "$dest/leaflet.js" "$dest/leaflet.css" \
  | grep -v -e '://www.w3.org/2000/svg$' -e '://leafletjs.com$' \
    -e '://bugs.chromium.org/p/chromium/issues/detail?id=600120$' \
    -e '://bugzilla.mozilla.org/show_bug.cgi?id=888319$'; then
  echo "Leaflet names an address not seen before (above); look before vendoring it" >&2
  exit 1
fi
cp "$work/leaflet/package/LICENSE" "$dest/LICENSE"
echo "leaflet $LEAFLET_VERSION (https://www.npmjs.com/package/leaflet, BSD-2-Clause; dist/leaflet.js without its source-map comment, dist/leaflet.css without its image url()s: the embed uses divIcons only)" > "$dest/VERSION"
ls -la "$dest"

# ---- world-atlas: Natural Earth's 1:110m land as the map's base map, converted here from
# TopoJSON to GeoJSON (topojson-client, run once now, never shipped) with coordinates rounded to
# 3 decimals, so the browser only draws it.
(cd "$work" && mkdir atlas && cd atlas \
  && npm pack --silent "world-atlas@$WORLD_ATLAS_VERSION" "topojson-client@$TOPOJSON_CLIENT_VERSION" >/dev/null \
  && mkdir world-atlas topojson-client \
  && tar xzf world-atlas-*.tgz -C world-atlas && tar xzf topojson-client-*.tgz -C topojson-client)
dest=crates/web/assets/vendor/world-atlas
mkdir -p "$dest"
node - "$work/atlas/topojson-client/package/dist/topojson-client.js" \
  "$work/atlas/world-atlas/package/land-110m.json" "$dest/land-110m.geojson" <<'JS'
const fs = require('fs');
const [client, input, output] = process.argv.slice(2);
const topojson = require(client);
const topology = JSON.parse(fs.readFileSync(input, 'utf8'));
const land = topojson.feature(topology, topology.objects.land);
const round = (v) => Math.round(v * 1000) / 1000;
// round a ring, drop points that rounding made equal to the one before, keep it closed
function ring(points) {
  const out = [];
  for (const [x, y] of points) {
    const p = [round(x), round(y)];
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  const first = out[0];
  const last = out[out.length - 1];
  if (out.length && (first[0] !== last[0] || first[1] !== last[1])) out.push(first.slice());
  return out.length >= 4 ? out : null;
}
// world-atlas's rings are for spherical geometry: one that crosses the antimeridian jumps from
// 180 to -180 and back, which a flat map draws as a band across the world. Make each ring
// continuous (longitudes may pass +-180; the map draws the land once more at +-360 degrees) and
// move the polygon to where most of it lies. A ring around the pole (Antarctica) cannot be made
// continuous and closed, and is kept as it is.
function unwrap(r) {
  const out = [r[0].slice()];
  for (let i = 1; i < r.length; i++) {
    let x = r[i][0];
    const prev = out[i - 1][0];
    while (x - prev > 180) x -= 360;
    while (x - prev < -180) x += 360;
    out.push([Math.round(x * 1000) / 1000, r[i][1]]);
  }
  return out;
}
function middle(r) {
  let lo = Infinity, hi = -Infinity;
  for (const [x] of r) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
  return (lo + hi) / 2;
}
function shift(r, by) {
  return by ? r.map(([x, y]) => [Math.round((x + by) * 1000) / 1000, y]) : r;
}
function polygon(rings) {
  let out = rings.map(ring).filter(Boolean);
  if (!out.length) return null;
  out = out.map((r) => {
    const u = unwrap(r);
    return u[0][0] === u[u.length - 1][0] ? u : r;
  });
  const by = -360 * Math.round(middle(out[0]) / 360);
  const centre = middle(out[0]) + by;
  return out.map((r, i) => (i === 0 ? shift(r, by) : shift(r, -360 * Math.round((middle(r) - centre) / 360))));
}
function geometry(g) {
  if (g.type === 'Polygon') {
    const p = polygon(g.coordinates);
    return p && { type: 'Polygon', coordinates: p };
  }
  if (g.type === 'MultiPolygon') {
    const ps = g.coordinates.map(polygon).filter(Boolean);
    return ps.length ? { type: 'MultiPolygon', coordinates: ps } : null;
  }
  throw new Error('unexpected geometry ' + g.type);
}
const features = (land.type === 'FeatureCollection' ? land.features : [land])
  .map((f) => ({ type: 'Feature', properties: {}, geometry: f.geometry && geometry(f.geometry) }))
  .filter((f) => f.geometry);
fs.writeFileSync(output, JSON.stringify({ type: 'FeatureCollection', features }) + '\n');
JS
cp "$work/atlas/world-atlas/package/LICENSE" "$dest/LICENSE"
echo "world-atlas $WORLD_ATLAS_VERSION (https://www.npmjs.com/package/world-atlas, ISC) land-110m.json: Natural Earth 1:110m land (public domain, https://www.naturalearthdata.com), converted to GeoJSON by topojson-client $TOPOJSON_CLIENT_VERSION (ISC) with coordinates rounded to 3 decimals and the rings that cross the antimeridian made continuous (longitudes past +-180)" > "$dest/VERSION"
ls -la "$dest"
