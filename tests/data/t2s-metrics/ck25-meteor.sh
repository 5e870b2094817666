#!/usr/bin/env bash
# T2S-Metrics 1.2.0's `meteor` measure (NLTK 3.10.4's meteor_score with
# WordNet) on the nine CK25 team files, made offline with Debian's WordNet 3.0:
# writes ck25-meteor.json beside this script (per team: the score of every
# case, and the mean of its MeanAggregator as its JSON export gives it).
# Usage: ck25-meteor.sh VENV CK25_DIR WORDNET_DIR
#   VENV has `pip install t2s-metrics==1.2.0` (python 3.12, nltk 3.10.4);
#   CK25_DIR holds the nine team files; WORDNET_DIR is Debian's wordnet-base
#   dictionary (/usr/share/wordnet: index.*, data.*, *.exc).
# NLTK's reader wants a `corpora/wordnet/` directory under NLTK_DATA with files,
# not symlinks, that stay inside it, and two files wordnet-base lacks:
# `lexnames` (WordNet 3.0's 45 lexicographer files, written here) and
# `index.sense` (NLTK 3.10.4 opens it while loading, to map WordNet onto itself
# for the multilingual OMW data; empty here, as METEOR never uses sense keys).
# Meteor.compute calls nltk.download("wordnet", quiet=True) on every case. With
# no network that fails in about 30 ms (nltk's pathsec refuses the unresolved
# raw.githubusercontent.com) and returns False; with a network it would install
# NLTK's own wordnet.zip over the Debian files. So the CLI runs with
# nltk.download replaced by a no-op that returns True: it only skips that
# download, WordNet is already there. (The scores are the same without it.)
# The CLI wants an execution backend even for measures that execute nothing
# (an empty Turtle file) and the QCan jar's path to exist (an empty placeholder).
# Made with: tests/data/t2s-metrics/ck25-meteor.sh ~/.cache/qajudge/target/venv-t2s \
#   ../shared/data/text2sparql/t2s-metrics/ck25 /usr/share/wordnet
set -euo pipefail
venv=$1 ck25=$(cd "$2" && pwd) wordnet=$(cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dict="$work/nltk_data/corpora/wordnet"
mkdir -p "$dict"
cp "$wordnet"/index.{adj,adv,noun,verb} "$wordnet"/data.{adj,adv,noun,verb} \
    "$wordnet"/{adj,adv,noun,verb}.exc "$dict/"
: > "$dict/index.sense"
i=0
for entry in adj.all:3 adj.pert:3 adv.all:4 noun.Tops:1 noun.act:1 noun.animal:1 \
    noun.artifact:1 noun.attribute:1 noun.body:1 noun.cognition:1 \
    noun.communication:1 noun.event:1 noun.feeling:1 noun.food:1 noun.group:1 \
    noun.location:1 noun.motive:1 noun.object:1 noun.person:1 noun.phenomenon:1 \
    noun.plant:1 noun.possession:1 noun.process:1 noun.quantity:1 noun.relation:1 \
    noun.shape:1 noun.state:1 noun.substance:1 noun.time:1 verb.body:2 \
    verb.change:2 verb.cognition:2 verb.communication:2 verb.competition:2 \
    verb.consumption:2 verb.contact:2 verb.creation:2 verb.emotion:2 \
    verb.motion:2 verb.perception:2 verb.possession:2 verb.social:2 \
    verb.stative:2 verb.weather:2 adj.ppl:3; do
    printf '%02d\t%s\t%s\n' "$i" "${entry%:*}" "${entry#*:}" >> "$dict/lexnames"
    i=$((i + 1))
done
export NLTK_DATA="$work/nltk_data"
"$venv/bin/python" - <<'PY'
from nltk.corpus import wordnet as wn
assert wn.get_version() == "3.0", wn.get_version()
assert wn.synset("dog.n.01").lexname() == "noun.animal"
PY
mkdir -p "$work/third_party_lib" && : > "$work/third_party_lib/qcan-1.1-jar-with-dependencies.jar"
: > "$work/empty.ttl"
cat > "$work/t2s.py" <<'PY'
# the `t2s` console entry point, with nltk.download a no-op (see above)
import sys

import nltk

nltk.download = lambda *args, **kwargs: True
from t2smetrics.cli import main

sys.argv[0] = "t2s"
sys.exit(main())
PY
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
