# What the real-browser checks share (sourced by scripts/browser-*-check.sh): Debian's
# Chromium, playwright-core and axe-core from npm in a scratch folder, and a `boxtrack serve` on a fresh
# SQLite file with an account and a user who signs in.
# After `browser_setup BIN CHECK.mjs "Account name"`: $CHROMIUM, $work (holding check.mjs),
# $artifacts, $base, $email, $password, $account_id and $database_url are set; the server stops
# when the script exits.
browser_setup() {
  local bin=$1 check=$2 name=$3
  CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
  if [ -z "$CHROMIUM" ]; then
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
    CHROMIUM=$(command -v chromium)
  fi
  artifacts="${CARGO_TARGET_DIR:-target}/artifacts"
  mkdir -p "$artifacts"
  work=$(mktemp -d)
  trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
  (cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund playwright-core@1 axe-core@4 >/dev/null)
  cp "$check" "$work/check.mjs"
  local db="sqlite://$work/boxtrack.db" account port
  account=$("$bin" accounts create --name "$name" --database-url "$db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["account_id"])')
  account_id=$account
  database_url=$db
  email=browser@example.com
  password="browser-check-$(date +%s)-password"
  echo "$password" | "$bin" users create --account "$account" --email "$email" --password-stdin --database-url "$db" >/dev/null
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  # local receivers stand in for customers' webhook endpoints
  BOXTRACK_ALLOW_PRIVATE_WEBHOOK_URLS=true BOXTRACK_LISTEN="127.0.0.1:$port" "$bin" serve --database-url "$db" >"$work/serve.log" 2>&1 &
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
  base="http://127.0.0.1:$port"
}
