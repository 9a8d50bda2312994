# Sourced by scripts/test.sh: starts a private PostgreSQL 15 server for the test run and exports
# STRATUS_TEST_POSTGRES_URL, unless that variable is already set (then the tests use that
# server). scripts/postgres-server.sh does the work: the server listens on 127.0.0.1 and a Unix
# socket in a temporary directory, runs as `postgres` when we are root (PostgreSQL refuses to
# run as root) and as the current user otherwise, and is stopped and removed when the sourcing
# shell exits.
#
# fsync=off and synchronous_commit=off are set for THIS SHARED TEST SERVER ONLY, to keep CI
# fast; the backend itself never changes durability settings. Tests run in parallel against
# this server, so no test may restart it: the restart test starts a server of its own (with
# the durable defaults) through the same script.
# If the server cannot be started, the variable is left unset and the PostgreSQL tests fail
# with a message saying why (they are never skipped).

STRATUS_PG_SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/postgres-server.sh"

stratus_pg_start() {
    STRATUS_PG_BASE=$(mktemp -d "${TMPDIR:-/tmp}/stratus-pg-XXXXXX")
    local url
    url=$("$STRATUS_PG_SCRIPT" start "$STRATUS_PG_BASE" -c fsync=off -c synchronous_commit=off -c full_page_writes=off) || {
        echo "PostgreSQL: the test server did not start (above)" >&2
        return 1
    }
    export STRATUS_TEST_POSTGRES_URL="$url"
    echo "== PostgreSQL test server on ${url#*@} ($STRATUS_PG_BASE)"
}

stratus_pg_stop() {
    if [ -n "${STRATUS_PG_BASE:-}" ] && [ -d "$STRATUS_PG_BASE" ]; then
        "$STRATUS_PG_SCRIPT" stop "$STRATUS_PG_BASE" || true
    fi
}

if [ -z "${STRATUS_TEST_POSTGRES_URL:-}" ]; then
    trap stratus_pg_stop EXIT
    stratus_pg_start || echo "PostgreSQL: no test server; the PostgreSQL tests will fail" >&2
fi
