#!/usr/bin/env bash
# T2S-Metrics 1.2.0's query-text measures on the nine CK25 team files, as
# src/eval/text/t2s.rs checks them: writes ck25-text.json beside this script.
# Usage: ck25_text.sh VENV CK25_DIR KG_TTL   (VENV has `pip install t2s-metrics==1.2.0`;
# the CLI wants an execution graph even for text measures, and the QCan jar's
# path to exist: an empty placeholder, as no QCan measure is asked for).
set -euo pipefail
venv=$1 ck25=$2 kg=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/third_party_lib" && : > "$work/third_party_lib/qcan-1.1-jar-with-dependencies.jar"
cd "$work"
"$venv/bin/t2s" run -d ck25 -j "$ck25" --eg "$kg" --eq --ep "$work/out" -m \
    bleu sp-bleu sp-f1 rouge_4 token_precision token_recall token_f1 \
    levenshtein jaccard cosine_sim euclidean query_exact_match > "$work/log" 2>&1
"$venv/bin/python" - "$work/out" "$here/ck25-text.json" <<'PY'
import json, os, sys
out, target = sys.argv[1], sys.argv[2]
runs = json.load(open(os.path.join(out, os.listdir(out)[0])))
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
