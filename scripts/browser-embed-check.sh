#!/usr/bin/env bash
# Real-browser test of the embeddable map and tracking widget: a signed-in user makes a
# publishable key limited to one origin in the portal and tracks a sandbox number; a plain
# HTML page served from that other origin embeds the map (TntMap, start, load) and the widget
# (data-token, data-number) and both draw; from an origin the key does not list, both are
# refused; the console's container page draws the same map. Debian's Chromium driven by
# playwright-core, against a real `boxtrack serve`. Screenshots in target/artifacts/embed-*.png.
# Usage: scripts/browser-embed-check.sh [path/to/boxtrack]   (default: target/debug/boxtrack)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/browser-lib.sh
bin="${1:-${CARGO_TARGET_DIR:-target}/debug/boxtrack}"
browser_setup "$bin" scripts/browser-embed-check.mjs "Embed check"
"$bin" accounts update "$account_id" --entitlements widget,routing --database-url "$database_url" >/dev/null
BASE_URL="$base" USER_EMAIL="$email" USER_PASSWORD="$password" \
  SCREENSHOTS="$(pwd)/$artifacts" CHROMIUM="$CHROMIUM" node "$work/check.mjs"
