#!/usr/bin/env bash
# What PostgreSQL's server spends per delivery, with no boxtrack process in the way: the
# statements of today's per-row outbox (a.sql: lease claim, body insert, outcome update, 256
# rows each, one transaction each) against a log-and-cursor design (b.sql: one cursor row leased,
# the range read with bodies rendered into the log, compact attempt rows appended, the cursor
# advanced), and the per-row outbox with its due state in a narrow table of its own (c.sql: the
# outcome a delete plus an in-place update). pgbench, one client, prepared statements, each
# script on a fresh copy of 40 000 notifications (the size of the bench's outbox). Prints
# pgbench's per-statement latencies.
#
#   bench/pg-floor/run.sh [RUNS] [PGURL-without-database]   (default 2, postgres://root@127.0.0.1:5432)
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${1:-2}
BASE=${2:-postgres://root@127.0.0.1:5432}
PGBENCH=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench | tail -1)
for _ in $(seq 1 "$RUNS"); do
  for s in a b c; do
    psql -q "$BASE/postgres" -c 'DROP DATABASE IF EXISTS boxtrack_pg_floor' -c 'CREATE DATABASE boxtrack_pg_floor' >/dev/null
    PGOPTIONS="-c client_min_messages=warning" psql -q -v ON_ERROR_STOP=1 "$BASE/boxtrack_pg_floor" -f setup.sql >/dev/null
    echo "== $s.sql"
    "$PGBENCH" -n -r -c 1 -t 150 -M prepared -f "$s.sql" "$BASE/boxtrack_pg_floor" 2>&1 |
      sed -n '/^latency average/p;/statement latencies/,$p' | cut -c1-120
  done
done
psql -q "$BASE/postgres" -c 'DROP DATABASE IF EXISTS boxtrack_pg_floor' >/dev/null
