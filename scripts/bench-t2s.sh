#!/usr/bin/env bash
# The `t2s-metrics` profile against T2S-Metrics 1.2.0 itself, both timed in
# this run on one CK25 team file (50 cases), loading the graph and executing
# both queries of every case included: `qajudge evaluate --profile
# t2s-metrics` (release binary) against `t2s run` asking the measures the
# profile computes (every one that needs no network and no language model;
# QCan's need a jar that is not distributed) on the same graph, `meteor` on
# both sides with Debian's WordNet 3.0 (scripts/t2s-offline.sh: T2S-Metrics
# with its per-case nltk.download skipped). Each is run REPS times; the
# medians and their ratio are printed.
# Usage:
#   bash scripts/bench-t2s.sh [TEAM] [REPS]     (default AIFB, 5)
# Needs ../shared/data, /usr/share/wordnet (Debian's wordnet-base) and
# T2S-Metrics 1.2.0 in a venv
# ($T2S_VENV, default $HOME/.cache/qajudge/target/venv-t2s:
#   python3.12 -m venv DIR && DIR/bin/pip install t2s-metrics==1.2.0).
set -euo pipefail
cd "$(dirname "$0")/.."
team="${1:-AIFB}"
reps="${2:-5}"
venv="${T2S_VENV:-$HOME/.cache/qajudge/target/venv-t2s}"
target="${CARGO_TARGET_DIR:-target}"
data_dir=$(cd ../shared/data && pwd)
run="$data_dir/text2sparql/t2s-metrics/ck25/$team.jsonl"
kg="$data_dir/text2sparql/kg"
[ -f "$run" ] || { echo "error: $run is missing (../shared/data)" >&2; exit 1; }
[ -x "$venv/bin/t2s" ] || { echo "error: no t2s in $venv; install t2s-metrics==1.2.0 there or set T2S_VENV" >&2; exit 1; }
cargo build --release --bin qajudge
qajudge="$(pwd)/$target/release/qajudge"
[ -x "$qajudge" ] || qajudge="$target/release/qajudge"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# its CLI wants the QCan jar's path to exist even when no QCan measure is asked
mkdir -p "$work/third_party_lib" && : > "$work/third_party_lib/qcan-1.1-jar-with-dependencies.jar"
# its rdflib backend reads one file: the two files of the CK25 graph joined
cat "$kg/prod-inst.ttl" "$kg/prod-vocab.ttl" > "$work/ck25.ttl"
bash scripts/t2s-offline.sh "$venv" "$work"
export NLTK_DATA="$work/nltk_data"
measures=(bleu sp-bleu sp-f1 rouge_4 token_precision token_recall token_f1
  levenshtein jaccard cosine_sim euclidean query_exact_match meteor
  naive-can-bleu naive-can-rouge-4 codebleu
  answerset_precision answerset_recall answerset_f1 precision_qald recall_qald f1_qald
  f1_spinach exact_match_spinach hit@1 mrr p@1 ndcg query_execution uri_hallucination)

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ours=() theirs=()
for i in $(seq 1 "$reps"); do
  s=$(now)
  "$qajudge" evaluate --profile t2s-metrics --format json --run "$run" \
    --kg "$kg/prod-inst.ttl" "$kg/prod-vocab.ttl" --wordnet /usr/share/wordnet > "$work/ours.json"
  e=$(now)
  ours+=("$(echo "$e - $s" | bc -l)")
  s=$(now)
  (cd "$work" && "$venv/bin/python" "$work/t2s.py" run -d ck25 -j "$run" --eg "$work/ck25.ttl" \
    --ep "$work/out$i" -m "${measures[@]}" > "$work/t2s.log" 2>&1)
  e=$(now)
  theirs+=("$(echo "$e - $s" | bc -l)")
  echo "round $i: qajudge ${ours[-1]} s, t2s ${theirs[-1]} s"
done
mo=$(printf '%s\n' "${ours[@]}" | median)
mt=$(printf '%s\n' "${theirs[@]}" | median)
echo "== $team ($reps rounds, medians)"
echo "qajudge evaluate --profile t2s-metrics: $mo s"
echo "t2s run (T2S-Metrics 1.2.0):            $mt s"
echo "ratio: $(echo "$mt / $mo" | bc -l | awk '{printf "%.1f", $1}')x"
