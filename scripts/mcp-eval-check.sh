#!/usr/bin/env bash
# Runs the reference service's own MCP eval suite (Terminal49/API packages/mcp/eval, which
# needs no language model) unchanged against a real `boxtrack serve`: a fresh SQLite database,
# a standard account tracking ten sandbox numbers played to the end, then vitest.
#
# The suite is not part of this repository (its repository carries no licence): point
# MCP_EVAL_DIR at a directory holding its eval/ files, a vitest.eval.config.ts and vitest
# installed (docs/mcp.md, "The reference's eval suite", says how to make one).
# Usage: MCP_EVAL_DIR=~/.cache/mcp-eval scripts/mcp-eval-check.sh [path/to/boxtrack]
#        MCP_EVAL_ENABLE_WRITE=1 adds the track_container case.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-${CARGO_TARGET_DIR:-target}/debug/boxtrack}
EVAL=${MCP_EVAL_DIR:?set MCP_EVAL_DIR to the eval suite directory (see docs/mcp.md)}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
db="sqlite://$work/boxtrack.db"
key=$("$BIN" accounts create --name "MCP eval" --plan standard --database-url "$db" --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
BOXTRACK_LISTEN="127.0.0.1:$port" BOXTRACK_SANDBOX_SPEED=10000000 \
  "$BIN" serve --database-url "$db" >"$work/serve.log" 2>&1 &
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
numbers="TEST-TR-SUCCEEDED TEST-SCN-IMPORT TEST-SCN-TRANSSHIPMENT TEST-SCN-HOLDS TEST-SCN-RAIL
  TEST-SCN-ROLLOVER TEST-SCN-FEEDER TEST-SCN-TERMINAL-CHANGE TEST-SCN-REUSE TEST-TR-FAILED"
for n in $numbers; do
  curl -s -o /dev/null -X POST "http://127.0.0.1:$port/v2/tracking_requests" \
    -H "Authorization: Token $key" -H 'Content-Type: application/vnd.api+json' \
    -d "{\"data\":{\"type\":\"tracking_request\",\"attributes\":{\"request_number\":\"$n\",\"request_type\":\"bill_of_lading\",\"scac\":\"TEST\"}}}"
done
# played to the end: every journey's containers are there and no tracking request is pending
for _ in $(seq 1 300); do
  pending=$(curl -gsf "http://127.0.0.1:$port/v2/tracking_requests?filter[status]=pending" \
    -H "Authorization: Token $key" | python3 -c 'import json,sys; print(json.load(sys.stdin)["meta"]["total"])')
  [ "$pending" = 0 ] && break; sleep 0.2
done
sleep 2
cd "$EVAL"
MCP_EVAL_ENDPOINT="http://127.0.0.1:$port/mcp" MCP_EVAL_TOKEN="$key" \
  npx vitest run --config vitest.eval.config.ts
