#!/usr/bin/env bash
# Real-browser test of the web console (sign-in, keys created, used, revoked, the API
# reference, the look of the main pages at desktop and phone widths in light and dark, checked
# by axe-core, sign-out): Debian's Chromium (package `chromium`) driven by playwright-core from
# npm, against a real `boxtrack serve` whose sandbox journeys run at sixteen simulated hours a
# second. Screenshots of the pages are kept in target/artifacts/console-*.png and look-*.png.
# Usage: scripts/browser-console-check.sh [path/to/boxtrack]   (default: target/debug/boxtrack)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/browser-lib.sh
# sandbox journeys well under way by the time the pages are photographed
export BOXTRACK_SANDBOX_SPEED=57600
browser_setup "${1:-${CARGO_TARGET_DIR:-target}/debug/boxtrack}" scripts/browser-console-check.mjs "Console check"
BASE_URL="$base" USER_EMAIL="$email" USER_PASSWORD="$password" \
  SCREENSHOTS="$(pwd)/$artifacts" CHROMIUM="$CHROMIUM" node "$work/check.mjs"
