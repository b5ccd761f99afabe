#!/usr/bin/env bash
# Runs schemathesis (PyPI) against a real `boxtrack serve` and its served /v2/openapi.json,
# with a key whose rate limits are lifted and every entitlement, on a fresh SQLite database
# holding one sandbox shipment, then again for the console's pages, signed in. Every phase: examples, coverage, fuzzing, stateful (the
# document's `links`). Exits non-zero on any failure schemathesis reports.
#
# Usage: scripts/schemathesis-check.sh [path/to/boxtrack]   (default: target/debug/boxtrack)
# Phases: ST_PHASES (default examples,coverage,fuzzing,stateful).
# Budget: ST_MAX_EXAMPLES (default 10), ST_MAX_TIME seconds for the API's pass (default 300;
#         the console's and the embeds' passes get a quarter of it each, at least 30),
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
made=$("$BIN" accounts create --name "schemathesis" --plan standard --database-url "$db" \
  --entitlements routing,rail_lfd,container_refresh,widget \
  --rate-limit default=1000000 --rate-limit tracking_requests.create=1000000 \
  --rate-limit tracking_requests.infer_number=1000000 --rate-limit containers.refresh=1000000 \
  --json)
key=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["api_key"])' "$made")
account=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["account_id"])' "$made")
# a console user, so that the console's pages are run signed in (security scheme ConsoleSession)
echo "schemathesis-console-pw" | "$BIN" users create --account "$account" \
  --email st@example.com --password-stdin --database-url "$db" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
# the DCSA push endpoint's subscription secret, so that the hooks sign its requests
export BTK_DCSA_SECRET=$(python3 -c 'import base64,os; print(base64.b64encode(os.urandom(32)).decode())')
BOXTRACK_DCSA_PUSH_SECRET=$BTK_DCSA_SECRET \
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
status=0
# One schemathesis run: a name (for its report), its time budget in seconds, its settings
# file, then its own arguments.
pass() {
  local name=$1 budget=$2 config=$3
  shift 3
  # the console's and the embeds' operations have no links between them: no stateful phase
  local phases=${ST_PHASES:-examples,coverage,fuzzing,stateful}
  if [ -n "$name" ]; then
    phases=$(printf '%s' "$phases" | tr ',' '\n' | grep -v '^stateful$' | paste -sd, -)
    [ -z "$phases" ] && return 0
  fi
  local a=(
    --config-file "$config"
    run "$base/v2/openapi.json" --url "$base" "$@"
    --phases "$phases"
    --max-examples "${ST_MAX_EXAMPLES:-10}" --max-time "$budget"
    --seed "${ST_SEED:-152764219057998164650837121084852718272}" --workers 2
  )
  [ -n "${ST_REPORT:-}" ] && a+=(--report junit --report-junit-path "${ST_REPORT%.xml}$name.xml")
  echo "== schemathesis: ${name:-the API}"
  local out="$work/run$name.log" rc=0
  SCHEMATHESIS_HOOKS=hooks PYTHONPATH=scripts/schemathesis "$ST_VENV/bin/schemathesis" "${a[@]}" 2>&1 | tee "$out" || rc=${PIPESTATUS[0]}
  # CPython's own ast bug (SystemError "AST constructor recursion depth mismatch", raised
  # inside Hypothesis while it describes a lambda) is a fault of the tool, not a finding about
  # boxtrack: that run is repeated once, with the same seed, and its second answer stands.
  if [ "$rc" != 0 ] && grep -q 'AST constructor recursion depth mismatch' "$out"; then
    echo "== schemathesis: ${name:-the API} hit CPython's ast recursion bug; run again once"
    rc=0
    SCHEMATHESIS_HOOKS=hooks PYTHONPATH=scripts/schemathesis "$ST_VENV/bin/schemathesis" "${a[@]}" || rc=$?
  fi
  [ "$rc" != 0 ] && status=$rc
  return 0
}

# 1. The API with the account's key (every check named: none is turned off), but the
# console's pages and the embeds, which take other credentials (passes 2 and 3).
budget=${ST_MAX_TIME:-300}
# the console's and the embeds' passes have a few dozen operations: a quarter of the budget
small=$(( budget / 4 > 30 ? budget / 4 : 30 ))
pass "" "$budget" scripts/schemathesis/schemathesis.toml -H "Authorization: Token $key" --checks all \
  --exclude-path-regex '^/(console|embed/)'

# 2. The console's pages, signed in: a session from the sign-in form (its CSRF cookie and
# field), given as the document's ConsoleSession scheme (console.toml). Their forms want the
# session's CSRF token, which no generated body holds: they answer 403 and change nothing.
# Every check runs by default; none is named, so that console.toml can turn one off.
jar="$work/cookies"
form=$(curl -sf -c "$jar" "$base/console/sign-in")
csrf=$(printf '%s' "$form" | python3 -c 'import re,sys; print(re.search(r"name=\"csrf\" value=\"([^\"]+)\"", sys.stdin.read()).group(1))')
curl -sf -b "$jar" -c "$jar" -o /dev/null "$base/console/sign-in" \
  --data-urlencode "csrf=$csrf" --data-urlencode "email=st@example.com" \
  --data-urlencode "password=schemathesis-console-pw"
export BTK_CONSOLE_SESSION=$(awk '$6 == "btk_console" {print $7}' "$jar")
if [ -z "$BTK_CONSOLE_SESSION" ]; then
  echo "could not sign in to the console: its pages were not run" >&2
  status=1
else
  pass -console "$small" scripts/schemathesis/console.toml \
    --include-path-regex '^/console' --exclude-path-regex '^/console/sign-(in|out)$'
  code=$(curl -s -o /dev/null -w '%{http_code}' "$base/console" -H "Cookie: btk_console=$BTK_CONSOLE_SESSION")
  if [ "$code" != 200 ]; then
    echo "the console run's session no longer works (GET /console answered $code): that run is void" >&2
    status=1
  fi
fi

# 3. The embeds, with a publishable key of the account (made through the API, usable from
# any origin), given as the document's Publishable scheme (embed.toml).
export BTK_PUBLISHABLE_KEY=$(curl -sf -X POST "$base/v2/publishable_keys" -H "Authorization: Token $key" \
  -H 'Content-Type: application/vnd.api+json' \
  -d '{"data":{"type":"publishable_key","attributes":{"name":"schemathesis"}}}' |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["attributes"]["key"])')
if [ -z "$BTK_PUBLISHABLE_KEY" ]; then
  echo "could not make a publishable key: the embeds were not run" >&2
  status=1
else
  pass -embed "$small" scripts/schemathesis/embed.toml --include-path-regex '^/embed/'
fi

# a run that revoked or broke its own key tested nothing but 401s after that point
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/v2/account" -H "Authorization: Token $key")
if [ "$code" != 200 ]; then
  echo "the run's key no longer works (GET /v2/account answered $code): the run is void" >&2
  status=1
fi
[ -n "${ST_LOG:-}" ] && cp "$work/serve.log" "$ST_LOG"
exit $status
