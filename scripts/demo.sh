#!/usr/bin/env bash
# The main job on the built-in example: a 13-question gold benchmark and two QA
# systems' runs, scored per question and in aggregate, with a small index built
# from tests/data/demo/kg.ttl so that Wikidata, Wikipedia and Freebase IRIs and
# labels match the DBpedia gold. The second system answers with SPARQL queries,
# executed on the example's graph (kg.ttl + facts.ttl) in the embedded store. No
# downloads.
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
  --run tests/data/demo/sparql-system.json \
  --kg tests/data/demo/kg.ttl tests/data/demo/facts.ttl \
  --index "$target_dir/demo-index" \
  --per-question --explain "$@"
if [[ $# -eq 0 ]]; then
  # a micro-benchmark drawn by the questions' features (docs/features.md), and
  # the feature conditions under which the first system fails
  echo
  "$qajudge" sample --gold tests/data/demo/gold.json --size 8 \
    --features words,entities,relations,triple_patterns,result_size --out "$target_dir/demo-sample"
  "$qajudge" evaluate --gold tests/data/demo/gold.json --sample "$target_dir/demo-sample" \
    --run tests/data/demo/example-system.json --index "$target_dir/demo-index" \
    --experiments qa --explain-failures
fi
