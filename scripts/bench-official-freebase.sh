#!/usr/bin/env bash
# The Freebase official profiles (webqsp, grailqa, cwq, rog, tog) against the official Python scripts, side by side on the
# same files built from the samples in ../shared/data/freebase (docs/benchmarks.md,
# "Official scripts"): each is timed three times, the best time kept, and the
# ratio printed with both programs' headline figure (they must agree).
#
# Usage: scripts/bench-official-freebase.sh [OFFICIAL_DIR]
#   OFFICIAL_DIR holds the scripts as their repositories publish them (docs/scoring.md,
#   "Other benchmark families", names each repository, path and commit):
#     webqsp/eval.py  grailqa/grail_evaluate.py  cwq/eval_script.py
#     rog/evaluate_results.py  tog/eval.py  tog/utils.py
#   (default: $CARGO_TARGET_DIR/official-scripts). Python 3 packages go into the venv
#   $CARGO_TARGET_DIR/venv-official (networkx, pandas<2, numpy<2, scikit-learn);
#   WebQSP's script is Python 2 and runs with pyenv's 2.7.18 (PYENV_VERSION).
# qajudge is built with --release. Files are written under $CARGO_TARGET_DIR/bench-official.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${CARGO_TARGET_DIR:-target}
OFF=${1:-$T/official-scripts}
DATA=../shared/data/freebase
WORK=$T/bench-official
VENV=$T/venv-official
for f in webqsp/eval.py grailqa/grail_evaluate.py cwq/eval_script.py rog/evaluate_results.py tog/eval.py tog/utils.py; do
  [[ -f $OFF/$f ]] || { echo "missing $OFF/$f: put the official scripts there (docs/scoring.md names where each comes from)" >&2; exit 2; }
done
[[ -d $DATA ]] || { echo "missing $DATA: the shared data is needed" >&2; exit 2; }
if [[ ! -x $VENV/bin/python ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q networkx "pandas<2" "numpy<2" scikit-learn
fi
PY=$(cd "$VENV/bin" && pwd)/python
cargo build --release --bin qajudge -q
Q=$T/release/qajudge
# our own folder: created here, or one this script made before (its marker)
if [[ -e $WORK && ! -f $WORK/.bench-official ]]; then
  echo "$WORK exists and was not made by this script; move it away" >&2; exit 2
fi
mkdir -p "$WORK/tog/data" "$WORK/tog/eval" "$WORK/rog"
touch "$WORK/.bench-official"
cp "$OFF/tog/eval.py" "$OFF/tog/utils.py" "$WORK/tog/eval/"

# the inputs: real questions, predictions written by rule (half right)
"$PY" - "$DATA" "$WORK" <<'PY'
import json, sys
data, work = sys.argv[1], sys.argv[2]
# GrailQA: odd questions predicted with the next one's form and answers
g = json.load(open(f"{data}/tog/grailqa-dev-1000.json"))
shift = {}
for i, q in enumerate(g):
    src = g[(i + 1) % len(g)] if i % 2 else q
    ans = [a["answer_argument"] for a in src["answer"]] if src["answer"] != "null" else []
    shift[str(q["qid"])] = {"logical_form": src["s_expression"], "answer": ans[:1] if i % 3 == 0 else ans}
json.dump(shift, open(f"{work}/grailqa-pred.json", "w"))
# WebQuestions (ToG's shape) for RoG and ToG
w = json.load(open(f"{data}/tog/webquestions-test.json"))
with open(f"{work}/rog/predictions.jsonl", "w") as f:
    for i, q in enumerate(w):
        pred = "\n".join(reversed(q["answers"])) if i % 2 == 0 else "I do not know"
        f.write(json.dumps({"id": str(i), "question": q["question"], "prediction": pred, "ground_truth": q["answers"]}) + "\n")
json.dump(w, open(f"{work}/tog/data/WebQuestions.json", "w"))
json.dump([{"question": q["question"], "results": "{%s}" % q["answers"][0] if i % 2 == 0 else "I do not know"}
           for i, q in enumerate(w)], open(f"{work}/tog/eval/ToG_webquestions.json", "w"))
# CWQ in the official shape, from ToG's copy (one name per question)
c = json.load(open(f"{data}/tog/cwq-test.json"))
json.dump([{"ID": q["ID"], "question": q["question"], "answers": [{"answer": q["answer"], "answer_id": "m.x", "aliases": []}]} for q in c],
          open(f"{work}/cwq.json", "w"))
json.dump([{"ID": q["ID"], "answer": q["answer"].lower() if i % 2 == 0 else "x"} for i, q in enumerate(c)],
          open(f"{work}/cwq-pred.json", "w"))
# WebQSP: the partial files' questions, every parse counted, null answers empty
qs = []
for split in ("train", "test"):
    for q in json.load(open(f"{data}/webqsp/WebQSP.{split}.partial.json", encoding="utf-8-sig"))["Questions"]:
        for p in q["Parses"]:
            p["AnnotatorComment"].update(QuestionQuality="Good", ParseQuality="Complete")
            p["Answers"] = p["Answers"] or []
        qs.append(q)
json.dump({"Version": "1.0", "Questions": qs}, open(f"{work}/webqsp.json", "w"))
json.dump([{"QuestionId": q["QuestionId"], "Answers": [a["AnswerArgument"] for a in q["Parses"][0]["Answers"]] if i % 2 == 0 else []}
           for i, q in enumerate(qs)], open(f"{work}/webqsp-pred.json", "w"))
PY

# the best of three wall times of a command, in seconds
best() {
  local b=
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N); "$@" > /dev/null 2>&1 || true; e=$(date +%s.%N)
    b=$(awk -v b="$b" -v t="$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')" 'BEGIN{print (b=="" || t<b) ? t : b}')
  done
  echo "$b"
}
# qajudge's official figure NAME of a run
figure() { "$Q" evaluate --format json "${@:2}" 2>/dev/null | "$PY" -c "import json,sys; print(json.load(sys.stdin)['runs'][0]['experiments']['qa']['aggregate']['official']['$1'])"; }
row() { awk -v n="$1" -v p="$2" -v q="$3" -v pf="$4" -v qf="$5" 'BEGIN{printf "| %s | %.3f s | %.3f s | %.0f× | %s | %s |\n", n, p, q, p/q, pf, qf}'; }

ONT=$DATA/grailqa/ontology
echo "| profile (files) | official script | qajudge | ratio | script's figure | qajudge's |"
echo "|---|---|---|---|---|---|"
p=$(best "$PY" "$OFF/grailqa/grail_evaluate.py" "$DATA/tog/grailqa-dev-1000.json" "$WORK/grailqa-pred.json" --fb_roles "$ONT/fb_roles" --fb_types "$ONT/fb_types" --reverse_properties "$ONT/reverse_properties")
q=$(best "$Q" evaluate --format json --profile grailqa --ontology "$ONT" --gold "$DATA/tog/grailqa-dev-1000.json" --run "$WORK/grailqa-pred.json")
pf=$("$PY" "$OFF/grailqa/grail_evaluate.py" "$DATA/tog/grailqa-dev-1000.json" "$WORK/grailqa-pred.json" --fb_roles "$ONT/fb_roles" --fb_types "$ONT/fb_types" --reverse_properties "$ONT/reverse_properties" | tail -1 | sed "s/.*'f1': \([0-9.]*\).*/f1 \1/")
qf="f1 $(figure f1 --profile grailqa --ontology "$ONT" --gold "$DATA/tog/grailqa-dev-1000.json" --run "$WORK/grailqa-pred.json")"
row "grailqa (1,000 dev q)" "$p" "$q" "$pf" "$qf"

p=$(best "$PY" "$OFF/rog/evaluate_results.py" -d "$WORK/rog/predictions.jsonl" --cal_f1)
q=$(best "$Q" evaluate --format json --profile rog --run "$WORK/rog/predictions.jsonl")
pf=$("$PY" "$OFF/rog/evaluate_results.py" -d "$WORK/rog/predictions.jsonl" --cal_f1 | sed 's/.* Hit: \([0-9.]*\).*/Hit \1/')
qf="Hit $(figure Hit --profile rog --run "$WORK/rog/predictions.jsonl")"
row "rog (2,032 WebQuestions)" "$p" "$q" "$pf" "$qf"

p=$(best bash -c "cd '$WORK/tog/eval' && '$PY' eval.py --dataset webquestions --output_file ToG_webquestions.json")
q=$(best "$Q" evaluate --format json --profile tog --gold "$DATA/tog/webquestions-test.json" --run "$WORK/tog/eval/ToG_webquestions.json")
pf=$(cd "$WORK/tog/eval" && "$PY" eval.py --dataset webquestions --output_file ToG_webquestions.json 2>/dev/null | head -1 | sed 's/Exact Match: /EM /' || true)
qf="EM $(figure 'Exact Match' --profile tog --gold "$DATA/tog/webquestions-test.json" --run "$WORK/tog/eval/ToG_webquestions.json")"
row "tog (2,032 WebQuestions)" "$p" "$q" "$pf" "$qf"

p=$(best "$PY" "$OFF/cwq/eval_script.py" "$WORK/cwq.json" "$WORK/cwq-pred.json")
q=$(best "$Q" evaluate --format json --profile cwq --gold "$WORK/cwq.json" --run "$WORK/cwq-pred.json")
pf="P1 $("$PY" -W ignore "$OFF/cwq/eval_script.py" "$WORK/cwq.json" "$WORK/cwq-pred.json" 2>/dev/null | tail -1 || true)"
qf="P1 $(figure P1 --profile cwq --gold "$WORK/cwq.json" --run "$WORK/cwq-pred.json")"
row "cwq (3,531 test q)" "$p" "$q" "$pf" "$qf"

if PYENV_VERSION=2.7.18 python2 -c 'pass' 2> /dev/null; then
  p=$(best env PYENV_VERSION=2.7.18 python2 "$OFF/webqsp/eval.py" "$WORK/webqsp.json" "$WORK/webqsp-pred.json")
  q=$(best "$Q" evaluate --format json --profile webqsp --gold "$WORK/webqsp.json" --run "$WORK/webqsp-pred.json")
  pf=$(PYENV_VERSION=2.7.18 python2 "$OFF/webqsp/eval.py" "$WORK/webqsp.json" "$WORK/webqsp-pred.json" | grep 'f1 over' | sed 's/.*: /average_f1 /' || true)
  qf="average_f1 $(figure average_f1 --profile webqsp --gold "$WORK/webqsp.json" --run "$WORK/webqsp-pred.json")"
  row "webqsp (1,073 partial q)" "$p" "$q" "$pf" "$qf"
else
  echo "| webqsp | no Python 2.7 (pyenv 2.7.18) here: eval.py is Python 2 | | | | |"
fi
