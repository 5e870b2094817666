#!/usr/bin/env bash
# Speed of the micro-benchmark commands (docs/benchmarks.md, Micro-benchmarks), as
# ratios against a baseline measured in the same run (the machine is shared
# and noisy): `annotate --gold` of the same LC-QuAD files. Rounds interleave
# the jobs. Usage: scripts/bench-sample.sh [ROUNDS] (default 3).
# The binary: $QAJUDGE, else a build in $CARGO_TARGET_DIR (default target)
# with $PROFILE (debug or release, default debug).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
data=../shared/data
profile=${PROFILE:-debug}
if [[ -z "${QAJUDGE:-}" ]]; then
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
  if [[ $profile == release ]]; then cargo build --release -q; else cargo build -q; fi
  QAJUDGE=$CARGO_TARGET_DIR/$profile/qajudge
fi
for f in "$data/lcquad/train-data.json" "$data/lcquad/test-data.json" "$data/qaldgen/QaldGen-RDF.ttl.gz"; do
  [[ -f $f ]] || { echo "missing $f: the benchmark needs ../shared/data" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
listing=docs/listings/listing-1.2.rq
declare -A jobs=(
  [annotate]="annotate --gold $data/lcquad/train-data.json && \"\$Q\" annotate --gold $data/lcquad/test-data.json"
  [features]="features --gold $data/lcquad/train-data.json --format json && \"\$Q\" features --gold $data/lcquad/test-data.json --format json"
  [feasible]="sample $data/qaldgen/QaldGen-RDF.ttl.gz --query $listing --method feasible --size 200 --out \$OUT"
  [kmeans]="sample $data/qaldgen/QaldGen-RDF.ttl.gz --query $listing --method kmeans++ --trials 10 --size 200 --out \$OUT"
  [load]="sample $data/qaldgen/QaldGen-RDF.ttl.gz --query $listing --method random --size 200 --out \$OUT"
)
order=(annotate features load feasible kmeans)
declare -A total
for j in "${order[@]}"; do total[$j]=0; done
for ((r = 1; r <= rounds; r++)); do
  for j in "${order[@]}"; do
    OUT=$tmp/$j-$r
    start=$(date +%s.%N)
    Q=$QAJUDGE OUT=$OUT bash -c "\"\$Q\" ${jobs[$j]}" >/dev/null
    end=$(date +%s.%N)
    total[$j]=$(echo "${total[$j]} + $end - $start" | bc -l)
  done
done
base=$(echo "${total[annotate]} / $rounds" | bc -l)
printf '%-10s %10s %8s\n' job "mean s" ratio
for j in "${order[@]}"; do
  mean=$(echo "${total[$j]} / $rounds" | bc -l)
  printf '%-10s %10.3f %8.2f\n' "$j" "$mean" "$(echo "$mean / $base" | bc -l)"
done
echo "($profile build, $rounds rounds; ratio: mean over annotate of the same 5,000 LC-QuAD questions)"
