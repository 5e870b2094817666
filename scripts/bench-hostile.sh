#!/usr/bin/env bash
# The hostile inputs of the third hardening pass (docs/benchmarks.md, Hostile
# sizes), made here and timed as whole `qajudge` commands: a TEXT2SPARQL YAML
# whose aliases expand to 1 GB, a QAWiki dump whose 5,000 questions share one
# statement of 8,000 qualifiers, a 2.5 KB bzip2 and a 100 KB zstd bomb, a
# T2S-Metrics case whose query is 160 KB of `<`, one with 60,000 variables,
# and a WordNet dictionary whose index line repeats one offset 2,000 times to
# a synset of 65,535 lemmas. Each is run once with its wall time and peak
# resident memory (the child's ru_maxrss); usage:
#   bash scripts/bench-hostile.sh [QAJUDGE_BINARY]
# (default: the release build under ${CARGO_TARGET_DIR:-target}). Nothing is
# downloaded; the inputs go to a temporary directory that is removed.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-${CARGO_TARGET_DIR:-target}/release/qajudge}"
[ -x "$bin" ] || { echo "error: no qajudge binary at $bin; build it (cargo build --release) or name one" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$bin" "$work" <<'EOF'
import bz2, json, os, resource, subprocess, sys, time
bin, work = sys.argv[1], sys.argv[2]

def write(name, data):
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path

# a TEXT2SPARQL YAML: 1,200 aliases of one 800 KB question
yaml = 'dataset: {id: "https://e.org/ds/", prefix: x}\n'
yaml += 'one: &q {id: 1, question: {en: "%s"}, query: {sparql: "ASK {}"}}\n' % ("a" * 800_000)
yaml += "questions: [" + ", ".join(["*q"] * 1200) + "]\n"
laughs = write("laughs.yaml", yaml)

# QAWiki: 5,000 questions pointing at one statement with 8,000 qualifiers
ttl = ["@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
       "@prefix wd: <https://qawiki.org/entity/> .", "@prefix wdt: <https://qawiki.org/prop/direct/> .",
       "@prefix p: <https://qawiki.org/prop/> .", "@prefix ps: <https://qawiki.org/prop/statement/> .",
       "@prefix pq: <https://qawiki.org/prop/qualifier/> .", "@prefix s: <https://qawiki.org/entity/statement/> .",
       'wd:Q1 rdfs:label "question"@en .']
ttl += ['wd:Q%d wdt:P1 wd:Q1 ; rdfs:label "q%d"@en ; p:P11 s:big .' % (i + 100, i) for i in range(5000)]
ttl.append('s:big ps:P11 "ASK {}" ;\n pq:P13 ' + ", ".join('"v%d"' % i for i in range(8000)) + " .")
shared = write("shared.ttl", "\n".join(ttl) + "\n")

# decompression bombs: 1.75 GB of spaces
block = b" " * (1 << 20)
bz = bz2.BZ2Compressor(9)
chunks = [bz.compress(block) for _ in range(1750)]
bomb_bz2 = write("bomb.json.bz2", b"".join(chunks) + bz.flush())
zst_path = os.path.join(work, "bomb.json.zst")
with open(os.path.join(work, "spaces.json"), "wb") as f:
    for _ in range(1750):
        f.write(block)
subprocess.run(["zstd", "-q", "-19", "--rm", "-o", zst_path, os.path.join(work, "spaces.json")], check=True)

# T2S-Metrics cases: a query of 160 KB of `<`, one of 60,000 variables
lt = write("lt.jsonl", json.dumps({"id": "1", "golden": "SELECT ?x WHERE { ?x ?p ?o }",
                                   "generated": "<" * 160_000, "order_matters": False}) + "\n")
variables = " ".join("?v%d" % i for i in range(60_000))
many = write("vars.jsonl", json.dumps({"id": "1", "golden": "SELECT ?x WHERE { ?x ?p ?o }",
                                       "generated": "SELECT %s WHERE { ?s ?p ?o }" % variables,
                                       "order_matters": False}) + "\n")

# WordNet: `select` → one offset repeated 2,000 times, to a synset of 65,535 lemmas
wn = os.path.join(work, "wordnet")
os.makedirs(wn)
header = "  1 WordNet 3.0 Copyright\n"
offset = len(header)
lemmas = " ".join("l%d 0" % i for i in range(65_535))
for c, suffix in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
    line = "%08d 03 %s ffff %s 000 | x\n" % (offset, c, lemmas) if c == "n" else "%08d 03 %s 01 x%s 0 000 | x\n" % (offset, c, suffix)
    write(os.path.join("wordnet", "data." + suffix), header + line)
    offsets = " ".join(["%08d" % offset] * 2000) if c == "n" else "%08d" % offset
    n = 2000 if c == "n" else 1
    lemma = "select" if c == "n" else "x" + suffix
    write(os.path.join("wordnet", "index." + suffix), "%s %s %d 0 %d 0 %s\n" % (lemma, c, n, n, offsets))
    write(os.path.join("wordnet", suffix + ".exc"), "")
wordnet_case = write("wn.jsonl", json.dumps({"id": "1", "golden": "SELECT ?select WHERE { ?select ?p ?o }",
                                             "generated": "SELECT ?select WHERE { ?select ?p ?o }",
                                             "order_matters": False}) + "\n")

cases = [
    ("check: TEXT2SPARQL YAML, 1,200 aliases of an 800 KB question (1 GB expanded)", ["check", laughs]),
    ("check: QAWiki dump, 5,000 questions sharing a statement of 8,000 qualifiers", ["check", shared]),
    ("check: %d-byte bzip2 of 1.75 GB" % os.path.getsize(bomb_bz2), ["check", bomb_bz2]),
    ("check: %d-byte zstd of 1.75 GB" % os.path.getsize(zst_path), ["check", zst_path]),
    ("evaluate --profile t2s-metrics: a generated query of 160 KB of `<`", ["evaluate", "--profile", "t2s-metrics", "--run", lt]),
    ("evaluate --profile t2s-metrics: a generated query of 60,000 variables", ["evaluate", "--profile", "t2s-metrics", "--run", many]),
    ("evaluate --profile t2s-metrics --wordnet: an offset repeated 2,000 times to 65,535 lemmas", ["evaluate", "--profile", "t2s-metrics", "--wordnet", wn, "--run", wordnet_case]),
]
# each command under a Python of its own, whose children's ru_maxrss is then
# that command's peak alone
MEASURE = ("import resource, subprocess, sys, time\n"
           "t = time.monotonic(); r = subprocess.run(sys.argv[1:], capture_output=True)\n"
           "print(time.monotonic() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)")
print("| input | seconds | peak RSS | exit |")
print("|---|---|---|---|")
for name, args in cases:
    out = subprocess.run([sys.executable, "-c", MEASURE, bin, *args], capture_output=True, text=True, timeout=900)
    took, peak_kb, code = out.stdout.split()
    print("| %s | %.2f | %.0f MB | %s |" % (name, float(took), int(peak_kb) / 1024, code), flush=True)
EOF
