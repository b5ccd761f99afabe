#!/usr/bin/env bash
# Real-browser test of the OAuth sign-in for MCP clients: Debian's Chromium (package
# `chromium`) driven by playwright-core from npm, against a real `boxtrack serve`.
# The screenshot of the sign-in page is kept in target/artifacts/oauth-signin.png.
# Usage: scripts/browser-oauth-check.sh [path/to/boxtrack]   (default: target/debug/boxtrack)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/browser-lib.sh
browser_setup "${1:-${CARGO_TARGET_DIR:-target}/debug/boxtrack}" scripts/browser-oauth-check.mjs "Browser check"
BASE_URL="$base" USER_EMAIL="$email" USER_PASSWORD="$password" \
  SCREENSHOT="$(pwd)/$artifacts/oauth-signin.png" CHROMIUM="$CHROMIUM" node "$work/check.mjs"
