#!/usr/bin/env bash
# Writes the outputs a behaviour-preserving change must leave byte-identical
# (timings and versions masked) into OUT_DIR: evaluate on the built-in example
# with and without the demo index, every NLIWOD and MQALD run under every
# profile, annotate --gold of QALD-9 train, index info and 1,000 sameas answers
# of an index built from ../shared/data/rdf. Compare two snapshots with
# `diff -r A B`.
#
#   bash scripts/behaviour-snapshot.sh QAJUDGE_BINARY OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "$1")"
out="$2"
data=../shared/data
if [ ! -d "$data" ]; then
  echo "error: $data is missing: the snapshot reads the real benchmarks there" >&2
  exit 1
fi
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# timings and versions differ between builds and runs: mask them
mask() {
  sed -E \
    -e 's/"(version|built_by)": *"[^"]*"/"\1": "*"/g' \
    -e 's/"(built_at|runtime_ms_mean|seconds|elapsed_ms)": *[0-9.e+-]+/"\1": 0/g' \
    -e "s|$work/|WORK/|g" \
    -e 's/qajudge [0-9]+\.[0-9]+\.[0-9]+/qajudge *.*.*/g'
}

run() { # name, args...
  local name="$1"
  shift
  set +e
  "$bin" "$@" >"$work/stdout" 2>"$work/stderr"
  echo "exit $?" >"$out/$name.exit"
  set -e
  mask <"$work/stdout" >"$out/$name.out"
  mask <"$work/stderr" >"$out/$name.err"
}

demo=tests/data/demo
"$bin" index build --out "$work/demo-index" "$demo/kg.ttl" >/dev/null 2>&1
for fmt in json table csv; do
  run "demo-$fmt" evaluate --gold "$demo/gold.json" --run "$demo/example-system.json" \
    --run "$demo/cross-graph.json" --format "$fmt" --per-question --explain
  run "demo-index-$fmt" evaluate --gold "$demo/gold.json" --run "$demo/example-system.json" \
    --run "$demo/cross-graph.json" --index "$work/demo-index" --format "$fmt" --per-question --explain
done
for profile in judge gerbil mqald; do
  run "demo-index-$profile" evaluate --gold "$demo/gold.json" --run "$demo/example-system.json" \
    --index "$work/demo-index" --format json --profile "$profile" --explain
  for q in 8 9; do
    gold="$data/qald/$q/qald-$q-train-multilingual.json"
    for run_file in "$data"/systems/nliwod/qald$q/*.json; do
      run "nliwod-$(basename "$run_file" .json)-$profile" evaluate --gold "$gold" \
        --run "$run_file" --format json --profile "$profile" --explain --by form --by answertype
    done
  done
  for run_file in "$data"/mqald/out/*.json; do
    run "mqald-$(basename "$run_file" .json)-$profile" evaluate --gold "$data/mqald/MQALD.json" \
      --run "$run_file" --format json --profile "$profile" --explain --by tags
  done
done
run "annotate-qald9-train" annotate --gold "$data/qald/9/qald-9-train-multilingual.json"
run "check-qald9-train" check "$data/qald/9/qald-9-train-multilingual.json"

"$bin" index build --lenient --out "$work/rdf-index" "$data/rdf" >/dev/null 2>"$work/build.err" || true
run "index-info" index info "$work/rdf-index"
# 1,000 IRIs: the first ones of every N-Triples link file (subjects and objects)
iris="$work/iris.txt"
set +o pipefail
for f in $(find "$data/rdf" -name '*.nt.bz2' | sort); do
  bzcat "$f" 2>/dev/null | head -n 200 || true
done | grep -oE '<[^>]+>' | tr -d '<>' | grep -v 'www.w3.org' | awk '!seen[$0]++' | head -n 1000 >"$iris"
set -o pipefail
xargs -a "$iris" -d '\n' "$bin" sameas --index "$work/rdf-index" --limit 20 >"$out/sameas-1000.out" 2>"$out/sameas-1000.err" || echo "sameas failed" >>"$out/sameas-1000.err"
wc -l <"$iris" >"$out/sameas-iris.count"
