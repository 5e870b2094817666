#!/usr/bin/env bash
# The main job on the built-in example: a 13-question gold benchmark and one QA
# system's run, scored per question and in aggregate, with a small index built
# from tests/data/demo/kg.ttl so that Wikidata, Wikipedia and Freebase IRIs and
# labels match the DBpedia gold. No downloads.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed; install the Rust toolchain (rustup, Rust 1.89 or newer) and run this again" >&2
  exit 1
fi
bash scripts/install-deps.sh
cargo build --quiet
target_dir="${CARGO_TARGET_DIR:-target}"
qajudge="$target_dir/debug/qajudge"
"$qajudge" index build --out "$target_dir/demo-index" tests/data/demo/kg.ttl
"$qajudge" evaluate \
  --gold tests/data/demo/gold.json \
  --run tests/data/demo/example-system.json \
  --index "$target_dir/demo-index" \
  --per-question --explain "$@"
