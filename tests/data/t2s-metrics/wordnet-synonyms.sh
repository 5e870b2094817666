#!/usr/bin/env bash
# The WordNet synonym sets NLTK 3.10.4's meteor_score matches with, read from
# Debian's WordNet 3.0: writes wordnet-synonyms.tsv beside this script, one line
# `word<TAB>syn1 syn2 ...` per word, words sorted and unique, where the
# synonyms are exactly meteor_score's `hypothesis_syns` for the word:
#   {lemma.name() for synset in wordnet.synsets(word)
#    for lemma in synset.lemmas() if "_" not in lemma.name()} | {word}
# sorted and joined by single spaces (lemma names hold no spaces).
# The words: every token T2S-Metrics 1.2.0 gives METEOR for the CK25 golden and
# generated queries (SparqlQuery.tokens), lowercased as meteor_score's
# preprocess does and also then stemmed with NLTK's PorterStemmer (the synonym
# stage sees the stems left over by the stem stage), plus a hand-picked list.
# Tokens holding whitespace (quoted literals such as "united states", with their
# quotes) are left out, as the list is space-separated: WordNet has no entry
# for any of them, so their set is only the token itself (checked below).
# Usage: wordnet-synonyms.sh VENV CK25_DIR WORDNET_DIR
#   as for ck25-meteor.sh; scripts/t2s-offline.sh lays the dictionary out for NLTK.
# Made with: tests/data/t2s-metrics/wordnet-synonyms.sh ~/.cache/qajudge/target/venv-t2s \
#   ../shared/data/text2sparql/t2s-metrics/ck25 /usr/share/wordnet
set -euo pipefail
venv=$1 ck25=$(cd "$2" && pwd) wordnet=$(cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$here/../../../scripts/t2s-offline.sh" "$venv" "$work" "$wordnet"
NLTK_DATA="$work/nltk_data" "$venv/bin/python" - "$ck25" "$here/wordnet-synonyms.tsv" <<'PY'
import glob, os, sys
from nltk.corpus import wordnet
from nltk.stem.porter import PorterStemmer
from t2smetrics.core.eval import JsonlEval
from t2smetrics.representation.preprocessing import prefix_preprocessor

assert wordnet.get_version() == "3.0", wordnet.get_version()
hand_picked = """dog dogs geese better best ran running axes corpora are was wolves
    boxes churches dishes women ladies happier hardest larger nicest quickly films
    film countries country birth born place places spouse wife married capital
    population largest highest area writer wrote written book books city cities
    river rivers mountain mountains count number many much select distinct where
    filter order limit ask lang label type a an the of in is be 's x $x e-mail
    u.s. ai 3d 1990s""".split()
# the case as Experiment.run hands it to the measures: its prefix step adds
# nothing without --pp/--cp, and Meteor has no preprocessor of its own
prefixes = prefix_preprocessor()
tokens = set()
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    for case in JsonlEval(path):
        case = prefixes.apply(case)
        tokens.update(case.golden.tokens, case.generated.tokens)
stemmer = PorterStemmer()
lowered = {token.lower() for token in tokens}
words = lowered | {stemmer.stem(word) for word in lowered} | set(hand_picked)


def synonyms(word):
    return {
        lemma.name()
        for synset in wordnet.synsets(word)
        for lemma in synset.lemmas()
        if lemma.name().find("_") < 0
    } | {word}


spaced = {word for word in words if any(c.isspace() for c in word)}
assert all(synonyms(word) == {word} for word in spaced), spaced
assert not spaced & set(hand_picked)
with open(sys.argv[2], "w") as out:
    for word in sorted(words - spaced):
        syns = sorted(synonyms(word))
        assert all(not any(c.isspace() for c in syn) for syn in syns), (word, syns)
        out.write(word + "\t" + " ".join(syns) + "\n")
print(f"{len(words - spaced)} words ({len(spaced)} with whitespace left out)")
PY
