#!/usr/bin/env bash
# Coverage-guided fuzzing of one input parser with AFL++ (cargo-afl, stable
# toolchain): `bash scripts/fuzz.sh TARGET SECONDS`, or `all SECONDS` for every
# target one after the other. Installs cargo-afl and builds AFL++ once, builds
# the instrumented `fuzz/` package (its own target directory; the first build
# compiles RocksDB once more, ~15 minutes), seeds the target with the real files
# of ../shared/data (scripts/fuzz-seeds.py), and runs afl-fuzz for SECONDS on one
# core, resuming where the last run of the target stopped. Exits 1 when the run
# found a crash that the current build still has, and lists them: each becomes
# a regression test next to the parser. Targets: qald_json qald_xml lcquad rubq text2sparql ntriples sparql
# canonical index (what each checks: fuzz/src/lib.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(qald_json qald_xml lcquad rubq text2sparql ntriples sparql canonical index)
if [ $# -ne 2 ] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: bash scripts/fuzz.sh TARGET SECONDS (TARGET: all ${targets[*]})" >&2
  exit 2
fi
target_name="$1"
seconds="$2"
if [ "$target_name" = all ]; then
  status=0
  for t in "${targets[@]}"; do bash "$0" "$t" "$seconds" || status=1; done
  exit $status
fi
if ! printf '%s\n' "${targets[@]}" | grep -qx "$target_name"; then
  echo "error: unknown fuzz target '$target_name'; choose one of ${targets[*]}" >&2
  exit 2
fi
data="../shared/data"
if [ ! -d "$data" ]; then
  echo "error: $data is missing: the fuzz targets are seeded with its real files" >&2
  exit 1
fi
bash scripts/install-deps.sh --python
afl_version="0.18.2"
if ! cargo afl --version 2>/dev/null | grep -q "$afl_version"; then
  cargo install --locked cargo-afl --version "$afl_version"
fi
# builds AFL++ and its runtime once per toolchain ("already built" otherwise)
if ! out=$(cargo afl config --build 2>&1) && ! grep -q "already built" <<<"$out"; then
  echo "$out" >&2
  exit 1
fi
build="${CARGO_TARGET_DIR:-$PWD/target}"
work="$build/fuzz-work/$target_name"
export CARGO_TARGET_DIR="$build/fuzz"
cargo afl build --release --manifest-path fuzz/Cargo.toml --bin "$target_name"
mkdir -p "$work"
input=(-i "$work/seeds")
if [ -d "$work/out/default/queue" ]; then
  input=(-i -) # resume
else
  rm -rf "$work/seeds"
  python3 scripts/fuzz-seeds.py "$target_name" "$data" "$work/seeds"
fi
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1
cargo afl fuzz "${input[@]}" -o "$work/out" -V "$seconds" -- "$CARGO_TARGET_DIR/release/$target_name" >"$work/afl.log" 2>&1 || {
  tail -20 "$work/afl.log" >&2
  exit 1
}
stats="$work/out/default/fuzzer_stats"
grep -E "^(run_time|execs_done|execs_per_sec|corpus_count|bitmap_cvg|saved_crashes|saved_hangs) " "$stats"
# every crash saved by this or an earlier run is replayed on the current build:
# one fixed since (it has its regression test) no longer counts
crashes=()
fixed=0
while IFS= read -r file; do
  if "$CARGO_TARGET_DIR/release/$target_name" <"$file" >/dev/null 2>&1; then
    fixed=$((fixed + 1))
  else
    crashes+=("$file")
  fi
done < <(find "$work/out/default/crashes" -type f -name 'id:*' | sort)
[ "$fixed" -eq 0 ] || echo "$target_name: $fixed saved crash(es) no longer crash the current build"
if [ ${#crashes[@]} -gt 0 ]; then
  echo "crashes of $target_name (replay one: $CARGO_TARGET_DIR/release/$target_name < FILE):" >&2
  printf '%s\n' "${crashes[@]}" >&2
  exit 1
fi
echo "$target_name: no crash in $seconds s"
