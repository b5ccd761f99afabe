#!/usr/bin/env bash
# Refreshes the browser libraries the web console embeds (crates/web/assets/vendor) from npm,
# with their licences. Nothing is fetched at run time: the files are compiled into the binary.
# Usage: scripts/vendor-web.sh            (versions pinned below; change them here)
set -euo pipefail
cd "$(dirname "$0")/.."
REDOC_VERSION=2.5.4
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
