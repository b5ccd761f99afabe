#!/bin/bash
# Server CPU a request costs, and the rate, for one or more boxtrack binaries at one or more
# log levels, alternating in the same sitting (BENCHMARKS.md "Logging at info").
#
#   bench/cpu-per-request/run.sh ROUNDS SECONDS PATH BIN:LEVEL [BIN:LEVEL ...]
#   bench/cpu-per-request/run.sh 3 5 /healthz /tmp/bt-old:warn /tmp/bt-old:info ./target/release/boxtrack:info
#
# Each BIN:LEVEL starts `BIN serve` on a fresh SQLite file pinned to core 1, warms it for 2 s
# with `wrk -t1 -c32` pinned to core 0, then loads it for SECONDS and prints the round, the
# binary, the level, requests a second and the server's CPU (user + system, from
# /proc/PID/stat) per request in µs. CPU per request holds still when the machine's noise moves
# the rate. Needs `wrk` (apt-get install wrk) and a path that needs no key (/healthz), or:
#   DATABASE=sqlite:///tmp/b10k.db  serve that database (left as it is) instead of a fresh file
#   SCRIPT=containers.lua           a wrk script choosing the requests (containers-lua.py makes
#                                   one from bench-seed's json: keyed container reads)
#   SERVE_ARGS="--read-cache-mib 0" more arguments for `serve`
# e.g. DATABASE=sqlite:///tmp/b10k.db SCRIPT=/tmp/containers.lua SERVE_ARGS="--read-cache-mib 0" \
#        bench/cpu-per-request/run.sh 4 6 / /tmp/bt-old:warn ./target/release/boxtrack:warn
set -eu
ROUNDS=$1; SECS=$2; P=$3; shift 3
PORT=${PORT:-18081}
DB=$(mktemp -d)/cpu.db
TICK=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
for r in $(seq "$ROUNDS"); do
  for cfg in "$@"; do
    bin=${cfg%:*}; lvl=${cfg##*:}
    [ -n "${DATABASE:-}" ] || rm -f "$DB" "$DB-wal" "$DB-shm"
    # shellcheck disable=SC2086
    taskset -c 1 "$bin" serve --listen 127.0.0.1:$PORT --database-url "${DATABASE:-sqlite://$DB}" --log-level "$lvl" ${SERVE_ARGS:-} >/dev/null 2>"$DB.log" &
    pid=$!
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done
    taskset -c 0 wrk -t1 -c32 -d2s ${SCRIPT:+-s "$SCRIPT"} "http://127.0.0.1:$PORT$P" >/dev/null
    c0=$(cpu $pid)
    out=$(taskset -c 0 wrk -t1 -c32 -d"${SECS}s" ${SCRIPT:+-s "$SCRIPT"} "http://127.0.0.1:$PORT$P")
    c1=$(cpu $pid)
    reqs=$(echo "$out" | awk '/requests in/{print $1}')
    rate=$(echo "$out" | awk '/Requests\/sec/{print $2}')
    echo "$r $bin $lvl $rate $(awk -v c=$((c1 - c0)) -v n="$reqs" -v t="$TICK" 'BEGIN{printf "%.2f", c * 1e6 / t / n}')"
    kill $pid; wait $pid 2>/dev/null || true
  done
done
