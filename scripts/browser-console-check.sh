#!/usr/bin/env bash
# Real-browser test of the web console (sign-in, keys created, used, revoked, sign-out):
# Debian's Chromium (package `chromium`) driven by playwright-core from npm, against a real
# `boxtrack serve`.
# Screenshots of the pages are kept in target/artifacts/console-*.png.
# Usage: scripts/browser-console-check.sh [path/to/boxtrack]   (default: target/debug/boxtrack)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-${CARGO_TARGET_DIR:-target}/debug/boxtrack}
CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
if [ -z "$CHROMIUM" ]; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  CHROMIUM=$(command -v chromium)
fi
artifacts="${CARGO_TARGET_DIR:-target}/artifacts"
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
(cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund playwright-core@1 >/dev/null)
cp scripts/browser-console-check.mjs "$work/check.mjs"
db="sqlite://$work/boxtrack.db"
account=$("$BIN" accounts create --name "Console check" --database-url "$db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["account_id"])')
password="browser-check-$(date +%s)-password"
echo "$password" | "$BIN" users create --account "$account" --email browser@example.com --password-stdin --database-url "$db" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
BOXTRACK_LISTEN="127.0.0.1:$port" "$BIN" serve --database-url "$db" >"$work/serve.log" 2>&1 &
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
BASE_URL="http://127.0.0.1:$port" USER_EMAIL=browser@example.com USER_PASSWORD="$password" \
  SCREENSHOTS="$(pwd)/$artifacts" CHROMIUM="$CHROMIUM" node "$work/check.mjs"
