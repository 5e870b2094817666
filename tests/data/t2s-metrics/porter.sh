#!/usr/bin/env bash
# NLTK 3.10.4's Porter stemmer (`PorterStemmer().stem(w)`: mode
# NLTK_EXTENSIONS, lowercasing), as METEOR's stem stage in T2S-Metrics uses it
# and src/eval/text/porter.rs reproduces it: writes porter.tsv beside this
# script, one `word<TAB>stem` a line, sorted by code point, each word once.
# The words: every token of the golden and generated queries of the nine CK25
# team files (the pieces of `[\w:?$'"-]+` and of `\w+`, as-is and lowercased),
# every k-th lemma of WordNet's index.{noun,verb,adj,adv} (first column, in
# that order, k chosen so that about 20,000 words come out in all) and
# hand-picked hard cases (the paper's examples, NLTK's irregular forms and
# extensions, short words, `*d`, `y` runs, non-ASCII, SPARQL pieces).
# Usage: porter.sh VENV [CK25_DIR [WORDNET_DIR]]
#   VENV has nltk 3.10.4 (python 3.12); CK25_DIR defaults to
#   ../shared/data/text2sparql/t2s-metrics/ck25 beside the repository,
#   WORDNET_DIR to /usr/share/wordnet (Debian's WordNet 3.0).
# Made with: tests/data/t2s-metrics/porter.sh ~/.cache/qajudge/target/venv-t2s
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=$1
ck25=${2:-$here/../../../../shared/data/text2sparql/t2s-metrics/ck25}
wordnet=${3:-/usr/share/wordnet}
"$venv/bin/python" - "$ck25" "$wordnet" "$here/porter.tsv" <<'PY'
import glob, json, math, os, re, sys
import nltk
from nltk.stem.porter import PorterStemmer

ck25, wordnet, target = sys.argv[1:]
assert nltk.__version__ == "3.10.4", nltk.__version__
files = sorted(glob.glob(os.path.join(ck25, "*.jsonl")))
assert len(files) == 9, files
words = set()
for f in files:
    for line in open(f, encoding="utf-8"):
        row = json.loads(line)
        for query in (row["golden"], row["generated"]):
            for pattern in (r"[\w:?$'\"-]+", r"\w+"):
                for token in re.findall(pattern, query or ""):
                    words.update((token, token.lower()))
hard = """
    a I y Y s e as is us IS yy ay by sy ll ed ies ied ing eed sky ski the
    ing ying bied sses ss all ion logi alli fulli abli eli bli ful ate
    skies dying lying tying news innings cannings howe proceed succeeded
    outings outing exceed exceeded succeed inning SKIES Dying NEWS
    generalli analogi fulli hopefulli agreed feed plastered motoring sing
    conflated troubled sized hopping tanned falling hissing fizzed failing
    filing happy sky yyy ayy byy syzygy relational conditional rational
    valenci digitizer conformabli radicalli differentli vileli analogousli
    vietnamization predication operator feudalism decisiveness hopefulness
    callousness formaliti sensitiviti sensibiliti triplicate formative
    formalize electriciti electrical hopeful goodness revival allowance
    inference airliner gyroscopic adjustable defensible irritant
    replacement adjustment dependent adoption homologou communism activate
    angulariti homologous effective bowdlerize probate rate cease controll
    roll ied ties pies cries died tied spied a*d x*d a*ded x*ding a*dding
    o*ded **ded a**ed ab*ded Ünïcödé naïvely ÉCOLES İstanbul straße 123 _
    ?x dbo:birthPlace CAPITALS İİ İs İst İİİ ΣΑΣ ΌΣΟΣ Ǆemal K ﬁling
    yyyyyyyyyy yyyyyyyyyyy ayyyyy toy enjoy enjoying spy fly try flies
    generallialli radicallialli geologi theologi archaeologi philologi
    hopefullis tall falll rolled controlling geo theo oed eeed aed ee
    ing1 sing_ 1ing a1ed ioned tion sion motion vision fusion  caresses
    ponies cats caress bled hop tan fail file wil wiled hoping xyzing
""".split() + ["", "-", "?", "'", "a b", "é", "éé", "ééé", "ÀÉÎ"]
words.update(hard)
lemmas = []
for part in ("noun", "verb", "adj", "adv"):
    for line in open(os.path.join(wordnet, "index." + part), encoding="utf-8"):
        if not line.startswith(" "):
            lemmas.append(line.split(" ", 1)[0])
k = max(1, math.ceil(len(lemmas) / (20000 - len(words))))
words.update(lemmas[::k])
stemmer = PorterStemmer()
with open(target, "w", encoding="utf-8", newline="\n") as out:
    for w in sorted(words):
        assert "\t" not in w and "\n" not in w and "\r" not in w, repr(w)
        out.write(f"{w}\t{stemmer.stem(w)}\n")
print(f"{len(words)} words ({len(lemmas)} WordNet lemmas, every {k}th)", file=sys.stderr)
PY
