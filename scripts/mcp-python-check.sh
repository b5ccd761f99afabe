#!/usr/bin/env bash
# Runs the official Python MCP client (PyPI `mcp`) against a real `boxtrack serve` with an
# API key: a fresh SQLite database, one sandbox shipment, then scripts/mcp_client_check.py.
# Usage: scripts/mcp-python-check.sh [path/to/boxtrack]   (default: target/debug/boxtrack)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-${CARGO_TARGET_DIR:-target}/debug/boxtrack}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
python3 -m venv "$work/venv" >/dev/null
"$work/venv/bin/pip" install -q 'mcp==2.3.0'
db="sqlite://$work/boxtrack.db"
key=$("$BIN" accounts create --name "MCP check" --database-url "$db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
BOXTRACK_LISTEN="127.0.0.1:$port" "$BIN" serve --database-url "$db" >"$work/serve.log" 2>&1 &
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
curl -sf -X POST "http://127.0.0.1:$port/v2/tracking_requests" -H "Authorization: Token $key" \
  -H 'Content-Type: application/vnd.api+json' \
  -d '{"data":{"type":"tracking_request","attributes":{"request_number":"TEST-TR-SUCCEEDED","request_type":"bill_of_lading","scac":"TEST"}}}' >/dev/null
for _ in $(seq 1 100); do
  n=$(curl -sf "http://127.0.0.1:$port/v2/containers" -H "Authorization: Token $key" | python3 -c 'import json,sys; print(json.load(sys.stdin)["meta"]["total"])')
  [ "$n" -ge 1 ] && break; sleep 0.1
done
MCP_URL="http://127.0.0.1:$port/mcp" MCP_API_KEY="$key" "$work/venv/bin/python" scripts/mcp_client_check.py
