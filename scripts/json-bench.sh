#!/bin/sh
# Times stratusd's JSON parser and serializer on a ~16 MiB body, compiled standalone with -O
# (the JSON layer needs only Foundation), so it takes seconds rather than a release build.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
json="$root/Sources/StratusWebServices/JSON"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Every JSON* file: the parser, serializer and decoder (the WS* translator needs Stratus).
swiftc -O -wmo -package-name jsonbench -module-name JSONBench "$json"/JSON*.swift \
    "$root/scripts/json-bench/main.swift" -o "$out/json-bench"
"$out/json-bench"
