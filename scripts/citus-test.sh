#!/usr/bin/env bash
# The store's suite on a local Citus cluster (a coordinator and two workers on loopback):
# builds and installs Citus 13.2.2 for PostgreSQL 15 when it is missing (about six minutes on
# 2 cores, once), starts the cluster (../shared/citus, or $CITUS_KIT), gives the test database
# 4 shards per table (each test lays its own schema out), and runs the suites named (default:
# the store's). Every test schema boxtrack lays out goes through `store::citus::lay_out`.
#
#   scripts/citus-test.sh                       # cargo test -p boxtrack-store --test it
#   scripts/citus-test.sh -p boxtrack-api --test it
#
# docs/scaling.md ("Running on Citus") says what passes today and what does not.
set -euo pipefail
cd "$(dirname "$0")/.."
kit="${CITUS_KIT:-../shared/citus}"
[ -x "$kit/install.sh" ] || { echo "citus-test: no Citus kit at $kit (set CITUS_KIT)" >&2; exit 2; }
"$kit/install.sh"
url="$("$kit/cluster.sh" start | tail -n 1)"
db="${url##*/}"
psql "$url" -qc "ALTER DATABASE \"$db\" SET citus.shard_count = 4"
if [ "$#" -eq 0 ]; then set -- -p boxtrack-store --test it; fi
DATABASE_URL="$url" cargo test "$@"
