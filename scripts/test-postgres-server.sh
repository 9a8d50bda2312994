# Sourced by scripts/test.sh: starts a private PostgreSQL 15 server for the test run and exports
# STRATUS_TEST_POSTGRES_URL, unless that variable is already set (then the tests use that
# server). The server listens on 127.0.0.1 and a Unix socket in a temporary directory, runs as
# `postgres` when we are root (PostgreSQL refuses to run as root) and as the current user
# otherwise, and is stopped and removed when the sourcing shell exits.
#
# fsync=off and synchronous_commit=off are set for THIS TEST SERVER ONLY, to keep CI fast; the
# backend itself never changes durability settings.
# If the server cannot be started, the variable is left unset and the PostgreSQL tests fail
# with a message saying why (they are never skipped).

stratus_pg_start() {
    local pgbin=${STRATUS_PG_BIN:-/usr/lib/postgresql/15/bin}
    if ! pkg-config --exists libpq || [ ! -x "$pgbin/initdb" ]; then
        if [ "$(id -u)" = 0 ]; then
            apt-get update -qq && apt-get install -y -qq libpq-dev postgresql-15 >/dev/null
        else
            echo "PostgreSQL: libpq-dev or the PostgreSQL 15 server is missing (apt-get install libpq-dev postgresql-15)" >&2
            return 1
        fi
    fi
    STRATUS_PG_BASE=$(mktemp -d "${TMPDIR:-/tmp}/stratus-pg-XXXXXX")
    mkdir -p "$STRATUS_PG_BASE/data" "$STRATUS_PG_BASE/sock"
    chmod 755 "$STRATUS_PG_BASE"
    STRATUS_PG_AS=()
    if [ "$(id -u)" = 0 ]; then
        chown -R postgres:postgres "$STRATUS_PG_BASE"
        STRATUS_PG_AS=(runuser -u postgres --)
    fi
    chmod 700 "$STRATUS_PG_BASE/data"
    local port
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null \
        || echo $((20000 + RANDOM % 20000)))
    "${STRATUS_PG_AS[@]}" "$pgbin/initdb" -D "$STRATUS_PG_BASE/data" -U postgres -A trust -E UTF8 \
        --locale=C.UTF-8 --no-sync >"$STRATUS_PG_BASE/initdb.log" 2>&1 || {
        echo "PostgreSQL: initdb failed; see $STRATUS_PG_BASE/initdb.log" >&2
        return 1
    }
    "${STRATUS_PG_AS[@]}" "$pgbin/pg_ctl" -D "$STRATUS_PG_BASE/data" -l "$STRATUS_PG_BASE/server.log" \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $STRATUS_PG_BASE/sock -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        -w -t 30 start >/dev/null || {
        echo "PostgreSQL: the test server did not start; see $STRATUS_PG_BASE/server.log" >&2
        cat "$STRATUS_PG_BASE/server.log" >&2 || true
        return 1
    }
    export STRATUS_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$port/postgres"
    # What the fault tests need to restart the server (pg_ctl restart), run as the same user.
    export STRATUS_TEST_POSTGRES_DATA="$STRATUS_PG_BASE/data"
    export STRATUS_TEST_POSTGRES_BIN="$pgbin"
    echo "== PostgreSQL test server on 127.0.0.1:$port ($STRATUS_PG_BASE)"
}

stratus_pg_stop() {
    if [ -n "${STRATUS_PG_BASE:-}" ] && [ -d "$STRATUS_PG_BASE" ]; then
        "${STRATUS_PG_AS[@]}" "${STRATUS_PG_BIN:-/usr/lib/postgresql/15/bin}/pg_ctl" -D "$STRATUS_PG_BASE/data" \
            -m immediate -w stop >/dev/null 2>&1 || true
        rm -rf "$STRATUS_PG_BASE"
    fi
}

if [ -z "${STRATUS_TEST_POSTGRES_URL:-}" ]; then
    trap stratus_pg_stop EXIT
    stratus_pg_start || echo "PostgreSQL: no test server; the PostgreSQL tests will fail" >&2
fi
