#!/usr/bin/env bash
# A private PostgreSQL 15 server in a directory of its own: the one place that knows how to
# initdb, start, restart and stop one. Used by scripts/test-postgres-server.sh (the shared test
# server of a test run) and by the restart test (Tests/StratusPostgreSQLTests, a server of its
# own that it restarts mid-run).
#
#   postgres-server.sh start BASE [POSTGRES_OPTION...]   initdb into BASE/data, start on 127.0.0.1
#                                                        and a free port plus the socket directory
#                                                        BASE/sock; prints the URL (also in BASE/url)
#   postgres-server.sh restart BASE fast|immediate       pg_ctl restart -m MODE, waits until it accepts
#                                                        connections again
#   postgres-server.sh halt BASE                         stops the server (immediately, a crash) and
#                                                        keeps BASE: its data directory and port
#   postgres-server.sh resume BASE                       starts a halted server again on the same data
#                                                        directory, port and options
#   postgres-server.sh stop BASE                         stops the server (immediately) and removes BASE
#
# BASE is a directory that does not exist yet or is empty. POSTGRES_OPTIONs are passed to the
# server, e.g. `-c fsync=off`. Without them the server keeps PostgreSQL's durable defaults.
# The server runs as `postgres` when we are root (PostgreSQL refuses to run as root) and as the
# current user otherwise; it listens on loopback and a Unix socket only. Installs libpq-dev and
# postgresql-15 with apt-get when they are missing and we are root. Exits non-zero with a
# message on stderr when something fails.
set -euo pipefail

pgbin=${STRATUS_PG_BIN:-/usr/lib/postgresql/15/bin}
as=()
if [ "$(id -u)" = 0 ]; then as=(runuser -u postgres --); fi

fail() {
    echo "PostgreSQL: $*" >&2
    exit 1
}

# Runs a command that leaves the server running (pg_ctl start, restart), its output discarded,
# with no descriptor but 0-2: the server is a daemon that outlives us, and must not keep our caller's descriptors open.
# (Foundation's Process, which the restart test uses, notices a child's exit by the close of a
# socket the child inherited; a server holding it would hide the exit for good.) Run it in a
# subshell: it closes the shell's own descriptors too.
without_inherited_descriptors() {
    local fd
    for fd in /proc/$BASHPID/fd/*; do
        fd=${fd##*/}
        if [ "$fd" -gt 2 ] && [ -e "/proc/$BASHPID/fd/$fd" ]; then eval "exec $fd>&-"; fi
    done
    "$@" >/dev/null
}

command=${1:-}
base=${2:-}
[ -n "$command" ] && [ -n "$base" ] || fail "usage: $0 start|restart|halt|resume|stop BASE [...]"
shift 2

case "$command" in
start)
    if ! pkg-config --exists libpq || [ ! -x "$pgbin/initdb" ]; then
        if [ "$(id -u)" = 0 ]; then
            apt-get update -qq && apt-get install -y -qq libpq-dev postgresql-15 >/dev/null \
                || fail "apt-get install libpq-dev postgresql-15 failed"
        else
            fail "libpq-dev or the PostgreSQL 15 server is missing (apt-get install libpq-dev postgresql-15)"
        fi
    fi
    mkdir -p "$base/data" "$base/sock" || fail "cannot create $base"
    chmod 755 "$base"
    if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$base"; fi
    chmod 700 "$base/data"
    "${as[@]}" "$pgbin/initdb" -D "$base/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync \
        >"$base/initdb.log" 2>&1 || fail "initdb failed: $(tail -n 5 "$base/initdb.log")"
    # A free port, chosen just before the start; another process (a test's server on port 0)
    # can still take it first, so a start that finds it in use tries another, three times.
    for attempt in 1 2 3; do
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' \
            2>/dev/null || echo $((20000 + RANDOM % 20000)))
        options="-c listen_addresses=127.0.0.1 -p $port -k $base/sock -c max_connections=400 $*"
        echo "$options" >"$base/options"
        if (without_inherited_descriptors "${as[@]}" "$pgbin/pg_ctl" -D "$base/data" -l "$base/server.log" \
            -o "$options" -w -t 30 start); then
            break
        fi
        if [ "$attempt" = 3 ] || ! grep -q "Address already in use" "$base/server.log" 2>/dev/null; then
            fail "the server did not start: $(tail -n 20 "$base/server.log" 2>/dev/null)"
        fi
        : >"$base/server.log"
    done
    url="postgresql://postgres@127.0.0.1:$port/postgres"
    echo "$url" >"$base/url"
    echo "$url"
    ;;
restart)
    mode=${1:-fast}
    case "$mode" in fast | immediate | smart) ;; *) fail "restart mode must be fast or immediate, got $mode" ;; esac
    # pg_ctl restart keeps the options the server was started with (postmaster.opts).
    (without_inherited_descriptors "${as[@]}" "$pgbin/pg_ctl" -D "$base/data" -l "$base/server.log" \
        -m "$mode" -w -t 30 restart) || fail "pg_ctl restart -m $mode failed: $(tail -n 20 "$base/server.log" 2>/dev/null)"
    ;;
halt)
    [ -d "$base/data" ] || fail "no server in $base"
    "${as[@]}" "$pgbin/pg_ctl" -D "$base/data" -m immediate -w stop >/dev/null 2>&1 \
        || fail "pg_ctl stop -m immediate failed"
    ;;
resume)
    [ -f "$base/options" ] || fail "no halted server in $base"
    (without_inherited_descriptors "${as[@]}" "$pgbin/pg_ctl" -D "$base/data" -l "$base/server.log" \
        -o "$(cat "$base/options")" -w -t 30 start) \
        || fail "the server did not start again: $(tail -n 20 "$base/server.log" 2>/dev/null)"
    ;;
stop)
    if [ -d "$base/data" ]; then
        "${as[@]}" "$pgbin/pg_ctl" -D "$base/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$base"
    ;;
*)
    fail "unknown command $command (start, restart, halt, resume or stop)"
    ;;
esac
