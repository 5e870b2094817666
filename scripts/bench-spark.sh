#!/usr/bin/env bash
# The one-machine build against the Spark path on the same synthetic dump of N
# million statements (default 20, examples/gen_dump.rs), in one run: `index
# build`; then `index build --export-links`, scripts/spark/closure.py in local
# mode on every core, `index build --from-components`. Prints each step's wall
# time and peak memory, and checks both indexes answer alike (`index info`).
# Usage: bash scripts/bench-spark.sh [MILLIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --java --python
bash scripts/install-servers.sh
millions="${1:-20}"
target="${CARGO_TARGET_DIR:-target}"
work="$target/bench-index"
mkdir -p "$work"
cargo build --release --example gen_dump --bin qajudge
dump="$work/synthetic-${millions}m.nt"
[ -f "$dump" ] || "$target/release/examples/gen_dump" "$dump" "$millions"
qajudge="$target/release/qajudge"
spark="$work/spark-${millions}m"
rm -rf "$spark" "$work/idx-${millions}m-one" "$work/idx-${millions}m-spark"
timed() { /usr/bin/env time -f "%e s wall, peak RSS %M KiB" "$@"; }
echo "== one machine: index build"
timed "$qajudge" index build --out "$work/idx-${millions}m-one" "$dump"
echo "== Spark path: export"
timed "$qajudge" index build --export-links "$spark" "$dump"
du -sh "$spark"
echo "== Spark path: closure (local[*])"
timed "$target/venv-spark/bin/python" scripts/spark/closure.py "$spark"
echo "== Spark path: index from components"
timed "$qajudge" index build --from-components "$spark" --out "$work/idx-${millions}m-spark"
strip() { "$qajudge" index info "$1" | grep -v -i "built\|path\|idx-"; }
if diff <(strip "$work/idx-${millions}m-one") <(strip "$work/idx-${millions}m-spark") >/dev/null; then
  echo "index info: the same"
else
  echo "error: the indexes differ:" >&2
  diff <(strip "$work/idx-${millions}m-one") <(strip "$work/idx-${millions}m-spark") >&2 || true
  exit 1
fi
rm -rf "$spark" "$work/idx-${millions}m-spark" "$work/idx-${millions}m-one"
