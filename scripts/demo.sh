#!/usr/bin/env bash
# The main job on the built-in example: a 13-question gold benchmark and one QA
# system's run, scored per question and in aggregate. No downloads.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed; install the Rust toolchain (rustup, Rust 1.80 or newer) and run this again" >&2
  exit 1
fi
bash scripts/install-deps.sh
cargo run --quiet -- evaluate \
  --gold tests/data/demo/gold.json \
  --run tests/data/demo/example-system.json \
  --per-question "$@"
