#!/usr/bin/env bash
# `qajudge index fetch` speed: a loopback oxigraph server holding a synthetic
# slice of Wikidata's shape (about TRIPLES statements, default 1,000,000: every
# Wikidata item QALD-10's gold names, with en/de sitelinks, labels, aliases,
# P31 and P646, and filler items of the same shape), then the fetch of
# QALD-10's gold IRIs (--hops 1, --batch 200, --parallel 1). Prints the wall
# time and the requests, and, as the baseline measured in the same run, one
# full scan of the store (COUNT of every statement) by curl.
# Usage: bash scripts/bench-fetch.sh [TRIPLES]
#        (QAJUDGE_BIN=path/to/qajudge uses that binary instead of a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
triples="${1:-1000000}"
target="${CARGO_TARGET_DIR:-target}"
work="$target/bench-fetch"
gold=../shared/data/qald/10/qald_10.json
[ -f "$gold" ] || { echo "$gold is missing: the benchmark needs the shared data" >&2; exit 1; }
mkdir -p "$work"
bin="${QAJUDGE_BIN:-}"
if [ -z "$bin" ]; then
  cargo build --release --bin qajudge
  bin="$target/release/qajudge"
fi
ox="$target/venv-oxigraph/bin/oxigraph"
[ -x "$ox" ] || bash scripts/install-servers.sh
slice="$work/wikidata-slice-$triples.nt"
[ -f "$slice" ] || python3 - "$gold" "$triples" "$slice" <<'PY'
import json, re, sys
gold, want, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = open(gold, encoding="utf-8").read()
ids = sorted(set(re.findall(r"(?:wd:|/entity/)(Q[0-9]+)", text)), key=lambda q: int(q[1:]))
WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
SC, RDFS, SKOS = "http://schema.org/", "http://www.w3.org/2000/01/rdf-schema#", "http://www.w3.org/2004/02/skos/core#"
n = 0
with open(out, "w", encoding="utf-8") as f:
    def item(q):
        global n
        i = f"<{WD}{q}>"
        lines = []
        for lang in ("en", "de"):
            a = f"<https://{lang}.wikipedia.org/wiki/Article_{q}>"
            lines += [f"{a} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{SC}Article> .",
                      f"{a} <{SC}about> {i} .",
                      f"{a} <{SC}isPartOf> <https://{lang}.wikipedia.org/> .",
                      f'{a} <{SC}name> "Article {q}"@{lang} .',
                      f'{i} <{RDFS}label> "Item {q}"@{lang} .']
        lines += [f'{i} <{SKOS}altLabel> "Alias one {q}"@en .',
                  f'{i} <{SKOS}altLabel> "Alias two {q}"@en .',
                  f"{i} <{WDT}P31> <{WD}Q{5 + int(q[1:]) % 7}> .",
                  f'{i} <{WDT}P646> "/m/0{q[1:].lower()}x" .',
                  f'{i} <{WDT}P1082> "{int(q[1:]) % 100000}" .']
        f.write("\n".join(lines) + "\n")
        n += len(lines)
    for q in ids:
        item(q)
    filler = 100_000_000
    while n < want:
        item(f"Q{filler}")
        filler += 1
print(f"{out}: {n} statements, {len(ids)} items of QALD-10", file=sys.stderr)
PY
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$ox" serve --bind "127.0.0.1:$port" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$port/query?query=ASK%7B%7D" >/dev/null; do sleep 0.2; done
echo "-- loading $slice"
curl -sf -X POST -H 'Content-Type: application/n-triples' --data-binary "@$slice" "http://127.0.0.1:$port/store?default"
url="http://127.0.0.1:$port/query"
seconds() { python3 -c 'import time; print(f"{time.monotonic():.3f}")'; }
echo "-- baseline: one full scan of the store (COUNT of every statement) by curl"
t0=$(seconds)
curl -sf -H 'Accept: application/sparql-results+json' --data-urlencode 'query=SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }' "$url" >/dev/null
t1=$(seconds)
echo "-- index fetch of QALD-10's gold IRIs"
rm -rf "$work/index"
"$bin" index fetch --out "$work/index" --gold "$gold" --endpoint "wikidata=$url" 2> "$work/fetch.log"
t2=$(seconds)
grep -v '^fetch: ' "$work/fetch.log" || true
python3 - "$t0" "$t1" "$t2" "$work/fetch.log" <<'PY'
import re, sys
t0, t1, t2, log = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
summary = open(log, encoding="utf-8").read()
m = re.search(r"(\d+) starting IRIs, (\d+) resolved; (\d+) IRIs asked in (\d+) queries \((\d+) requests", summary)
seeds, resolved, asked, queries, requests = map(int, m.groups())
scan, fetch = t1 - t0, t2 - t1
print(f"full scan {scan:.2f} s; fetch and build {fetch:.2f} s ({fetch / scan:.1f} full scans)")
print(f"{seeds} starting IRIs ({resolved} resolved), {asked} asked in {requests} requests: {requests / asked:.4f} requests per IRI")
PY
