#!/usr/bin/env bash
# The owl:sameAs closure in RocksDB table layouts against format 5's key table
# (examples/bench_closure.rs): builds the synthetic index of N million
# statements if missing (as scripts/bench-index.sh does), then writes its
# closure again in each layout, one process a layout, and prints per layout the
# unseen / known / absent lookups a second, build time, disk and peak memory,
# and the ratio to format 5 measured in alternating rounds in one process.
# Format 5 is written first: the other layouts are compared with it.
# Usage: bash scripts/bench-closure.sh [MILLIONS] [LAYOUT...]
set -euo pipefail
cd "$(dirname "$0")/.."
millions="${1:-20}"
shift || true
layouts=("$@")
[ ${#layouts[@]} -gt 0 ] || layouts=(f5 plain-mmap plain cuckoo bb bb-mmap)
target="${CARGO_TARGET_DIR:-target}"
work="$target/bench-index"
mkdir -p "$work"
cargo build --release --example gen_dump --example bench_closure --bin qajudge
dump="$work/synthetic-${millions}m.nt"
[ -f "$dump" ] || "$target/release/examples/gen_dump" "$dump" "$millions"
index="$work/idx-${millions}m"
[ -d "$index" ] || "$target/release/qajudge" index build --out "$index" "$dump"
for layout in "${layouts[@]}"; do
  "$target/release/examples/bench_closure" "$index" "$work/closure-${millions}m" "$layout"
done
