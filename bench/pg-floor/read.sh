#!/usr/bin/env bash
# What PostgreSQL itself serves of the statement behind a rendered `GET
# /v2/containers/{id}?include=shipment` (`--read-cache-mib 0`), with no boxtrack process in the
# way: pgbench with the client placement of `bench-read` (`taskset -c 0`, 32 connections,
# prepared statements with parameters, as sqlx sends them), against a database `bench-seed`
# filled, each statement for SECONDS, RUNS times:
#
#   select1     `SELECT 1`: a round trip and nothing else
#   keys        the container's and its shipment's key columns (no JSON)
#   shown       the statement `boxtrack_store::reads::container_and_shipment` sends on
#               PostgreSQL (`PG_RENDERED`: the container's and its shipment's columns beside
#               their states, their rendered texts, the customer, the shipment's container refs)
#   whole       the statement it sends where a rendered text is not current (`PG_WHOLE`: the
#               same with the states and the route)
#
# Each figure is a ceiling for the HTTP read on the same machine, printed with what PostgreSQL
# spent on a statement; divide by the bare-axum floor
# `bench-read` prints to see the share of the floor PostgreSQL leaves room for.
#
#   bench/pg-floor/read.sh postgres://root@127.0.0.1:5432/benchdb [SECONDS] [RUNS]   (default 5, 2)
set -euo pipefail
URL=${1:?usage: read.sh POSTGRES_URL_OF_A_SEEDED_DATABASE [SECONDS] [RUNS]}
SECONDS_EACH=${2:-5}
RUNS=${3:-2}
PGBENCH=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench | tail -1)
# a container of the account with the most (the first by id may be a lone one, whose plans differ)
read -r CID AID < <(psql -Atq -F ' ' "$URL" -c 'SELECT id, account_id FROM containers WHERE account_id = (SELECT account_id FROM containers GROUP BY account_id ORDER BY count(*) DESC LIMIT 1) ORDER BY id LIMIT 1')
if [ -z "${CID:-}" ]; then
  echo "no containers in $URL: seed it first (bench-seed)" >&2
  exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo 'SELECT 1;' >"$dir/select1.sql"
echo 'SELECT c.id, c.shipment_id, c.number, s.scac FROM containers c LEFT JOIN shipments s ON s.id = c.shipment_id AND s.account_id = c.account_id WHERE c.id = :cid AND c.account_id = :aid;' >"$dir/keys.sql"
# the same texts as `PG_RENDERED` and `PG_WHOLE` (crates/store/src/reads/mod.rs), $3 = true
cat >"$dir/shown.sql" <<'SQL'
SELECT c.id, c.account_id, c.shipment_id, c.number, c.ref_numbers, c.created_us, c.updated_us, c.pod_terminal, cv.view AS rendered, s.id AS s_id, s.account_id AS s_account_id, s.tracking_request_id AS s_tracking_request_id, s.bill_of_lading_number AS s_bill_of_lading_number, s.scac AS s_scac, s.ref_numbers AS s_ref_numbers, s.tags AS s_tags, s.tracking_stopped_us AS s_tracking_stopped_us, s.stopped_reason AS s_stopped_reason, s.created_us AS s_created_us, s.updated_us AS s_updated_us, sv.view AS s_view, p.company_name AS s_customer_name, t.customer_id AS s_customer_id, sib.ids AS sibling_ids, sib.terminals AS sibling_terminals FROM containers c LEFT JOIN container_views cv ON cv.container_id = c.id AND cv.account_id = c.account_id LEFT JOIN shipments s ON s.id = c.shipment_id AND s.account_id = c.account_id LEFT JOIN shipment_views sv ON sv.shipment_id = s.id AND sv.account_id = s.account_id LEFT JOIN tracking_requests t ON t.id = s.tracking_request_id LEFT JOIN parties p ON p.id = t.customer_id LEFT JOIN LATERAL (SELECT array_agg(r.id ORDER BY r.created_us, r.id) AS ids, array_agg(r.pod_terminal ORDER BY r.created_us, r.id) AS terminals FROM containers r WHERE r.shipment_id = c.shipment_id AND r.account_id = c.account_id) sib ON :siblings::bool WHERE c.id = :cid AND c.account_id = :aid;
SQL
cat >"$dir/whole.sql" <<'SQL'
SELECT c.id, c.account_id, c.shipment_id, c.number, c.ref_numbers, c.state, c.current_status, c.ready_for_pickup, c.pickup_lfd_us, c.active, c.created_us, c.updated_us, cv.view AS rendered, c.pod_terminal, s.id AS s_id, s.account_id AS s_account_id, s.tracking_request_id AS s_tracking_request_id, s.bill_of_lading_number AS s_bill_of_lading_number, s.scac AS s_scac, s.ref_numbers AS s_ref_numbers, s.tags AS s_tags, s.route AS s_route, s.state AS s_state, s.tracking_stopped_us AS s_tracking_stopped_us, s.stopped_reason AS s_stopped_reason, s.created_us AS s_created_us, s.updated_us AS s_updated_us, sv.view AS s_view, p.company_name AS s_customer_name, t.customer_id AS s_customer_id, sib.ids AS sibling_ids, sib.terminals AS sibling_terminals FROM containers c LEFT JOIN container_views cv ON cv.container_id = c.id AND cv.account_id = c.account_id LEFT JOIN shipments s ON s.id = c.shipment_id AND s.account_id = c.account_id LEFT JOIN shipment_views sv ON sv.shipment_id = s.id AND sv.account_id = s.account_id LEFT JOIN tracking_requests t ON t.id = s.tracking_request_id LEFT JOIN parties p ON p.id = t.customer_id LEFT JOIN LATERAL (SELECT array_agg(r.id ORDER BY r.created_us, r.id) AS ids, array_agg(r.pod_terminal ORDER BY r.created_us, r.id) AS terminals FROM containers r WHERE r.shipment_id = c.shipment_id AND r.account_id = c.account_id) sib ON :siblings::bool WHERE c.id = :cid AND c.account_id = :aid;
SQL
# PostgreSQL's CPU (readable when PostgreSQL runs on this machine and this user may read its
# /proc entries): what the postmaster collected of its exited processes, plus what its live
# processes have used so far. Reading only the first missed the backends that had not exited
# yet when pgbench returned, and counted them in the next statement's figure instead.
PM=$(head -1 "$(psql -Atq "$URL" -c 'SHOW data_directory')/postmaster.pid" 2>/dev/null || true)
TICK=$(getconf CLK_TCK)
pg_cpu() {
  local total child
  total=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$PM/stat" 2>/dev/null || echo 0)
  for child in $(pgrep -P "$PM" 2>/dev/null); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
for run in $(seq 1 "$RUNS"); do
  for s in select1 keys shown whole; do
    before=$(pg_cpu)
    out=$(taskset -c 0 "$PGBENCH" -n -c 32 -j 1 -T "$SECONDS_EACH" -M prepared \
      -D cid="$CID" -D aid="$AID" -D siblings=true -f "$dir/$s.sql" "$URL" 2>&1)
    sleep 1 # the backends exit after pgbench has returned
    after=$(pg_cpu)
    tps=$(sed -n 's/^tps = \([0-9]*\).*/\1/p' <<<"$out")
    n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
    cpu='?'
    if [ -n "$PM" ] && [ "${n:-0}" -gt 0 ] && [ "$after" -gt "$before" ]; then
      cpu=$(((after - before) * 1000000 / TICK / n))
    fi
    printf 'run %s  %-10s %8s statements/s  PostgreSQL CPU %s µs a statement\n' "$run" "$s" "${tps:-?}" "$cpu"
  done
done
