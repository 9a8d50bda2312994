#!/usr/bin/env bash
# Fuzzes a live stratusd with schemathesis against Docs/stratusd.openapi.yaml (decision 0012's
# test plan): no 5xx, every response valid against the document, every status documented.
#
# Installs schemathesis (pinned) into .build/schemathesis-venv once, starts `stratusd` on
# loopback with a fresh store and credentials made by `stratusd admin` (a container, an API
# token, a user's session), and runs schemathesis with them, bounded in time. Operations marked
# `x-stratus-served: false` are excluded. Exits non-zero on any failure.
# Usage: scripts/schemathesis.sh [--install-only]   (needs a built stratusd: swift build --product
# stratusd, or its path in STRATUS_STRATUSD; --install-only installs schemathesis and stops)
set -euo pipefail
cd "$(dirname "$0")/.."

version=4.32.5
budget=${STRATUS_SCHEMATHESIS_SECONDS:-120}
examples=${STRATUS_SCHEMATHESIS_EXAMPLES:-20}
venv=.build/schemathesis-venv
# python3 with venv and pip (Debian's python3-venv), installed as root like the build's libraries.
scripts/require-system-packages.sh python3-venv
if [ "$("$venv/bin/schemathesis" --version 2>/dev/null || true)" != "schemathesis, version $version" ]; then
    echo "== schemathesis: installing $version into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi
[ "${1:-}" = --install-only ] && exit 0
scripts/openapi-json.sh --check

stratusd=${STRATUS_STRATUSD:-"$(swift build --show-bin-path)/stratusd"}
[ -x "$stratusd" ] || swift build --product stratusd
work=$(mktemp -d)
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

container=iCloud.com.example.schemathesis
admin() { (cd "$work" && "$stratusd" admin "$@" 2>/dev/null); }
admin container create "$container" >/dev/null
token=$(admin token create --container "$container" --environment development)
session=$(admin session create --container "$container" --environment development --user fuzzer)

(cd "$work" && exec "$stratusd" --port 0 --metrics-port 0 >"$work/stdout" 2>"$work/stderr") &
server=$!
url=""
for _ in $(seq 1 300); do
    url=$(sed -n 's/^stratusd listening on \([^ ]*\).*/\1/p' "$work/stdout" | head -1)
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then
    echo "schemathesis: stratusd did not start:" >&2
    cat "$work/stderr" >&2
    exit 1
fi

# The credentials and the container go in through the configuration file, never the command line.
cat >"$work/schemathesis.toml" <<EOF
[auth.openapi.ckAPIToken]
api_key = "\${STRATUS_FUZZ_TOKEN}"
[auth.openapi.ckWebAuthToken]
api_key = "\${STRATUS_FUZZ_SESSION}"
[parameters]
"path.container" = "$container"
"path.environment" = "development"
EOF

echo "== schemathesis $version against $url (≤ ${budget} s, ≤ $examples examples per operation)"
status=0
# From the temporary directory, so schemathesis's example database (.schemathesis/) goes with it.
root=$(pwd)
(cd "$work" && STRATUS_FUZZ_TOKEN=$token STRATUS_FUZZ_SESSION=$session timeout --signal=INT "$budget" \
    "$root/$venv/bin/schemathesis" --no-color --config-file schemathesis.toml run "$root/Docs/stratusd.openapi.yaml" \
    --url "$url" --exclude-by '/x-stratus-served == false' \
    --checks not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance \
    --max-examples "$examples" --seed 20261125 --request-timeout 10 --workers 1 \
    --phases examples,coverage,fuzzing --warnings off) || status=$?

# The server's own log: one line per request with its status.
if grep -q 'stratus.http.status=5' "$work/stderr"; then
    echo "schemathesis: stratusd answered 5xx (its log):" >&2
    grep 'stratus.http.status=5' "$work/stderr" | head -20 >&2
    status=1
fi
if ! kill -0 "$server" 2>/dev/null; then
    echo "schemathesis: stratusd is no longer running (crashed):" >&2
    tail -20 "$work/stderr" >&2
    status=1
fi
statuses=$(sed -n 's/.*stratus.http.status=\([0-9]*\).*/\1/p' "$work/stderr" | sort | uniq -c | awk '{printf "%s×%s ", $2, $1}')
echo "schemathesis summary: exit $status; stratusd answered ${statuses:-nothing}"
exit "$status"
