#!/usr/bin/env bash
# Builds the DocC documentation of the library modules (their catalogs are
# Sources/<Module>/<Module>.docc) with the swift-docc plugin, warnings as errors: a broken
# symbol link, a missing parameter's documentation or an unknown article fails the build.
# Usage: scripts/docs.sh [OUTPUT_DIRECTORY]   (default .build/docs; one .doccarchive a module)
# Preview one module: swift package --disable-sandbox preview-documentation --target Stratus
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-.build/docs}
arguments=()
for module in Stratus StratusBackend StratusConformance StratusConfiguration StratusRemote; do
    arguments+=(--target "$module")
done
swift package --disable-sandbox generate-documentation "${arguments[@]}" \
    --output-path "$output" --warnings-as-errors
