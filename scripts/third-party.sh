#!/usr/bin/env bash
# Writes the list of crates linked into the `qajudge` binary and the Python
# package's extension module (on the targets of
# deny.toml; dev-dependencies left out), each with its version and licences as
# cargo-deny reads them, into THIRD-PARTY-NOTICES.md between its two
# `<!-- crates -->` markers. Run it after a dependency changes; the tests
# check the licences themselves (scripts/licences.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
listing="$(mktemp)"
trap 'rm -f "$listing"' EXIT
bash scripts/licences.sh --list >"$listing"
python3 - "$listing" THIRD-PARTY-NOTICES.md <<'PY'
import json, sys
listing, path = sys.argv[1], sys.argv[2]
crates = json.load(open(listing))
rows = []
for key, value in sorted(crates.items()):
    name, version = key.split(" ")[:2]
    if name in ("qajudge", "qajudge-python"):
        continue
    rows.append(f"| {name} | {version} | {' OR '.join(value['licenses'])} |")
table = "\n".join(["| crate | version | licences |", "|---|---|---|", *rows])
text = open(path).read()
start, end = "<!-- crates -->", "<!-- /crates -->"
a, b = text.index(start) + len(start), text.index(end)
tmp = path + ".tmp"
with open(tmp, "w") as f:
    f.write(text[:a] + "\n" + table + "\n" + text[b:])
import os
os.replace(tmp, path)
print(f"{len(rows)} crates written to {path}", file=sys.stderr)
PY
