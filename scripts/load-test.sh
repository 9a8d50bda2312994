#!/usr/bin/env bash
# Load on loopback (decision 0012's test plan, Load): starts the built `stratusd` on SQLite in a
# temporary directory with a container, a token and a session, then runs `wrk` (Debian's,
# installed by scripts/require-system-packages.sh) against one endpoint at a time for SECONDS
# each — records/modify (5 creates a request), records/lookup (10 records), records/changes
# (100 a page), zones/list — on 4 keep-alive connections, printing requests/s, p50 and p99
# latency and errors. Meanwhile it samples stratusd's RSS (VmRSS) every 0.2 s.
#
# Fails (non-zero) when a request failed (a socket error, a status other than 200 or a
# per-record serverErrorCode) or when RSS was not flat: after a 2 s warm-up, the largest
# sample of the last third must be at most 1.3 x the largest of the first third.
#
# The test command runs it through Tests/StratusServerTests/WebServices/LoadTests.swift.
#
#   scripts/load-test.sh [SECONDS]    SECONDS per endpoint, default 8 (STRATUS_LOAD_SECONDS)
#   STRATUSD=path/to/stratusd         the server to load (default: this checkout's debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scripts/require-system-packages.sh wrk
seconds=${1:-${STRATUS_LOAD_SECONDS:-8}}
stratusd=${STRATUSD:-$(swift build --show-bin-path)/stratusd}
[ -x "$stratusd" ] || { echo "load: no stratusd at $stratusd (swift build first)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/stratus-load-XXXXXX")
pid=""
sampler=""
cleanup() {
    [ -n "$sampler" ] && kill "$sampler" 2>/dev/null || true
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

container=iCloud.com.example.load
"$stratusd" admin container create "$container" >/dev/null 2>&1
token=$("$stratusd" admin token create --container "$container" --environment development 2>/dev/null)
session=$("$stratusd" admin session create --container "$container" --environment development --user alice 2>/dev/null)
"$stratusd" --port 0 --metrics-port 0 --log-level warning >out 2>err &
pid=$!
base=""
for _ in $(seq 1 300); do
    base=$(sed -n 's/^stratusd listening on \(http[^ ]*\).*/\1/p' out)
    [ -n "$base" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$base" ] || { echo "load: stratusd did not start: $(cat err)" >&2; exit 1; }
database="$base/database/1/$container/development/private"
query="ckAPIToken=$token&ckWebAuthToken=$session"

post() {
    local answer
    answer=$(curl -sS -X POST -H 'Content-Type: application/json' --data "$2" "$database/$1?$query")
    case "$answer" in *serverErrorCode*) echo "load: setting up $1 failed: $answer" >&2; exit 1 ;; esac
}
post zones/modify '{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Load"}}}]}'
seeds=$(for i in $(seq 0 9); do
    printf '{"operationType":"create","record":{"recordName":"seed-%d","recordType":"Item","fields":{"title":{"value":"seed"}}}},' "$i"
done)
post records/modify "{\"zoneID\":{\"zoneName\":\"Load\"},\"operations\":[${seeds%,}]}"

(while kill -0 "$pid" 2>/dev/null; do
    awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true
    sleep 0.2
done) >rss &
sampler=$!

failed=0
run() {
    local endpoint=$1 path=$2 line
    line=$(STRATUS_LOAD_ENDPOINT=$endpoint wrk -t 2 -c 4 -d "${seconds}s" --timeout 10s \
        -s "$root/scripts/load/endpoint.lua" "$database/$path?$query" | grep '^RESULT' || true)
    [ -n "$line" ] || { echo "load: wrk printed no result for $endpoint" >&2; failed=1; return; }
    echo "${line#RESULT }"
    case "$line" in *" errors=0") ;; *) failed=1 ;; esac
}
echo "== load: wrk, ${seconds} s per endpoint, 2 threads, 4 connections, stratusd on SQLite ($stratusd)"
run modify records/modify
run lookup records/lookup
run changes records/changes
run zones zones/list

kill "$sampler" 2>/dev/null || true
sampler=""
# RSS flatness: drop the 2 s warm-up (10 samples), compare the thirds' largest samples.
awk 'NR > 10 { rss[n++] = $1 } END {
    if (n < 9) { print "load: too few RSS samples (" n ")"; exit 1 }
    third = int(n / 3); first = 0; last = 0
    for (i = 0; i < third; i++) if (rss[i] > first) first = rss[i]
    for (i = n - third; i < n; i++) if (rss[i] > last) last = rss[i]
    printf "RSS: %d samples, first third max %.1f MiB, last third max %.1f MiB (ratio %.2f, limit 1.30)\n",
        n, first / 1024, last / 1024, last / first
    if (last > 1.3 * first) exit 1
}' rss || failed=1
[ "$failed" = 0 ] || { echo "load: FAILED (errors above, or RSS not flat)" >&2; exit 1; }
echo "load: 0 errors, RSS flat"
