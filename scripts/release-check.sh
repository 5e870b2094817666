#!/usr/bin/env bash
# The release check (docs/testing.md, "The release check"; not part of the test
# command): what a crates.io upload of the crate would hold (`cargo package
# --list`, no file over 5 MB: test data stays out), that the package builds on
# its own (`cargo package`), and the release wheel (`maturin build --release`,
# manylinux when the libraries allow it), installed into a fresh venv whose
# `qajudge` command and module score the demo. Builds in the release profile
# (RocksDB included, about 20 minutes the first time).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
max_bytes=$((5 * 1024 * 1024))
maturin_version="1.16.0"
tools="$target/venv-maturin"
wheels="$target/wheels-release"
venv="$target/venv-release"

echo "== cargo package --list" >&2
list=$(cargo package -p qajudge --list --allow-dirty)
count=0
too_large=()
while IFS= read -r file; do
  count=$((count + 1))
  [ -f "$file" ] || continue
  size=$(stat -c %s "$file")
  if [ "$size" -gt "$max_bytes" ]; then
    too_large+=("$file ($size bytes)")
  fi
done <<< "$list"
total=$(while IFS= read -r f; do [ -f "$f" ] && stat -c %s "$f"; done <<< "$list" | awk '{s += $1} END {print s}')
echo "$count files, $total bytes" >&2
if [ ${#too_large[@]} -gt 0 ]; then
  printf 'error: a file over 5 MB would be uploaded: %s; exclude it in Cargo.toml\n' "${too_large[@]}" >&2
  exit 1
fi

echo "== cargo package (builds the packaged crate)" >&2
cargo package -p qajudge --allow-dirty

echo "== maturin build --release" >&2
if ! { [ -x "$tools/bin/maturin" ] && "$tools/bin/maturin" --version 2>/dev/null | grep -q "$maturin_version"; }; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q --disable-pip-version-check "maturin==$maturin_version"
fi
rm -rf "$wheels"
"$tools/bin/maturin" build --release --interpreter python3 --out "$wheels" >&2
wheel=$(ls "$wheels"/qajudge-*.whl)
echo "$wheel ($(stat -c %s "$wheel") bytes)" >&2
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$wheel"
version=$(cargo metadata --format-version 1 --no-deps | "$venv/bin/python" -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "qajudge"))')
[ "$("$venv/bin/qajudge" --version)" = "qajudge $version" ] || { echo "error: the wheel's command is not version $version" >&2; exit 1; }
"$venv/bin/qajudge" evaluate --gold tests/data/demo/gold.json --run tests/data/demo/example-system.json >/dev/null
"$venv/bin/python" - <<'PY'
import qajudge
r = qajudge.evaluate("tests/data/demo/gold.json", ["tests/data/demo/example-system.json"])
assert r.runs == ["example-system"], r.runs
print(f"qajudge {qajudge.__version__}: the wheel's command and module score the demo")
PY
