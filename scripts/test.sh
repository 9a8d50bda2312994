#!/usr/bin/env bash
# The test command: installs what the tests need, then runs every test of the package and of
# the custom-backend example. Usage: scripts/test.sh  (CI runs it through .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

# The C libraries the package builds against, and python3 with venv for schemathesis below
# (installed as root, or the apt-get line to run).
scripts/require-system-packages.sh python3-venv

# A private PostgreSQL 15 server for the PostgreSQL tests, unless STRATUS_TEST_POSTGRES_URL is set.
source scripts/test-postgres-server.sh

start=$(date +%s)
# Formatting is part of the contract: `swift format` with the repository's .swift-format.
echo "== swift format lint"
git ls-files -z '*.swift' | xargs -0 swift format lint --strict
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build --parallel

# stratusd fuzzed against its OpenAPI document (schemathesis from PyPI, pinned, in a venv under
# .build/): no 5xx, every response valid, every status documented. Bounded to 120 s.
# (FreshMachineTests runs this script with stand-in tools and STRATUS_SCHEMATHESIS=no: the
# stand-ins have no stratusd to fuzz.)
if [ "${STRATUS_SCHEMATHESIS:-yes}" = no ]; then
    echo "== schemathesis: turned off (STRATUS_SCHEMATHESIS=no)"
else
    echo "== schemathesis"
    scripts/schemathesis.sh
fi

# stratusd as it is deployed: optimized. The optimizer reads across modules what a debug build
# never does (Swift 6.3.1 once aborted there on a Stratus class: decision 0012, release build).
echo "== release build of stratusd"
swift build -c release --product stratusd

# The DocC catalogs of the library modules, warnings (broken symbol links) as errors.
echo "== documentation"
scripts/docs.sh

# The custom-backend example is a package of its own (it depends on this one by path), built
# and tested the way a backend author's package would be. `set -e` stops the script, non-zero,
# on the first failing command.
example=Examples/CustomBackend
echo "== $example"
swift build --package-path "$example" --build-tests -Xswiftc -warnings-as-errors
swift test --package-path "$example" --skip-build
# The README's run command on a real fresh Debian root (debootstrap), as root only: it mounts
# and chroots. Without root, FreshMachineTests above checked the same path with stand-ins.
# (FreshMachineTests runs this script with stand-in tools and STRATUS_FRESH_ROOT_CHECK=no.)
if [ "${STRATUS_FRESH_ROOT_CHECK:-yes}" = no ]; then
    echo "== fresh machine: the debootstrap check was turned off (STRATUS_FRESH_ROOT_CHECK=no)"
elif [ "$(id -u)" = 0 ]; then
    scripts/fresh-machine-check.sh
else
    echo "== fresh machine: the debootstrap check needs root (sudo scripts/fresh-machine-check.sh); not run"
fi
echo "test wall time: $(( $(date +%s) - start )) s"
