#!/usr/bin/env bash
# Writes Docs/stratusd.openapi.json, the JSON copy of Docs/stratusd.openapi.yaml that the Swift
# conformance test reads (Foundation parses JSON, not YAML). `--check` writes nothing and exits
# non-zero when the copy is not current. Needs a python3 with PyYAML: the schemathesis venv's
# (scripts/schemathesis.sh makes it) or the system's.
set -euo pipefail
cd "$(dirname "$0")/.."
python=python3
[ -x .build/schemathesis-venv/bin/python ] && python=.build/schemathesis-venv/bin/python
"$python" - "${1:-}" <<'PY'
import json, sys, yaml
text = json.dumps(yaml.safe_load(open("Docs/stratusd.openapi.yaml")), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
path = "Docs/stratusd.openapi.json"
if sys.argv[1] == "--check":
    current = open(path).read() if __import__("os").path.exists(path) else ""
    if current != text:
        sys.exit(f"{path} is not the JSON copy of Docs/stratusd.openapi.yaml: run scripts/openapi-json.sh")
    print(f"{path} is current")
else:
    open(path, "w").write(text)
    print(f"wrote {path}")
PY
