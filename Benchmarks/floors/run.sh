#!/usr/bin/env bash
# The machine's floors under the HTTP targets (Docs/Performance.md, "The floors of the unmet
# targets"): first one request and answer over loopback TCP (pingpong.c), then a one-record
# create on PostgreSQL with no HTTP and no engine: PostgreSQL's own
# client (pgbench, one connection, prepared statements) runs the statements the PostgreSQL
# backend sends for one `records/modify` of one create (logged from stratusd with
# log_min_duration_statement = 0, Docs/Performance.md "The floors of the unmet targets"):
#   create-two-round-trips.sql  as the backend sends them: BEGIN and the first reads, then the
#                               writes and COMMIT (two pipelines)
#   create-one-round-trip.sql   the same statements in one pipeline (what no engine that reads
#                               before it writes can do)
# on a private PostgreSQL 15 with the Kinto peer's settings (fsync, synchronous_commit and
# full_page_writes off), over TCP on 127.0.0.1, with plan_cache_mode as the backend sets it.
#
#   Benchmarks/floors/run.sh [SECONDS] [ROUNDS]      (as root; default 5 s, 3 rounds; needs cc)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:-5}
rounds=${2:-3}
bin=${STRATUS_PG_BIN:-/usr/lib/postgresql/15/bin}
work=$(mktemp -d /tmp/stratus-pg-floor-XXXXXX)
chmod 755 "$work"
cp "$here"/*.sql "$work/"
cc -O2 -o "$work/pingpong" "$here/pingpong.c"
for round in $(seq "$rounds"); do "$work/pingpong"; done
chmod 644 "$work"/*.sql
base="$work/server"
trap 'bash "$here/../../scripts/postgres-server.sh" stop "$base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
url=$(bash "$here/../../scripts/postgres-server.sh" start "$base" \
    -c fsync=off -c synchronous_commit=off -c full_page_writes=off)
port=${url##*:}
port=${port%%/*}
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
as_postgres "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -q -f "$work/setup.sql" postgres
for round in $(seq "$rounds"); do
    for script in create-two-round-trips create-one-round-trip; do
        tps=$(as_postgres env PGOPTIONS="-c plan_cache_mode=force_generic_plan" "$bin/pgbench" \
            -h 127.0.0.1 -p "$port" -U postgres -n -M prepared -c 1 -T "$seconds" \
            -f "$work/$script.sql" postgres 2>&1 | sed -n 's/^tps = \([0-9]*\).*/\1/p')
        echo "round $round  $script  ${tps:-failed} transactions/s"
    done
done
