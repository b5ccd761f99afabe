#!/usr/bin/env bash
# Runs schemathesis (PyPI) against a real `boxtrack serve` and its served /v2/openapi.json,
# with a key whose rate limits are lifted and every entitlement, on a fresh SQLite database
# holding one sandbox shipment. Every phase: examples, coverage, fuzzing, stateful (the
# document's `links`). Exits non-zero on any failure schemathesis reports.
#
# Usage: scripts/schemathesis-check.sh [path/to/boxtrack]   (default: target/debug/boxtrack)
# Phases: ST_PHASES (default examples,coverage,fuzzing,stateful).
# Budget: ST_MAX_EXAMPLES (default 10), ST_MAX_TIME seconds per run (default 300),
#         ST_SEED (default fixed, so a failure reproduces), ST_VENV (where schemathesis lives),
#         ST_REPORT (a JUnit file to write), DATABASE_URL (default: a fresh SQLite file).
# The long run of docs/hardening.md: ST_MAX_EXAMPLES=200 ST_MAX_TIME=7200 scripts/schemathesis-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-${CARGO_TARGET_DIR:-target}/debug/boxtrack}
BIN=$(realpath "$BIN")
ST_VERSION=4.32.5
ST_VENV=${ST_VENV:-$HOME/.cache/boxtrack-ci/schemathesis-$ST_VERSION}
if [ ! -x "$ST_VENV/bin/schemathesis" ]; then
  python3 -m venv "$ST_VENV"
  "$ST_VENV/bin/pip" install -q "schemathesis==$ST_VERSION"
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
db=${DATABASE_URL:-sqlite://$work/boxtrack.db}
key=$("$BIN" accounts create --name "schemathesis" --plan standard --database-url "$db" \
  --entitlements routing,rail_lfd,container_refresh,widget \
  --rate-limit default=1000000 --rate-limit tracking_requests.create=1000000 \
  --rate-limit tracking_requests.infer_number=1000000 --rate-limit containers.refresh=1000000 \
  --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
"$BIN" serve --database-url "$db" --listen "127.0.0.1:$port" --allow-private-webhook-urls \
  >"$work/serve.log" 2>&1 &
for _ in $(seq 1 300); do curl -sf "$base/readyz" >/dev/null && break; sleep 0.1; done
curl -sf -X POST "$base/v2/tracking_requests" -H "Authorization: Token $key" \
  -H 'Content-Type: application/vnd.api+json' \
  -d '{"data":{"type":"tracking_request","attributes":{"request_number":"TEST-TR-SUCCEEDED","request_type":"bill_of_lading","scac":"TEST"}}}' >/dev/null
for _ in $(seq 1 100); do
  n=$(curl -sf "$base/v2/containers" -H "Authorization: Token $key" | python3 -c 'import json,sys; print(json.load(sys.stdin)["meta"]["total"])')
  [ "$n" -ge 1 ] && break; sleep 0.1
done
args=(
  --config-file scripts/schemathesis/schemathesis.toml
  run "$base/v2/openapi.json" --url "$base"
  -H "Authorization: Token $key"
  --phases "${ST_PHASES:-examples,coverage,fuzzing,stateful}" --checks all
  --max-examples "${ST_MAX_EXAMPLES:-10}" --max-time "${ST_MAX_TIME:-300}"
  --seed "${ST_SEED:-152764219057998164650837121084852718272}" --workers 2
)
[ -n "${ST_REPORT:-}" ] && args+=(--report junit --report-junit-path "$ST_REPORT")
status=0
SCHEMATHESIS_HOOKS=hooks PYTHONPATH=scripts/schemathesis "$ST_VENV/bin/schemathesis" "${args[@]}" || status=$?
# a run that revoked or broke its own key tested nothing but 401s after that point
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/v2/account" -H "Authorization: Token $key")
if [ "$code" != 200 ]; then
  echo "the run's key no longer works (GET /v2/account answered $code): the run is void" >&2
  status=1
fi
[ -n "${ST_LOG:-}" ] && cp "$work/serve.log" "$ST_LOG"
exit $status
