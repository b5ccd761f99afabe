#!/usr/bin/env bash
# Runs the MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, server scenarios of
# spec 2025-06-18) against `boxtrack serve` in its loopback-only test mode (the suite cannot
# send credentials). Scenarios that need the suite's own fixtures are listed, with the reason,
# in tests/mcp-conformance-baseline.yml; any other failure fails the run, and so does a
# baselined scenario that starts passing. Results land in target/conformance.
# Usage: scripts/mcp-conformance.sh [path/to/boxtrack]   (default: target/debug/boxtrack)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-${CARGO_TARGET_DIR:-target}/debug/boxtrack}
out="${CARGO_TARGET_DIR:-target}/conformance"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
db="sqlite://$work/boxtrack.db"
account=$("$BIN" accounts create --name "Conformance" --database-url "$db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["account_id"])')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" serve --listen "127.0.0.1:$port" --database-url "$db" --mcp-open-account "$account" >"$work/serve.log" 2>&1 &
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
npx -y -p node@22 -p @modelcontextprotocol/conformance@0.1.16 conformance server \
  --url "http://127.0.0.1:$port/mcp" --spec-version 2025-06-18 \
  --expected-failures tests/mcp-conformance-baseline.yml -o "$out"
# DNS rebinding (tagged 2025-11-25 in the suite; the Origin check is a 2025-06-18 MUST)
npx -y -p node@22 -p @modelcontextprotocol/conformance@0.1.16 conformance server \
  --url "http://localhost:$port/mcp" --scenario dns-rebinding-protection -o "$out"
