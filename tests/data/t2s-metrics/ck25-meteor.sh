#!/usr/bin/env bash
# T2S-Metrics 1.2.0's `meteor` measure (NLTK 3.10.4's meteor_score with
# WordNet) on the nine CK25 team files, made offline with Debian's WordNet 3.0:
# writes ck25-meteor.json beside this script (per team: the score of every
# case, and the mean of its MeanAggregator as its JSON export gives it).
# Usage: ck25-meteor.sh VENV CK25_DIR WORDNET_DIR
#   VENV has `pip install t2s-metrics==1.2.0` (python 3.12, nltk 3.10.4);
#   CK25_DIR holds the nine team files; WORDNET_DIR is Debian's wordnet-base
#   dictionary (/usr/share/wordnet: index.*, data.*, *.exc).
# scripts/t2s-offline.sh lays the dictionary out as NLTK's reader wants it and
# writes the `t2s` entry point with nltk.download a no-op (its Meteor downloads
# WordNet on every case; the scores are the same without the no-op).
# The CLI wants an execution backend even for measures that execute nothing
# (an empty Turtle file) and the QCan jar's path to exist (an empty placeholder).
# Made with: tests/data/t2s-metrics/ck25-meteor.sh ~/.cache/qajudge/target/venv-t2s \
#   ../shared/data/text2sparql/t2s-metrics/ck25 /usr/share/wordnet
set -euo pipefail
venv=$1 ck25=$(cd "$2" && pwd) wordnet=$(cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$here/../../../scripts/t2s-offline.sh" "$venv" "$work" "$wordnet"
export NLTK_DATA="$work/nltk_data"
mkdir -p "$work/third_party_lib" && : > "$work/third_party_lib/qcan-1.1-jar-with-dependencies.jar"
: > "$work/empty.ttl"
cd "$work"
# one team file per run (two at a time), each exported to out/TEAM/
export venv work
ls "$ck25"/*.jsonl | xargs -P 2 -I{} sh -c '
    team=$(basename "{}" .jsonl)
    "$venv/bin/python" "$work/t2s.py" run -d ck25 -j "{}" --eg "$work/empty.ttl" --eq \
        --ep "$work/out/$team" -m meteor > "$work/$team.log" 2>&1 ||
        { echo "t2s failed on $team:" >&2; tail -20 "$work/$team.log" >&2; exit 255; }'
"$venv/bin/python" - "$work/out" "$here/ck25-meteor.json" <<'PY'
import json, os, sys
out, target = sys.argv[1], sys.argv[2]
runs = []
for team in sorted(os.listdir(out)):
    d = os.path.join(out, team)
    runs += json.load(open(os.path.join(d, os.listdir(d)[0])))
per_query, means = {}, {}
for run in runs:
    team = os.path.basename(run["system_name"]).removesuffix(".jsonl")
    means[team] = run["metrics"]["meteor"]
    ids = per_query.setdefault(team, {})
    for r in run["per_query_results"]:
        assert r["metric"] == "meteor" and r["id"] not in ids, r
        ids[r["id"]] = r["score"]
tool = "t2s-metrics 1.2.0, nltk 3.10.4, Debian WordNet 3.0 (wordnet-base)"
json.dump({"tool": tool, "per_query": per_query, "means": means},
          open(target, "w"), sort_keys=True, indent=0)
PY
