#!/usr/bin/env bash
# sameAs.cc scale on one machine: examples/gen_dump.rs writes N million owl:sameAs
# statements (default 559, sameAs.cc's count) in sameAs.cc's shape into a named
# pipe, and `qajudge index build` reads the pipe: no dump is written to disk.
# Prints the build's phases, wall time and peak memory; as the baseline in the
# same run, the generator alone into /dev/null (what producing the text costs)
# and a build of a 20 M-statement dump of the same shape (the rate at a size
# everyone has memory for). The published figure it is compared with: the
# sameAs.cc closure took 5 hours on 2 cores for 558.9 M statements (31 k/s).
# Usage: bash scripts/bench-sameas-cc.sh [MILLIONS] [BUFFER_MB]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
millions="${1:-559}"
buffer="${2:-2048}"
target="${CARGO_TARGET_DIR:-target}"
work="$target/bench-sameas-cc"
mkdir -p "$work"
cargo build --release --example gen_dump --bin qajudge
gen="$target/release/examples/gen_dump"
qajudge="$target/release/qajudge"
timed() { /usr/bin/env time -f "%e s wall, %U s user, %S s system, peak RSS %M KiB" "$@"; }
echo "== baseline: the generator alone, 20 M statements into /dev/null"
timed "$gen" /dev/null 20 7 --shape sameas-cc
echo "== baseline: 20 M statements of the same shape through a pipe"
pipe="$work/links.nt"
rm -f "$pipe"
mkfifo "$pipe"
trap 'rm -f "$pipe"' EXIT
"$gen" "$pipe" 20 7 --shape sameas-cc &
timed "$qajudge" index build --buffer-mb "$buffer" --out "$work/idx-20m" "$pipe"
wait
rm -rf "$work/idx-20m"
echo "== $millions M statements through a pipe (--buffer-mb $buffer)"
"$gen" "$pipe" "$millions" 7 --shape sameas-cc &
timed "$qajudge" index build --buffer-mb "$buffer" --out "$work/idx-${millions}m" "$pipe"
wait
"$qajudge" index info "$work/idx-${millions}m" | head -20
du -sh "$work/idx-${millions}m"
