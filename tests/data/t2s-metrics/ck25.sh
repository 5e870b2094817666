#!/usr/bin/env bash
# T2S-Metrics 1.2.0's measures on the nine CK25 team files, as
# src/eval/text/t2s.rs and tests/integration/t2s_metrics.rs check them: writes
# ck25.json beside this script (per team: every measure of every case, and the
# means of its MeanAggregator) and ck25-uris.json (per team and case, the IRIs
# its `extract_uris` finds in the generated query, sorted).
# Usage: ck25.sh VENV CK25_DIR KG_DIR
#   VENV has `pip install t2s-metrics==1.2.0` (python 3.12); CK25_DIR holds the
#   nine team files; KG_DIR holds prod-inst.ttl and prod-vocab.ttl, which are
#   joined into the one Turtle file its rdflib backend executes the queries on.
# Every measure that needs no network and no language model is asked for:
# `meteor` is left out (it downloads WordNet with nltk.download), `qcan-*` need
# a Java jar that is not distributed, `llm_judge` an Ollama server. The CLI
# wants the QCan jar's path to exist even so: an empty placeholder.
# Made with: tests/data/t2s-metrics/ck25.sh ~/.cache/qajudge/target/venv-t2s \
#   ../shared/data/text2sparql/t2s-metrics/ck25 ../shared/data/text2sparql/kg
set -euo pipefail
venv=$1 ck25=$(cd "$2" && pwd) kg=$(cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/third_party_lib" && : > "$work/third_party_lib/qcan-1.1-jar-with-dependencies.jar"
cat "$kg/prod-inst.ttl" "$kg/prod-vocab.ttl" > "$work/ck25.ttl"
cd "$work"
measures="bleu sp-bleu sp-f1 rouge_4 token_precision token_recall token_f1
    levenshtein jaccard cosine_sim euclidean query_exact_match
    naive-can-bleu naive-can-rouge-4 codebleu
    answerset_precision answerset_recall answerset_f1 precision_qald recall_qald f1_qald
    f1_spinach exact_match_spinach hit@1 mrr p@1 ndcg query_execution uri_hallucination"
# one team file per run (two at a time), each exported to out/TEAM/
export venv work measures
ls "$ck25"/*.jsonl | xargs -P 2 -I{} sh -c '
    team=$(basename "{}" .jsonl)
    "$venv/bin/t2s" run -d ck25 -j "{}" --eg "$work/ck25.ttl" --eq --ep "$work/out/$team" \
        -m $measures > "$work/$team.log" 2>&1 ||
        { echo "t2s failed on $team:" >&2; tail -20 "$work/$team.log" >&2; exit 255; }'
"$venv/bin/python" - "$work/out" "$here/ck25.json" <<'PY'
import json, os, sys
out, target = sys.argv[1], sys.argv[2]
runs = []
for team in sorted(os.listdir(out)):
    d = os.path.join(out, team)
    runs += json.load(open(os.path.join(d, os.listdir(d)[0])))
per_query, means = {}, {}
for run in runs:
    team = os.path.basename(run["system_name"]).removesuffix(".jsonl")
    means[team] = run["metrics"]
    ids = per_query.setdefault(team, {})
    for r in run["per_query_results"]:
        ids.setdefault(r["id"], {})[r["metric"]] = r["score"]
json.dump({"tool": "t2s-metrics 1.2.0", "per_query": per_query, "means": means},
          open(target, "w"), sort_keys=True, indent=0)
PY
"$venv/bin/python" - "$ck25" "$here/ck25-uris.json" <<'PY'
import glob, json, os, sys
from t2smetrics.representation.uri_utils import extract_uris
out = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    team = os.path.basename(f).removesuffix(".jsonl")
    for line in open(f):
        row = json.loads(line)
        out.setdefault(team, {})[row["id"]] = sorted(extract_uris(row["generated"]))
json.dump(out, open(sys.argv[2], "w"), sort_keys=True, indent=0)
PY
