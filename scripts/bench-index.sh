#!/usr/bin/env bash
# Index benchmarks: builds a synthetic dump of N million statements (default 20)
# and the real DBpedia–GND link sets, timing each build (and its peak memory), then
# measures in-process sameAs and label lookups per second on the synthetic index.
# Each build prints its phases with their durations.
# Usage: bash scripts/bench-index.sh [MILLIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
millions="${1:-20}"
target="${CARGO_TARGET_DIR:-target}"
work="$target/bench-index"
mkdir -p "$work"
cargo build --release --example gen_dump --bin qajudge
dump="$work/synthetic-${millions}m.nt"
[ -f "$dump" ] || "$target/release/examples/gen_dump" "$dump" "$millions"
timed() {
  # prints wall seconds and peak RSS of a command
  /usr/bin/env time -f "%e s, peak RSS %M KiB" "$@"
}
echo "== synthetic, $millions million statements"
# baseline in the same run: reading the dump's lines without parsing them
echo "-- baseline: wc -l"
timed wc -l "$dump"
echo "-- index build (default buffer, 2 GiB of IRI text in memory)"
timed "$target/release/qajudge" index build --out "$work/idx-${millions}m" "$dump"
echo "-- index build with --buffer-mb 128 (IRI text spilled to disk)"
timed "$target/release/qajudge" index build --buffer-mb 128 --out "$work/idx-${millions}m-spilled" "$dump"
rm -rf "$work/idx-${millions}m-spilled"
if [ -d ../shared/data/rdf/dbpedia-links ]; then
  echo "== real: DBpedia–GND link sets (bz2)"
  timed "$target/release/qajudge" index build --out "$work/idx-gnd" \
    ../shared/data/rdf/dbpedia-links/dbpedia.org/dnb ../shared/data/rdf/dbpedia-links/xxx.dbpedia.org/de/dnb
fi
QAJUDGE_BENCH_INDEX="$work/idx-${millions}m" cargo bench --bench index
