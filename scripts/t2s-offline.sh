#!/usr/bin/env bash
# Prepares T2S-Metrics 1.2.0 to run offline with a WordNet 3.0 dictionary
# (Debian's wordnet-base, /usr/share/wordnet), for its `meteor`: writes
#   OUT/nltk_data/corpora/wordnet/  the dictionary as NLTK's reader wants it:
#       copies (NLTK 3.10 refuses symlinks leaving the corpus directory) of
#       index.*, data.*, *.exc, plus two files wordnet-base lacks: `lexnames`
#       (WordNet 3.0's 45 lexicographer files) and an empty `index.sense`
#       (NLTK opens it while loading, for OMW; METEOR never reads sense keys);
#   OUT/t2s.py  the `t2s` console entry point with nltk.download a no-op:
#       its Meteor calls nltk.download("wordnet") on every case, which offline
#       fails in about 30 ms and with a network would install NLTK's own
#       wordnet.zip over this one. It only skips that download.
# Then run `NLTK_DATA=OUT/nltk_data VENV/bin/python OUT/t2s.py run …`.
# Usage: t2s-offline.sh VENV OUT [WORDNET_DIR]   (default /usr/share/wordnet)
set -euo pipefail
venv=$1 out=$2 wordnet=${3:-/usr/share/wordnet}
[ -f "$wordnet/index.noun" ] || { echo "error: no WordNet dictionary in $wordnet (install Debian's wordnet-base)" >&2; exit 1; }
dict="$out/nltk_data/corpora/wordnet"
mkdir -p "$dict"
cp "$wordnet"/index.{adj,adv,noun,verb} "$wordnet"/data.{adj,adv,noun,verb} \
    "$wordnet"/{adj,adv,noun,verb}.exc "$dict/"
: > "$dict/index.sense"
: > "$dict/lexnames"
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
NLTK_DATA="$out/nltk_data" "$venv/bin/python" - <<'PY'
from nltk.corpus import wordnet as wn
assert wn.get_version() == "3.0", wn.get_version()
assert wn.synset("dog.n.01").lexname() == "noun.animal"
PY
cat > "$out/t2s.py" <<'PY'
# the `t2s` console entry point, with nltk.download a no-op (scripts/t2s-offline.sh)
import sys

import nltk

nltk.download = lambda *args, **kwargs: True
from t2smetrics.cli import main

sys.argv[0] = "t2s"
sys.exit(main())
PY
