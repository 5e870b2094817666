#!/usr/bin/env bash
# Speed of the profiles that reproduce official evaluation scripts, side by
# side with the scripts themselves (docs/benchmarks.md, issue 40), as ratios
# measured in the same run: `qajudge evaluate --profile P` against the
# official Python script on the same files, rounds interleaved.
#   spinach: SPINACH's real runs on QALD-10 (387 q) and QALD-7 (45 q, a gold
#            table of 7,634 rows), eval.py's f1 summed as calculate_metrics does
#   mintaka: kg and text modes on a test set of the 4,000 ids of Mintaka's
#            example predictions (the gold files are not in ../shared/data:
#            the script writes one in the dataset's shape from the predictions)
#   kqapro:  20,000 questions and predictions written by the script
# The official scripts come from git mirrors of their repositories at the
# commits the profiles follow: $OFFICIAL_MIRRORS/<owner>+<repo>/repo (default
# /work/.mirror, filled by the project's `fetch` tool), or give a directory
# holding spinach/eval.py, mintaka/evaluate.py and kqapro/evaluate.py in
# $OFFICIAL_SCRIPTS. Python packages go to a venv under target/.
# Usage: scripts/bench-official.sh [ROUNDS] (default 3). The binary: $QAJUDGE,
# else a release build in $CARGO_TARGET_DIR (default /root/.cache/qajudge-rel).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
data=../shared/data
[[ -d $data/wikidata/spinach ]] || { echo "missing $data/wikidata/spinach: the benchmark needs ../shared/data" >&2; exit 1; }
if [[ -z "${QAJUDGE:-}" ]]; then
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/root/.cache/qajudge-rel}
  cargo build --release -q
  QAJUDGE=$CARGO_TARGET_DIR/release/qajudge
fi
venv=target/venv-official
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'numpy<2' scipy 'pandas<2' regex tqdm
fi
py=$venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scripts=${OFFICIAL_SCRIPTS:-}
if [[ -z $scripts ]]; then
  scripts=$work/official
  mirrors=${OFFICIAL_MIRRORS:-/work/.mirror}
  mkdir -p "$scripts"/{spinach,mintaka,kqapro}
  show() { git --git-dir="$mirrors/$1/repo" show "$2:$3" > "$4"; }
  show stanford-oval+spinach 8bb2d9cfa7f54b7b63ba5e6acd8264fdb7f8ecf9 eval.py "$scripts/spinach/eval.py"
  show amazon-science+mintaka b6146ffb41562803c45df3c028b4cdad8c09dd4d evaluate/evaluate.py "$scripts/mintaka/evaluate.py"
  show shijx12+KQAPro_Baselines 14d87cd22eb79f702fd4ad5c09240bef126d9dce evaluate.py "$scripts/kqapro/evaluate.py"
fi
# eval.py imports chainlite only for a logger
mkdir -p "$work/stub/chainlite"
printf 'import logging\ndef get_logger(name):\n    return logging.getLogger(name)\n' > "$work/stub/chainlite/__init__.py"
cat > "$work/spinach.py" <<'PY'
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from eval import f1
d = json.load(open(sys.argv[3]))
tot = 0.0; em = 0; none = 0
for e in d:
    v = f1(e["predicted_answer_tuple"], e["gold_answer_tuple"])
    tot += v; em += v == 1; none += not e["predicted_answer_tuple"]
n = len(d)
print(f"row-major F1 = {tot * 100 / n:0.2f}%  EM = {em * 100 / n:.2f}%  none = {none * 100 / n:.2f}%")
PY
# the Mintaka and KQA Pro inputs
"$py" - "$data/wikidata/mintaka" "$work" <<'PY'
import json, os, random, sys
src, out = sys.argv[1], sys.argv[2]
kg = json.load(open(os.path.join(src, "example_kg_predictions.json")))
text = json.load(open(os.path.join(src, "example_text_predictions.json")))
test = []
for i, (k, v) in enumerate(sorted(kg.items())):
    if isinstance(v, str) and v.startswith("Q"):
        label = text.get(k) or "x"
        answer = {"answerType": "entity", "answer": [{"name": v, "label": {"en": label, "de": None}}], "mention": label}
    elif v is None:
        answer = {"answerType": "entity", "answer": None, "mention": text.get(k) or "x"}
    else:
        answer = {"answerType": "numerical", "answer": v if isinstance(v, list) else [v], "mention": str(v)}
    if i % 3 == 0:  # a third of the gold differs from the prediction
        answer = {"answerType": "string", "answer": ["other"], "mention": "other"}
    test.append({"id": k, "question": "q" + k, "answer": answer})
json.dump(test, open(os.path.join(out, "mintaka-test.json"), "w"))
random.seed(0)
os.makedirs(os.path.join(out, "kqa"), exist_ok=True)
funcs = ["Find", "Relate", "QFilterYear", "SelectAmong", "And", "Count", "VerifyNum", "QueryAttr", "FilterNum"]
gold, train, preds = [], [], []
for i in range(20000):
    a = random.choice(["100 meters", "2001-05-03", "Paris", "5", "yes", str(i)])
    gold.append({"question": f"q{i}", "program": [{"function": f, "dependencies": [], "inputs": []} for f in random.sample(funcs, 3)], "answer": a})
    preds.append(random.choice([a, "100.0 meters", "2001", "no", "05"]))
train = [{"answer": "yes"}, {"answer": "Paris"}]
json.dump(gold, open(os.path.join(out, "kqa", "test_answer.json"), "w"))
json.dump(train, open(os.path.join(out, "kqa", "train.json"), "w"))
open(os.path.join(out, "kqa-pred.txt"), "w").write("\n".join(preds) + "\n")
PY
sp=$data/wikidata/spinach
mk=$data/wikidata/mintaka
declare -A jobs=(
  [spinach-q10-python]="$py $work/spinach.py $scripts/spinach $work/stub $sp/qald10-en-spinach-run.json"
  [spinach-q10-qajudge]="$QAJUDGE evaluate --run $sp/qald10-en-spinach-run.json --profile spinach --format json"
  [spinach-q7-python]="$py $work/spinach.py $scripts/spinach $work/stub $sp/qald7-task4-spinach-run.json"
  [spinach-q7-qajudge]="$QAJUDGE evaluate --run $sp/qald7-task4-spinach-run.json --profile spinach --format json"
  [mintaka-kg-python]="$py $scripts/mintaka/evaluate.py --mode kg --path_to_test_set $work/mintaka-test.json --path_to_predictions $mk/example_kg_predictions.json --lang en"
  [mintaka-kg-qajudge]="$QAJUDGE evaluate --gold $work/mintaka-test.json --run $mk/example_kg_predictions.json --profile mintaka --format json"
  [mintaka-text-python]="$py $scripts/mintaka/evaluate.py --mode text --path_to_test_set $work/mintaka-test.json --path_to_predictions $mk/example_text_predictions.json --lang en"
  [mintaka-text-qajudge]="$QAJUDGE evaluate --gold $work/mintaka-test.json --run $mk/example_text_predictions.json --profile mintaka-text --format json"
  [kqapro-python]="$py $scripts/kqapro/evaluate.py $work/kqa $work/kqa-pred.txt"
  [kqapro-qajudge]="$QAJUDGE evaluate --gold $work/kqa/test_answer.json --train $work/kqa/train.json --run $work/kqa-pred.txt --profile kqapro --format json"
)
order=(spinach-q10 spinach-q7 mintaka-kg mintaka-text kqapro)
declare -A total
for k in "${!jobs[@]}"; do total[$k]=0; done
for ((r = 1; r <= rounds; r++)); do
  for j in "${order[@]}"; do
    for side in python qajudge; do
      start=$(date +%s.%N)
      ${jobs[$j-$side]} >/dev/null 2>&1
      end=$(date +%s.%N)
      total[$j-$side]=$(echo "${total[$j-$side]} + $end - $start" | bc -l)
    done
  done
done
printf '%-14s %12s %12s %10s\n' job python_s qajudge_s ratio
for j in "${order[@]}"; do
  p=$(echo "${total[$j-python]} / $rounds" | bc -l)
  q=$(echo "${total[$j-qajudge]} / $rounds" | bc -l)
  printf '%-14s %12.3f %12.3f %9.1fx\n' "$j" "$p" "$q" "$(echo "$p / $q" | bc -l)"
done
